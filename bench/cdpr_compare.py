#!/usr/bin/env python3
"""Lawson-Hanson NNLS: tendyn against scipy and Octave on the same random problems as
bench/cdpr_tension_bench.cpp (tendyn::cdpr::random_problem, feasible mode, seeds 1000..1063).

Three comparisons, each like for like (docs/BENCHMARKS.md, "Cable tension distribution"):
  1. compiled vs compiled: tendyn's C++ solve_tensions (Google Benchmark program, --bench) against
     scipy's compiled kernel, the Fortran NNLS behind scipy.optimize.nnls (scipy <= 1.11), called
     from a C loop (bench/cdpr_scipy_kernel.c, built here with `cc -O2`) through the function
     pointer f2py exposes (scipy.optimize.__nnls.nnls._cpointer): no Python between calls. Both
     copy J and w once per solve (scipy's kernel overwrites them; tendyn scales a copy).
  2. Python vs Python: tendyn.cdpr.solve_tensions(Method.kLawsonHanson, J, w) against
     scipy.optimize.nnls(J, w), both called in the same tight Python loop; the loop and call
     overhead is measured with a no-op Python function of the same arguments and reported (and
     subtracted in a second column).
  3. Octave 7's lsqnonneg: an interpreted .m file (bench/cdpr_compare.m), for reference only.
Rounds alternate the tools (--rounds, default 5) so that they share the machine's load; the
tables give medians over rounds and the median of the per-round ratios.

Usage: python3 bench/cdpr_compare.py [--bench build/bench/tendyn_bench_cdpr] [--rounds 5]
                                     [--min-time 0.3] [--no-octave] [--no-python]
The generator below reproduces src/cdpr/study.cpp bit for bit (SplitMix64, (x >> 11) * 2^-53)."""
import argparse
import ctypes
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
from scipy.optimize import nnls

MASK = (1 << 64) - 1
SIZES = [(3, 4), (6, 8), (6, 12)]
HERE = os.path.dirname(os.path.abspath(__file__))


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


class ScipyKernel:
    """scipy's compiled NNLS kernel timed from C (see the module docstring)."""

    def __init__(self, workdir):
        try:
            # (importlib: a `from ... import __nnls` inside a class would be name-mangled)
            f2py_mod = importlib.import_module("scipy.optimize.__nnls")  # scipy <= 1.11
        except ImportError as e:  # scipy >= 1.12 replaced the Fortran code
            raise SystemExit(f"scipy {scipy.__version__} has no Fortran NNLS kernel: {e}")
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        self.fn = get(f2py_mod.nnls._cpointer, None)
        so = os.path.join(workdir, "cdpr_scipy_kernel.so")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", so,
                        os.path.join(HERE, "cdpr_scipy_kernel.c")], check=True)
        self.lib = ctypes.CDLL(so)
        self.lib.cdpr_time_scipy_nnls.restype = ctypes.c_double
        P = ctypes.POINTER
        self.lib.cdpr_time_scipy_nnls.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, P(ctypes.c_double),
            P(ctypes.c_double), ctypes.c_long, P(ctypes.c_double), P(ctypes.c_int),
            P(ctypes.c_double), P(ctypes.c_int), ctypes.c_int]
        self.cpu_time = False

    def time(self, probs, passes):
        """Mean ns per solve over `passes` passes, and the solutions of the last pass."""
        m, n = probs[0][0].shape
        A = np.concatenate([np.asfortranarray(J).ravel(order="F") for J, _ in probs])
        b = np.concatenate([w for _, w in probs])
        x = np.zeros(len(probs) * n)
        modes = np.zeros(len(probs), dtype=np.intc)
        scratch = np.zeros(m * n + 2 * m + n)
        iscratch = np.zeros(n, dtype=np.intc)
        d = ctypes.POINTER(ctypes.c_double)
        i = ctypes.POINTER(ctypes.c_int)
        ns = self.lib.cdpr_time_scipy_nnls(
            self.fn, m, n, len(probs), A.ctypes.data_as(d), b.ctypes.data_as(d), passes,
            x.ctypes.data_as(d), modes.ctypes.data_as(i), scratch.ctypes.data_as(d),
            iscratch.ctypes.data_as(i), 1 if self.cpu_time else 0)
        if not np.all(modes == 1):
            raise SystemExit(f"scipy kernel returned modes {sorted(set(modes.tolist()))} (1 = ok)")
        return ns / (passes * len(probs)), x.reshape(len(probs), n)


