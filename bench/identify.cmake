# Parameter identification of the 3-bar robot (issue 16): a plain timing program.
tendyn_add_bench(bench_identify identify.cpp)
