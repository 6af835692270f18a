#!/usr/bin/env python3
"""A 1,000-point psi x stiffness sweep of document 000's 3-prism (40 tilt angles x 25 stiffnesses).

Each point simulates the prism (relative-velocity damping, zero gravity) and records whether it
stays in the normal mode (no slack cable, no over-strain). Results are appended per point to a
JSON-lines file, so an interrupted run (Ctrl-C, kill) continues where it stopped when started again.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/psi_stiffness_sweep.py --workers 2
    ... --scheduler tcp://host:8786          # the same sweep on a Dask cluster
    ... --points 20 --duration 0.5           # a quick check (CI)
    ... --bench                              # time 1 worker against --workers, fresh, no file
"""
import argparse
import os
import time

import tendyn

SPEC = {
    "model": "prism",
    "prism": {"rod_mass_kg": 1.0, "rod_length_m": 0.3, "rest_length_m": 0.2, "damping_Nspm": 5.0,
              "damping_law": "relative_velocity"},
    "simulation": {"duration_s": 15.0, "dt_s": 1e-3, "strain_limit": 1.0},  # as `tendyn sweep`
}
GRID = {
    "psi_deg": [20.0 + 1.5 * i for i in range(40)],      # 20 .. 78.5 deg
    "stiffness_Npm": [5.0 + 0.5 * j for j in range(25)],  # 5 .. 17 N/m
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="out/psi_stiffness_sweep.jsonl", help="results file (JSON lines, resumable)")
    ap.add_argument("--duration", type=float, default=SPEC["simulation"]["duration_s"], help="simulated time per point [s]")
    ap.add_argument("--points", type=int, default=0, help="run only the first N points (0 = all 1,000)")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler address (default: local threads)")
    ap.add_argument("--bench", action="store_true", help="time 1 worker against --workers (no results file)")
    a = ap.parse_args()

    spec = dict(SPEC, simulation=dict(SPEC["simulation"], duration_s=a.duration))
    points = tendyn.grid_points(GRID)
    if a.points > 0:
        points = points[:a.points]

    if a.bench:
        times = {}
        results = {}
        for w in sorted({1, a.workers}):
            t0 = time.perf_counter()
            results[w] = tendyn.sweep(spec, points, workers=w)
            times[w] = time.perf_counter() - t0
            print(f"{len(points)} points, {w} worker(s): {times[w]:.2f} s")
        print(f"speed-up {times[1] / times[a.workers]:.2f}x; identical results: {results[1] == results[a.workers]}")
        return

    client = None
    if a.scheduler:
        from distributed import Client
        client = Client(a.scheduler)
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    t0 = time.perf_counter()
    res = tendyn.sweep(spec, points, workers=a.workers, out=a.out, client=client)
    wall = time.perf_counter() - t0
    normal = sum(r["normal_mode"] for r in res)
    print(f"{len(res)} points ({normal} in the normal mode) in {wall:.1f} s -> {a.out}")
    # normal-mode psi range per stiffness (longest run of normal angles)
    by_k = {}
    for p, r in zip(points, res):
        by_k.setdefault(p["stiffness_Npm"], []).append((p["psi_deg"], r["normal_mode"]))
    for k, rows in sorted(by_k.items()):
        best, run = (), []
        for psi, ok in rows + [(None, False)]:
            if ok:
                run.append(psi)
            else:
                if len(run) > len(best):
                    best = tuple(run)
                run = []
        rng = f"[{best[0]:.1f}, {best[-1]:.1f}] deg" if best else "none"
        print(f"  stiffness {k:5.1f} N/m: normal-mode psi range {rng}")


if __name__ == "__main__":
    main()
