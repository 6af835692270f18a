# Tensegrity benchmarks (included by bench/CMakeLists.txt).
#   tensegrity_step       Google Benchmark per-step costs (tendyn, and MuJoCo when found)
#   tensegrity_step_kernel  the RK4 step of the kernel against the pre-issue-19 kernel, same run
#   tensegrity_vs_mujoco  matched-accuracy comparison with MuJoCo 2.2.2 (Debian libmujoco-dev);
#                         built only when MuJoCo is found
#   tensegrity_batch      batched rollouts (step_batch, 1 and 2 threads) vs MuJoCo per-robot throughput
#   tensegrity_real_robot the cost of end-caps, off-axis points, full inertia and winches per step
#   tensegrity_derivatives a step with its exact Jacobians (derivatives.hpp) against a plain step
#   tensegrity_*_mujoco3  the three MuJoCo programs above against MuJoCo 3.x (TENDYN_MUJOCO3_PREFIX, below)
#   mjcf_vs_mujoco3       steps per second of an imported MJCF file, tendyn against MuJoCo 3.x on the same file
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

# The same three MuJoCo programs against MuJoCo 3.x (tensegrity_vs_mujoco3, tensegrity_step_mujoco3,
# tensegrity_batch_mujoco3), and mjcf_vs_mujoco3 (an imported MJCF file against MuJoCo 3 loading the
# same file), when TENDYN_MUJOCO3_PREFIX names an installed MuJoCo 3 (the target tendyn_mujoco3 of
# the top-level CMakeLists.txt). The library is linked by its full path with an rpath to PREFIX/lib;
# the programs refuse to run against another version (bench/mujoco_peer.hpp).
if(TARGET tendyn_mujoco3)
  foreach(_p vs_mujoco batch step)
    set(_t tensegrity_${_p}_mujoco3)
    if(_p STREQUAL "vs_mujoco")
      set(_t tensegrity_vs_mujoco3)
    endif()
    tendyn_add_bench(${_t} tensegrity_${_p}.cpp)
    target_link_libraries(${_t} PRIVATE tendyn_mujoco3)
    set_target_properties(${_t} PROPERTIES BUILD_RPATH "${TENDYN_MUJOCO3_PREFIX}/lib")
  endforeach()
  target_compile_definitions(tensegrity_step_mujoco3 PRIVATE TENDYN_HAVE_MUJOCO=1)
  tendyn_add_bench(mjcf_vs_mujoco3 mjcf_vs_mujoco3.cpp)
  target_link_libraries(mjcf_vs_mujoco3 PRIVATE tendyn_mujoco3)
  set_target_properties(mjcf_vs_mujoco3 PROPERTIES BUILD_RPATH "${TENDYN_MUJOCO3_PREFIX}/lib")
endif()
