# Lagrange formulation benchmarks (included by bench/CMakeLists.txt).
#   tensegrity_lagrange   steps/s of the Lagrange quaternion DAE (lagrange.hpp) vs the Newton-Euler
#                         engine (step_rk4) on the document's 3-bar robot, same step
tendyn_add_bench(tensegrity_lagrange tensegrity_lagrange.cpp)
