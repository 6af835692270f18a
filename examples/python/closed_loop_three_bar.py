#!/usr/bin/env python3
"""Closed-loop steering of document 001's 3-bar robot toward a target point on the floor.

The C++ twin is examples/cpp/closed_loop_three_bar.cpp (same law, same arithmetic, same output).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/closed_loop_three_bar.py
    ... --target 0.3 0.0 --duration 10       # target (x, y) [m] on the floor, simulated time [s]
    ... --duration 4                          # a quick check (CI)
    ... --live 8787                           # watch it at the live address `tendyn serve` prints (start it first)

The robot is models/three_bar.yaml (3 rods, 9 cables, standing on its impulse ground) without its
sinusoidal drives. A Python controller, called by tendyn.tensegrity.simulate every 20 ms (a sampled
controller: the GIL is taken only for the call; what it writes is held until the next call), reads
the measured node positions and sets the rest lengths of the top triangle (c1, c2, c3) and the
bottom triangle (c4, c5, c6):

  * estimate: the COM is the mean of the six node positions (equal rods, centre at mid-length);
    u = unit vector from the COM to the target, on the floor.
  * lean: for each of those cables, s = clip((midpoint - COM) . u / 8 cm, -1, 1) says how much it
    faces the target; top cables get rest_length - 2 cm * s (shortened on the target side),
    bottom cables rest_length + 2 cm * s. The robot leans toward the target.
  * hop: every 0.5 s all top cables are shortened by 3 cm for 60 ms. The sudden contraction makes
    the robot hop (the rod ends leave the ground by about a centimetre) and, leaning, it lands a
    little closer to the target: about 1 to 2 cm per second.
  * arrive: within 2 cm of the target the hops stop (the lean stays).
  * every rest length is clipped to the cable's limits [rest - 6 cm, rest + 3 cm], set on the model.

What this law is and is not (found by simulation, not derived): the lean alone only shifts the COM
by a few millimetres and smooth (sinusoidal) patterns barely move the robot; the motion comes from
the hops, i.e. from stepping the rest lengths faster than the structure responds. The model's
cables have no rest-rate limit (an ideal winch); a real winch would need to pay in 3 cm within a
control period. Leaning alone, or pulsing without leaning, does not steer. With this lean and hop
the robot closes on the target in every one of 12 directions tried (0.3 m away, 6 s: 45 to 150 mm
closer, depending on direction, hop period 0.4 to 0.7 s, control period 10 to 25 ms and step 0.25
to 0.5 ms), but the path is not straight and the progress is uneven from hop to hop.
"""
import argparse
import math
import sys
from pathlib import Path

import tendyn
import tendyn.viewer

ts = tendyn.tensegrity

REPO = Path(__file__).resolve().parents[2]
CONTROL_PERIOD_S = 0.02
LEAN_M = 0.02      # lean amplitude
HOP_M = 0.03       # top-cable contraction of a hop
HOP_EVERY = 25     # a hop every 25 control periods (0.5 s) ...
HOP_FOR = 3        # ... lasting 3 control periods (60 ms)
ARRIVED_M = 0.02   # no hops within this distance
FACING_M = 0.08    # midpoint offset for full lean
TOP, BOTTOM = (0, 1, 2), (3, 4, 5)  # c1..c3, c4..c6


def make_law(model, target):
    """The controller: controller(t_s, state, data) for simulate()."""
    nominal = [c.rest_length_m for c in model.cables]
    low = [c.rest_length_min_m for c in model.cables]
    high = [c.rest_length_max_m for c in model.cables]
    ends = [c.node for c in model.cables]
    calls = [0]

    def law(t_s, state, data):
        p = data.p_W_node  # (3 x nnode) measured node positions [m]
        n = p.shape[1]
        cx = cy = 0.0
        for i in range(n):
            cx += p[0, i]
            cy += p[1, i]
        cx /= n
        cy /= n
        dx, dy = target[0] - cx, target[1] - cy
        dist = math.sqrt(dx * dx + dy * dy)
        ux, uy = (dx / dist, dy / dist) if dist > 0.0 else (0.0, 0.0)
        hop = dist > ARRIVED_M and calls[0] % HOP_EVERY < HOP_FOR
        calls[0] += 1
        rest = data.cable_rest_length_m  # writable view (ncable) [m]
        for k in TOP + BOTTOM:
            a, b = ends[k]
            mx = 0.5 * (p[0, a] + p[0, b]) - cx
            my = 0.5 * (p[1, a] + p[1, b]) - cy
            s = min(max((mx * ux + my * uy) / FACING_M, -1.0), 1.0)
            value = nominal[k] - LEAN_M * s if k in TOP else nominal[k] + LEAN_M * s
            if hop and k in TOP:
                value -= HOP_M
            rest[k] = min(max(value, low[k]), high[k])

    return law


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(REPO / "models" / "three_bar.yaml"), help="the 3-bar model file")
    parser.add_argument("--target", nargs=2, type=float, default=[0.3, 0.0], metavar=("X", "Y"),
                        help="target point on the floor [m] (default 0.3 0)")
    parser.add_argument("--duration", type=float, default=10.0, help="simulated time [s] (default 10)")
    parser.add_argument("--live", type=int, metavar="PORT",
                        help="stream the run to `tendyn serve --port PORT` on this machine (page: /live)")
    args = parser.parse_args(argv)

    mf = ts.load_model_file(args.model)
    model = mf.model
    model.drives = []  # the controller owns the cables
    cables = model.cables
    for c in cables:
        c.rest_length_min_m = c.rest_length_m - 0.06
        c.rest_length_max_m = c.rest_length_m + 0.03
    model.cables = cables
    options = mf.simulation  # RK4, 0.5 ms, as in the model file
    options.duration_s = args.duration
    options.output_interval_s = 0.5
    target = (args.target[0], args.target[1])

    law = make_law(model, target)
    view = None
    if args.live is not None:  # the live view: every controller call's state, posted at most 30 times a second
        view = tendyn.viewer.show(model, port=args.live)
        law = view.observer(law)
    run = ts.simulate(model, options, controller=law, control_period_s=CONTROL_PERIOD_S)
    if view is not None:
        view.close()  # the last frame reaches the page

    nodes = run["node_positions"]  # (samples x nnode x 3) [m]
    distances = []
    for sample in nodes:
        cx = cy = 0.0
        for p in sample:
            cx += p[0]
            cy += p[1]
        cx /= len(sample)
        cy /= len(sample)
        dx, dy = target[0] - cx, target[1] - cy
        distances.append(math.sqrt(dx * dx + dy * dy))
    print(f"target ({target[0]:.3f}, {target[1]:.3f}) m, {args.duration:g} s simulated")
    print("distance every 0.5 s [m]: " + " ".join(f"{d:.3f}" for d in distances))
    print(f"distance to target: start {distances[0]:.4f} m, end {distances[-1]:.4f} m")
    return 0


if __name__ == "__main__":
    sys.exit(main())
