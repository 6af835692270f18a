# Tensegrity benchmarks (included by bench/CMakeLists.txt).
#   tensegrity_step       Google Benchmark per-step costs (tendyn, and MuJoCo when found)
#   tensegrity_step_kernel  the RK4 step of the kernel against the pre-issue-19 kernel, same run
#   tensegrity_vs_mujoco  matched-accuracy comparison with MuJoCo 2.2.2 (Debian libmujoco-dev);
#                         built only when MuJoCo is found
#   tensegrity_batch      batched rollouts (step_batch, 1 and 2 threads) vs MuJoCo per-robot throughput
#   tensegrity_real_robot the cost of end-caps, off-axis points, full inertia and winches per step
#   tensegrity_derivatives a step with its exact Jacobians (derivatives.hpp) against a plain step
tendyn_add_bench(tensegrity_step tensegrity_step.cpp)
tendyn_add_bench(tensegrity_step_kernel tensegrity_step_kernel.cpp)
tendyn_add_bench(tensegrity_real_robot tensegrity_real_robot.cpp)
tendyn_add_bench(tensegrity_derivatives tensegrity_derivatives.cpp)
if(TARGET mujoco::mujoco)
  tendyn_add_bench(tensegrity_vs_mujoco tensegrity_vs_mujoco.cpp)
  target_link_libraries(tensegrity_vs_mujoco PRIVATE mujoco::mujoco)
  tendyn_add_bench(tensegrity_batch tensegrity_batch.cpp)
  target_link_libraries(tensegrity_batch PRIVATE mujoco::mujoco)
  target_link_libraries(tensegrity_step PRIVATE mujoco::mujoco)
  target_compile_definitions(tensegrity_step PRIVATE TENDYN_HAVE_MUJOCO=1)
else()
  message(STATUS "tendyn: MuJoCo not found, bench/tensegrity_vs_mujoco skipped")
endif()
