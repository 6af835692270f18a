# Benchmark of the CDPR dynamics and controller (issue 6). Results: docs/CDPR_DYNAMICS.md.
tendyn_add_bench(tendyn_bench_cdpr_dynamics cdpr_dynamics.cpp)