def cxx_times(bench, min_time, cpu_time=False):
    """ns per solve of BM_LawsonHanson for each size, from the Google Benchmark program (wall
    time, or the process CPU time with cpu_time)."""
    out = subprocess.run([bench, "--benchmark_filter=BM_LawsonHanson/",
                          f"--benchmark_min_time={min_time}", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        unit = {"ns": 1.0, "us": 1e3, "ms": 1e6}[b["time_unit"]]
        res[b["label"]] = b["cpu_time" if cpu_time else "real_time"] * unit
    return res


def python_loop(fn, probs, passes):
    t0 = time.perf_counter()
    for _ in range(passes):
        for J, w in probs:
            fn(J, w)
    return (time.perf_counter() - t0) / (passes * len(probs)) * 1e9


def noop(J, w):
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(HERE, "..", "build", "bench", "tendyn_bench_cdpr"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.3, help="seconds per measurement")
    ap.add_argument("--no-octave", action="store_true")
    ap.add_argument("--no-python", action="store_true", help="skip the Python-vs-Python rows")
    ap.add_argument("--cpu-time", action="store_true",
                    help="compiled rows: CPU time of the timing thread/process instead of wall time "
                         "(steadier on a loaded machine; the Python rows stay wall time)")
    a = ap.parse_args()
    probs = {(m, n): [random_problem(m, n, 1000 + k) for k in range(64)] for m, n in SIZES}
    tendyn = None
    if not a.no_python:
        import tendyn as tendyn_mod
        tendyn = tendyn_mod
    rows = {}  # (tool, size) -> list of ns per round

    def add(tool, size, ns):
        rows.setdefault((tool, size), []).append(ns)

    with tempfile.TemporaryDirectory() as work:
        kern = ScipyKernel(work)
        kern.cpu_time = a.cpu_time
        # The kernel is scipy's: its answers equal scipy.optimize.nnls's bit for bit.
        for size, ps in probs.items():
            _, x = kern.time(ps, 1)
            for k, (J, w) in enumerate(ps):
                if not np.array_equal(x[k], nnls(J, w)[0]):
                    raise SystemExit(f"kernel and scipy.optimize.nnls differ at {size} problem {k}")
        for r in range(a.rounds):
            if os.path.exists(a.bench):
                for label, ns in cxx_times(a.bench, a.min_time, a.cpu_time).items():
                    add("tendyn C++ (compiled)", label, ns)
            for (m, n), ps in probs.items():
                size = f"{m}x{n}"
                t1, _ = kern.time(ps, 10)
                passes = max(10, int(a.min_time * 1e9 / (t1 * len(ps))))
                add("scipy Fortran kernel (compiled)", size, kern.time(ps, passes)[0])
                if tendyn is not None:
                    meth = tendyn.cdpr.Method.kLawsonHanson
                    py_passes = max(5, int(a.min_time * 1e9 / (10000 * len(ps))))
                    add("python loop, no-op call", size, python_loop(noop, ps, py_passes))
                    add("tendyn from Python", size,
                        python_loop(lambda J, w: tendyn.cdpr.solve_tensions(meth, J, w), ps, py_passes))
                    add("scipy.optimize.nnls from Python", size, python_loop(nnls, ps, py_passes))
            print(f"round {r + 1}/{a.rounds} done", file=sys.stderr, flush=True)

    sizes = [f"{m}x{n}" for m, n in SIZES]
    med = {k: statistics.median(v) for k, v in rows.items()}
    clock = "CPU time" if a.cpu_time else "wall time"
    print(f"scipy {scipy.__version__}, numpy {np.__version__}, {a.rounds} rounds, medians [us/solve], "
          f"compiled rows: {clock}")
    print(f"{'tool':34}" + "".join(f"{s:>10}" for s in sizes))
    for tool in ["tendyn C++ (compiled)", "scipy Fortran kernel (compiled)", "tendyn from Python",
                 "scipy.optimize.nnls from Python", "python loop, no-op call"]:
        if (tool, sizes[0]) in med:
            print(f"{tool:34}" + "".join(f"{med[(tool, s)] / 1e3:10.3f}" for s in sizes))

    def ratio(num, den):
        if (num, sizes[0]) not in rows or (den, sizes[0]) not in rows:
            return
        vals = []
        for s in sizes:
            per_round = [d / n for n, d in zip(rows[(num, s)], rows[(den, s)])]
            vals.append(statistics.median(per_round))
        print(f"{'time(' + den + ') / time(' + num + ')':80}" + "".join(f"{v:8.2f}" for v in vals))

    print("per round [us/solve]:")
    for (tool, size), v in sorted(rows.items()):
        print(f"  {tool:34} {size:5} " + " ".join(f"{x / 1e3:8.3f}" for x in v))
    print("ratios (median over rounds of the per-round ratio; > 1: the first tool is faster)")
    ratio("tendyn C++ (compiled)", "scipy Fortran kernel (compiled)")
    ratio("tendyn from Python", "scipy.optimize.nnls from Python")
    if ("python loop, no-op call", sizes[0]) in med:
        print("Python call overhead subtracted (median time minus the no-op loop's) [us/solve]:")
        for tool in ["tendyn from Python", "scipy.optimize.nnls from Python"]:
            print(f"{tool:34}" + "".join(
                f"{(med[(tool, s)] - med[('python loop, no-op call', s)]) / 1e3:10.3f}" for s in sizes))

    if a.no_octave:
        return 0
    print("Octave lsqnonneg (interpreted .m file; not a like-for-like peer) [us/solve]:")
    for (m, n), ps in probs.items():
        with tempfile.TemporaryDirectory() as d:
            pf = os.path.join(d, "p.txt")
            with open(pf, "w") as f:
                f.write(f"{len(ps)}\n")
                for J, w in ps:
                    f.write(f"{m} {n}\n" + " ".join(repr(v) for v in J.T.ravel()) + "\n")
                    f.write(" ".join(repr(v) for v in w) + "\n")
            out = subprocess.run(
                ["octave", "--no-gui", "--quiet", "--norc", "--eval",
                 f"infile='{pf}'; reps=20; source('{HERE}/cdpr_compare.m');"],
                capture_output=True, text=True, check=True)
            print(f"{m}x{n:<4} {'octave lsqnonneg (interpreted)':34} "
                  f"{float(out.stdout.strip().split()[-1]):10.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
