# Planning throughput (issue 4).
tendyn_add_bench(tendyn_bench_planning tensegrity_planning.cpp)
