# Benchmarks of the cdpr module (tension distribution). Results: docs/parts/benchmarks-cdpr.md.
tendyn_add_bench(tendyn_bench_cdpr cdpr_tension_bench.cpp)
