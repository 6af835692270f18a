#!/usr/bin/env python3
"""Searches the rolling gait of models/three_bar_motorised.yaml and writes models/three_bar_motorised_roll.csv.

    PYTHONPATH=build/python /usr/bin/python3 models/gen/search_three_bar_motorised_roll.py   # about 4 min on one core
    /usr/bin/python3 models/gen/make_three_bar_motorised.py     # then: the table into three_bar_motorised_roll.yaml

A greedy random search with the motors in the loop (docs/REAL_ROBOTS.md, "A rolling gait"). The
gait is PHASES phases of PHASE_S seconds; in each, the six winches' targets ramp in RAMP_S to a
shape (rest-length offsets [m]) and hold it. For phase k, CANDIDATES random shapes (each cable
shortened by 0 to 9 cm with probability 0.6, else left at its rest length) are simulated after
the k phases already chosen (from t = 0, 0.5 s past the phase's end), and the shape with the
highest score is kept: the centre of mass's displacement along DIRECTION [m] plus 5 cm for every
face (set of >= 3 end-caps on the ground for 0.2 s) in the run's sequence of faces. Deterministic
(seeded); the table is written with the targets rounded to 1 mm, which the CLI test then checks.
"""
import os
import sys

import numpy as np

import tendyn

ts = tendyn.tensegrity
HERE = os.path.dirname(os.path.abspath(__file__))
WINCH_CABLES = ["c1", "c2", "c3", "c4", "c5", "c6"]
DIRECTION = np.array([0.0, -1.0])
PHASES, PHASE_S, RAMP_S, CANDIDATES, SEED = 9, 2.0, 0.8, 30, 1
SHORTEN_MAX_M, SHORTEN_PROB = 0.09, 0.6
OUTPUT_S, FACE_HOLD_S, CAP_CLEARANCE_M, FACE_BONUS_M = 0.02, 0.2, 0.003, 0.05


def simulate(mf, keys, duration_s):
    """The model with the winch targets of `keys` [(t_s, offsets)] (linear between keys): (com, node positions)."""
    m = mf.model.copy()
    m.drives = [ts.CableDrive(cable=ts.cable_indices(m, [c])[0],
                              u=ts.TableDrive(t_s=[k[0] for k in keys], u_m=[k[1][j] for k in keys]))
                for j, c in enumerate(WINCH_CABLES)]
    sim = mf.simulation
    sim.duration_s, sim.output_interval_s = duration_s, OUTPUT_S
    run = ts.simulate(m, sim)
    return run["com"], run["node_positions"]


def faces(z_caps, radius_m):
    """The sets of end-caps on the ground, in order, each once it has lasted FACE_HOLD_S."""
    hold = int(round(FACE_HOLD_S / OUTPUT_S))
    seq, current, count = [], None, 0
    for z in z_caps:
        s = tuple(int(k) + 1 for k in np.nonzero(z < radius_m + CAP_CLEARANCE_M)[0])
        count = count + 1 if s == current else 1
        current = s
        if count == hold and len(s) >= 3 and (not seq or seq[-1] != s):
            seq.append(s)
    return seq


def main():
    mf = ts.load_model_file(os.path.join(HERE, "..", "three_bar_motorised.yaml"))
    ends = [i for i, n in enumerate(mf.model.nodes) if not n.is_body_point()]
    radius = mf.model.nodes[ends[0]].radius_m
    rng = np.random.default_rng(SEED)
    keys, t0 = [(0.0, [0.0] * 6)], 0.0
    for k in range(PHASES):
        best = None
        for _ in range(CANDIDATES):
            u = list(rng.uniform(-SHORTEN_MAX_M, 0.0, 6) * (rng.uniform(size=6) < SHORTEN_PROB))
            cand = keys + [(t0 + RAMP_S, u), (t0 + PHASE_S, u)]
            com, p = simulate(mf, cand, t0 + PHASE_S + 0.5)
            seq = faces(p[:, ends, 2], radius)
            progress = (com[-1] - com[0])[:2] @ DIRECTION
            score = progress + FACE_BONUS_M * len(seq)
            if best is None or score > best[0]:
                best = (score, cand, progress, seq)
        _, keys, progress, seq = best
        t0 += PHASE_S
        print(f"phase {k + 1}: {progress:.3f} m along the direction, faces {seq}", flush=True)
    out = os.path.join(HERE, "..", "three_bar_motorised_roll.csv")
    head = open(out).read().split("t_s,")[0] if os.path.exists(out) else ""
    rows = ["t_s," + ",".join(f"{c}.u_m" for c in WINCH_CABLES)]
    for t, u in keys:
        rows.append(",".join([f"{t:g}"] + [f"{round(x, 3) + 0.0:.3f}" for x in u]))
    open(out, "w").write(head + "\n".join(rows) + "\n")
    print("wrote", os.path.normpath(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
