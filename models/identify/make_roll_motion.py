#!/usr/bin/env python3
r"""A synthetic record of the rolling motorised 3-bar for `tendyn identify` (docs/IDENTIFY.md,
"Ground friction and end-cap contact from a rolling record").

  sed 's/friction: 0.92/friction: 0.6/' models/three_bar_motorised_roll.yaml > out/roll_truth.yaml
  tendyn simulate out/roll_truth.yaml --duration 1.2 --dt 0.0001 --output-interval 0.01 -q -o out/roll-truth
  python3 models/identify/make_roll_motion.py out/roll-truth/results.csv out/roll_motion.csv
  tendyn identify models/three_bar_motorised_roll.yaml --data out/roll_motion.csv --fit friction \
      --dt 0.0001 --sigma 0.001 --encoder-sigma 2e-5 -o out/roll-fit

Takes every row of a `tendyn simulate` run (the output interval is the record's rate) and writes the
motion CSV `tendyn identify --data` reads: markers on the end-caps n1..n6 (`<node>_x_m`, ... with
Gaussian noise of SIGMA_M on every coordinate), the target each winch received (`<cable>_target_m`
from the run's `<cable>.target_m`, exact: the commands are known) and its encoder
(`<cable>_encoder_m` from `<cable>.rest_length_m`, noise ENCODER_SIGMA_M), with a fixed seed.
"""
import csv
import random
import sys

MARKERS = ["n1", "n2", "n3", "n4", "n5", "n6"]
SIGMA_M, ENCODER_SIGMA_M, SEED = 1e-3, 2e-5, 3


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{src}: no rows")
    winches = [k[: -len(".target_m")] for k in rows[0] if k.endswith(".target_m")]
    missing = [n for n in MARKERS if f"{n}.x_m" not in rows[0]]
    if missing:
        sys.exit(f"{src}: no columns for the nodes {', '.join(missing)}")
    rng = random.Random(SEED)
    header = ["t_s"] + [f"{n}_{c}_m" for n in MARKERS for c in "xyz"]
    header += [f"{w}_target_m" for w in winches] + [f"{w}_encoder_m" for w in winches]
    out = [",".join(header)]
    for r in rows:
        cells = [r["t_s"]]
        cells += ["%.6f" % (float(r[f"{n}.{c}_m"]) + rng.gauss(0.0, SIGMA_M)) for n in MARKERS for c in "xyz"]
        cells += ["%.9f" % float(r[f"{w}.target_m"]) for w in winches]
        cells += ["%.8f" % (float(r[f"{w}.rest_length_m"]) + rng.gauss(0.0, ENCODER_SIGMA_M)) for w in winches]
        out.append(",".join(cells))
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
