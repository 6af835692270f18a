#!/usr/bin/env python3
"""Times scipy.optimize.nnls and Octave's lsqnonneg on the same random problems as
bench/cdpr_tension_bench.cpp (tendyn::cdpr::random_problem, feasible mode, seeds 1000..1063).

Usage: python3 bench/cdpr_compare.py [--reps 200] [--no-octave]
Prints mean time per solve [us] for each size and tool. The generator below reproduces
src/cdpr/study.cpp bit for bit (SplitMix64, (x >> 11) * 2^-53)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import nnls

MASK = (1 << 64) - 1


def splitmix(seed):
    s = (seed * 0x2545F4914F6CDD1D + 12345) & MASK
    while True:
        s = (s + 0x9E3779B97F4A7C15) & MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z = z ^ (z >> 31)
        yield (z >> 11) * 2.0 ** -53


def random_problem(m, n, seed):
    g = splitmix(seed)
    J = np.empty((m, n))
    for j in range(n):
        for i in range(m):
            J[i, j] = 2.0 * next(g) - 1.0
    f0 = np.array([next(g) for _ in range(n)])
    return J, J @ f0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200, help="passes over the 64 problems (scipy)")
    ap.add_argument("--no-octave", action="store_true")
    a = ap.parse_args()
    sizes = [(3, 4), (6, 8), (6, 12)]
    here = os.path.dirname(os.path.abspath(__file__))
    print(f"{'size':6} {'tool':24} {'mean us/solve':>14}")
    for m, n in sizes:
        probs = [random_problem(m, n, 1000 + k) for k in range(64)]
        for J, w in probs[:4]:
            nnls(J, w)
        t0 = time.perf_counter()
        for _ in range(a.reps):
            for J, w in probs:
                nnls(J, w)
        t = (time.perf_counter() - t0) / (a.reps * len(probs)) * 1e6
        print(f"{m}x{n:<4} {'scipy.optimize.nnls':24} {t:14.2f}", flush=True)
        if a.no_octave:
            continue
        with tempfile.TemporaryDirectory() as d:
            pf = os.path.join(d, "p.txt")
            with open(pf, "w") as f:
                f.write(f"{len(probs)}\n")
                for J, w in probs:
                    f.write(f"{m} {n}\n" + " ".join(repr(v) for v in J.T.ravel()) + "\n")
                    f.write(" ".join(repr(v) for v in w) + "\n")
            out = subprocess.run(
                ["octave", "--no-gui", "--quiet", "--norc", "--eval",
                 f"infile='{pf}'; reps=20; source('{here}/cdpr_compare.m');"],
                capture_output=True, text=True, check=True)
            print(f"{m}x{n:<4} {'octave lsqnonneg':24} {float(out.stdout.strip().split()[-1]):14.2f}",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
