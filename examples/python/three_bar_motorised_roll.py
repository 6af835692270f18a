#!/usr/bin/env python3
"""The motorised 3-bar robot (a published robot's numbers) rolling under its gait table, motors in the loop.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/three_bar_motorised_roll.py
    ... --duration 6          # simulated time [s] (default 20: the whole gait table)
    ... --view out/roll       # also write the viewer page out/roll/view.html (runs `tendyn simulate --html`)

The robot is models/three_bar_motorised.yaml (docs/REAL_ROBOTS.md, "A worked example"): the R2S2R
3-bar robot's rods, end-caps and spools, Pololu 75:1 gear motors on the six short cables. The gait
is the table models/three_bar_motorised_roll.csv: the six winches' targets, as rest-length offsets
[m], at the table's times. Here the table is read with NumPy and given to the model as table drives
(tendyn.tensegrity.TableDrive): the winches then reel toward those targets within their motors'
torque-speed limits. The run prints the sets of end-caps on the ground in the order they occur
(a change of that set is the robot tipping over an edge: rolling) and how far the centre of mass
moved. The CLI runs the same gait (the same table, written into the model file by
models/gen/make_three_bar_motorised.py): tendyn simulate models/three_bar_motorised_roll.yaml
"""
import argparse
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import tendyn

ts = tendyn.tensegrity

REPO = Path(__file__).resolve().parents[2]
CAP_CLEARANCE_M = 0.003  # an end-cap touches the ground when its centre is within radius + 3 mm of it
FACE_HOLD_S = 0.2        # a set of end-caps on the ground counts as a face once it has lasted this long


def read_gait(path):
    """The gait table: (times [s], {cable id: offsets [m]})."""
    rows = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    header = rows[0].split(",")
    data = np.array([[float(v) for v in r.split(",")] for r in rows[1:]])
    if header[0] != "t_s" or not all(h.endswith(".u_m") for h in header[1:]):
        raise SystemExit(f"{path}: header {header}: expected t_s,<cable>.u_m,...")
    return data[:, 0], {h[:-len(".u_m")]: data[:, k + 1] for k, h in enumerate(header[1:])}


def faces(t, z_caps, radius_m):
    """The sets of end-caps (1-based rod-end numbers) on the ground, in order, each once it has lasted FACE_HOLD_S."""
    seq, current, since = [], None, 0.0
    for ti, z in zip(t, z_caps):
        s = tuple(int(k) + 1 for k in np.nonzero(z < radius_m + CAP_CLEARANCE_M)[0])
        if s != current:
            current, since = s, ti
        if ti - since >= FACE_HOLD_S - 1e-9 and len(s) >= 3 and (not seq or seq[-1] != s):
            seq.append(s)
    return seq


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(REPO / "models" / "three_bar_motorised.yaml"))
    parser.add_argument("--gait", default=str(REPO / "models" / "three_bar_motorised_roll.csv"))
    parser.add_argument("--duration", type=float, default=20.0, help="simulated time [s] (default 20)")
    parser.add_argument("--view", metavar="DIR",
                        help="also write DIR/view.html of the shipped gait (models/three_bar_motorised_roll.yaml) with tendyn")
    parser.add_argument("--tendyn", default=None, help="the tendyn program for --view (default: build/tendyn, else PATH)")
    args = parser.parse_args(argv)

    mf = ts.load_model_file(args.model)
    model = mf.model
    t_s, offsets = read_gait(args.gait)
    cables = ts.cable_indices(model, list(offsets))
    ts.remove_drives_on(model, cables)  # the gait owns these cables' targets
    model.drives = list(model.drives) + [ts.CableDrive(cable=k, u=ts.TableDrive(t_s=list(t_s), u_m=list(u)))
                                         for k, u in zip(cables, offsets.values())]
    sim = mf.simulation
    sim.duration_s = args.duration
    sim.output_interval_s = 0.02
    run = ts.simulate(model, sim)

    ends = [i for i, n in enumerate(model.nodes) if not n.is_body_point()]  # the six rod ends (end-cap centres)
    radius = model.nodes[ends[0]].radius_m
    seq = faces(run["time"], run["node_positions"][:, ends, 2], radius)
    com = run["com"]
    dx, dy = com[-1][0] - com[0][0], com[-1][1] - com[0][1]
    ids = model.node_ids
    print(f"{model.name}: {len(t_s)} gait rows for {', '.join(offsets)}; {args.duration:g} s simulated, "
          f"{len(model.winches)} winches in the loop")
    print("end-caps on the ground: " + " -> ".join("{" + ",".join(ids[ends[k - 1]] for k in s) + "}" for s in seq))
    print(f"face changes: {max(len(seq) - 1, 0)}")
    print(f"centre of mass moved {math.hypot(dx, dy) * 1000:.1f} mm (dx {dx * 1000:+.1f} mm, dy {dy * 1000:+.1f} mm) "
          f"in {args.duration:g} s; along -y: {-dy * 1000:.1f} mm")

    if args.view:
        exe = args.tendyn or (str(REPO / "build" / "tendyn") if (REPO / "build" / "tendyn").exists() else shutil.which("tendyn"))
        if not exe:
            raise SystemExit("--view: no tendyn program (give --tendyn PATH)")
        subprocess.run([exe, "simulate", "-q", "--html", "--duration", f"{args.duration:g}", "-o", args.view,
                        str(REPO / "models" / "three_bar_motorised_roll.yaml")], check=True)
        print(f"viewer page: {Path(args.view) / 'view.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
