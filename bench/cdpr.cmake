# Benchmarks of the cdpr module (tension distribution). Results: docs/BENCHMARKS.md.
tendyn_add_bench(tendyn_bench_cdpr cdpr_tension_bench.cpp)
tendyn_add_bench(tendyn_bench_cdpr_workspace cdpr_workspace.cpp)
