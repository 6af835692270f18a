#!/usr/bin/env python3
"""A motorised 3-bar robot moved along a straight line by a planned gait, its motors in the loop.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/motorised_three_bar_roll.py
    ... --duration 3        # planned time [s] (default 3: 30 periods of 0.1 s)
    ... --quick             # 0.5 s, for CI

The robot is models/three_bar_motorised.yaml (docs/REAL_ROBOTS.md): document 001's 3-bar with
sphere end-caps on a compliant ground, cables tied off the rod axis, rods made of parts, and DC
gear-motor winches on the six short cables (PID on the reeled-out length), with a published
robot's numbers. Its own sinusoidal drives only rock it in place. Here document 001's planner
(chapter 3: every 0.1 s, each drive cable's target goes up, down or stays by 2 cm; all 3^4
combinations are simulated and the one that moves the centroid furthest along +x with the least
drift is executed) plans the gait of c1..c4 (c5 and c6 hold their targets); every rollout
simulates the motors, so the plan's command is the winches' target
and the motion includes the motors' lag. The executed schedule is then replayed as table drives
(the targets) by simulate(), the way `tendyn simulate` would run it, and the distance rolled is
reported with how closely the motors followed their targets.

The CLI equivalent: tendyn plan models/three_bar_motorised.yaml --drive c1,c2,c3,c4 --u0 0.02 --html
"""
import argparse
import math
import sys
from pathlib import Path

import tendyn

ts = tendyn.tensegrity

REPO = Path(__file__).resolve().parents[2]
DRIVE = ["c1", "c2", "c3", "c4"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(REPO / "models" / "three_bar_motorised.yaml"))
    parser.add_argument("--duration", type=float, default=3.0, help="planned time [s] (default 3)")
    parser.add_argument("--quick", action="store_true", help="0.5 s (a check for CI)")
    parser.add_argument("--threads", type=int, default=0, help="planner threads (0: all cores)")
    args = parser.parse_args(argv)
    duration = 0.5 if args.quick else args.duration

    mf = ts.load_model_file(args.model)
    model = mf.model
    cables = ts.cable_indices(model, DRIVE)
    ts.remove_drives_on(model, cables)  # the planner owns the drive cables' targets

    o = ts.PlannerOptions()
    o.drive_cables = cables
    o.u0_m = 0.02
    o.period_s = 0.1
    o.duration_s = duration
    o.rollout = ts.rollout_options(model, mf.simulation)
    o.threads = args.threads
    result = ts.plan(model, o)

    # replay: the executed targets as table drives, simulated from the start
    model.drives = result.as_drives(cables)
    sim = mf.simulation
    sim.duration_s = duration
    sim.output_interval_s = o.period_s
    run = ts.simulate(model, sim)
    com = run["com"]
    dx, dy = com[-1][0] - com[0][0], com[-1][1] - com[0][1]
    state = run["summary"].final_state
    data = ts.make_data(model)
    ts.compute_derivative(model, state, data)
    lag = max(abs(data.winch_target_m[w] - data.cable_rest_length_m[model.winches[w].cable]) for w in range(len(model.winches)))

    print(f"{model.name}: {len(result.cost_m)} periods of {o.period_s:g} s planned, {result.rollouts} rollouts with the motors")
    print(f"planned centroid: {result.progress_m * 1000:.1f} mm along +x, path error at most {result.max_path_error_m * 1000:.1f} mm")
    print(f"winch lag at the end (|target - rest length|, largest): {lag * 1000:.2f} mm")
    print(f"distance rolled (replayed centre of mass): {math.hypot(dx, dy) * 1000:.1f} mm "
          f"(dx {dx * 1000:+.1f} mm, dy {dy * 1000:+.1f} mm) in {duration:g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
