#!/usr/bin/env python3
"""Synthetic motion-capture data for the identification example (docs/IDENTIFY.md).

  tendyn simulate models/identify/three_bar_truth.yaml -o out/truth --duration 4
  python3 models/identify/make_motion.py out/truth/results.csv models/identify/three_bar_motion.csv

Takes the node positions of a `tendyn simulate` run written every 1 ms (the model's output
interval), keeps the samples nearest to 30 Hz (step round(k * 1000 / 30)), adds Gaussian noise of
1 mm to every coordinate and drops 10 % of the markers (all three coordinates, empty cells), with a
fixed seed, and writes the motion CSV `tendyn identify --data` reads: t_s,<node>_x_m,... .
"""
import csv
import random
import sys

RATE_HZ, SIGMA_M, MISSING, SEED = 30.0, 1e-3, 0.10, 7


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    nodes = [k[: -len(".x_m")] for k in rows[0] if k.endswith(".x_m") and not k.startswith("rod")]
    rng = random.Random(SEED)
    out = ["t_s," + ",".join(f"{n}_{c}_m" for n in nodes for c in "xyz")]
    k = 0
    while True:
        i = round(k * 1000.0 / RATE_HZ)
        if i >= len(rows):
            break
        r = rows[i]
        cells = [r["t_s"]]
        for n in nodes:
            missing = rng.random() < MISSING
            for c in "xyz":
                noise = rng.gauss(0.0, SIGMA_M)
                cells.append("" if missing else "%.6f" % (float(r[f"{n}.{c}_m"]) + noise))
        out.append(",".join(cells))
        k += 1
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
