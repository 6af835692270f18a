#!/usr/bin/env python3
"""Does a tensegrity run keep its shape? Reads a `tendyn simulate` results.csv and prints:
  * slack: the tension-only cables that were slack at some output sample (and when first);
  * rod crossing: the smallest distance between two rod axes (segments) over the run; rods cross
    (interpenetrate) when it is below two rod radii (--rod-radius);
  * drift: the largest distance of a node from its first-sample position [mm] (no alignment), and
    the largest horizontal distance of the centroid of the rod centres (the point the planner
    steers) from its first-sample position [mm];
  * shape deviation: at each sample the nodes are rigidly aligned to the first sample (Kabsch,
    proper rotation + translation) and the node distances after alignment are taken; printed are
    the largest rms over nodes and the largest single node distance over the run [mm].
Usage: scripts/shape_keeping.py RESULTS.csv --rods 1-5,2-6,... --rod-radius 0.005 [--until T]
(--rods: node numbers of each rod's two ends, as in the model's n<i> ids). Needs NumPy.
"""
import argparse
import csv
import math

import numpy as np


def segment_distance(p1, q1, p2, q2):
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f, c, b = d1 @ d1, d2 @ d2, d2 @ r, d1 @ r, d1 @ d2
    den = a * e - b * b
    s = float(np.clip((b * f - c * e) / den, 0, 1)) if den > 1e-14 else 0.0
    t = (b * s + f) / e
    if t < 0:
        t, s = 0.0, float(np.clip(-c / a, 0, 1))
    elif t > 1:
        t, s = 1.0, float(np.clip((b - c) / a, 0, 1))
    return float(np.linalg.norm(p1 + d1 * s - (p2 + d2 * t)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--rods", required=True)
    ap.add_argument("--rod-radius", type=float, required=True)
    ap.add_argument("--until", type=float, default=math.inf)
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.results)) if float(r["t_s"]) <= a.until + 1e-12]
    if not rows:
        raise SystemExit(f"{a.results}: no samples")
    rods = [tuple(int(x) for x in p.split("-")) for p in a.rods.split(",")]
    nodes = sorted({int(k.split(".")[0][1:]) for k in rows[0] if k.startswith("n") and k.endswith(".x_m")})
    idx = {n: k for k, n in enumerate(nodes)}

    def pos(r):
        return np.array([[float(r[f"n{i}.{c}_m"]) for c in "xyz"] for i in nodes])

    p0 = pos(rows[0])
    c0 = p0.mean(0)
    worst_rms = worst_node = drift = centroid_drift = 0.0
    nrod = len([k for k in rows[0] if k.startswith("rod") and k.endswith(".x_m")])

    def centroid(r):
        return np.array([sum(float(r[f"rod{j}.{c}_m"]) for j in range(1, nrod + 1)) / nrod for c in "xy"])

    cen0 = centroid(rows[0])
    t_rms = 0.0
    gap, t_gap = math.inf, 0.0
    for r in rows:
        x = pos(r)
        drift = max(drift, float(np.linalg.norm(x - p0, axis=1).max()))
        centroid_drift = max(centroid_drift, float(np.linalg.norm(centroid(r) - cen0)))
        c = x.mean(0)
        u, _, vt = np.linalg.svd((x - c).T @ (p0 - c0))
        d = np.diag([1.0, 1.0, np.sign(np.linalg.det(vt.T @ u.T))])
        y = ((vt.T @ d @ u.T) @ (x - c).T).T
        dev = np.linalg.norm(y - (p0 - c0), axis=1)
        rms = math.sqrt(float((dev ** 2).mean()))
        if rms > worst_rms:
            worst_rms, t_rms = rms, float(r["t_s"])
        worst_node = max(worst_node, float(dev.max()))
        for i in range(len(rods)):
            for j in range(i + 1, len(rods)):
                g = segment_distance(x[idx[rods[i][0]]], x[idx[rods[i][1]]], x[idx[rods[j][0]]], x[idx[rods[j][1]]])
                if g < gap:
                    gap, t_gap = g, float(r["t_s"])
    first = {}
    for k in rows[0]:
        if k.endswith(".slack"):
            for r in rows:
                if r[k] not in ("0", ""):
                    first[k[:-6]] = float(r["t_s"])
                    break
    print(f"samples {len(rows)} up to t = {rows[-1]['t_s']} s")
    print("slack: " + (", ".join(f"{c} first at {t:g} s" for c, t in first.items()) if first else "none"))
    print(f"min rod-axis distance {gap * 1000:.1f} mm at t = {t_gap:g} s ({'CROSSING' if gap < 2 * a.rod_radius else 'no crossing'}: "
          f"threshold {2 * a.rod_radius * 1000:.0f} mm)")
    print(f"drift: max node displacement {drift * 1000:.4f} mm, max centroid displacement {centroid_drift * 1000:.4f} mm")
    print(f"shape deviation after rigid alignment: rms max {worst_rms * 1000:.2f} mm (t = {t_rms:g} s), node max {worst_node * 1000:.2f} mm")


if __name__ == "__main__":
    main()
