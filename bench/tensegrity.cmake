# Tensegrity benchmarks (included by bench/CMakeLists.txt).
#   tensegrity_step       Google Benchmark per-step costs (tendyn, and MuJoCo when found)
#   tensegrity_step_kernel  the RK4 step of the kernel against the pre-issue-19 kernel, same run
#   tensegrity_vs_mujoco  matched-accuracy comparison with MuJoCo 2.2.2 (Debian libmujoco-dev);
#                         built only when MuJoCo is found
#   tensegrity_batch      batched rollouts (step_batch, 1 and 2 threads) vs MuJoCo per-robot throughput
#   tensegrity_real_robot the cost of end-caps, off-axis points, full inertia and winches per step
#   tensegrity_derivatives a step with its exact Jacobians (derivatives.hpp) against a plain step
#   tensegrity_*_mujoco3  the three MuJoCo programs above against MuJoCo 3.x (TENDYN_MUJOCO3_PREFIX, below)
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
# tensegrity_batch_mujoco3), when TENDYN_MUJOCO3_PREFIX names an installed MuJoCo 3 (built by
# `scripts/install-deps.sh mujoco3 [PREFIX]` from ../shared/peers/mujoco). Separate programs: the
# 2.2.2 and 3.x libraries export the same symbol names and are never linked into one binary. The
# library is linked by its full path with an rpath to PREFIX/lib; the programs refuse to run
# against another version (bench/mujoco_peer.hpp).
set(TENDYN_MUJOCO3_PREFIX "" CACHE PATH "Install prefix of MuJoCo 3.x for the tensegrity_*_mujoco3 benchmarks (empty: not built)")
if(TENDYN_MUJOCO3_PREFIX)
  set(_mj3_lib "${TENDYN_MUJOCO3_PREFIX}/lib/libmujoco.so")
  set(_mj3_h "${TENDYN_MUJOCO3_PREFIX}/include/mujoco/mujoco.h")
  if(NOT EXISTS "${_mj3_lib}" OR NOT EXISTS "${_mj3_h}")
    message(FATAL_ERROR "TENDYN_MUJOCO3_PREFIX=${TENDYN_MUJOCO3_PREFIX}: no MuJoCo there (expected ${_mj3_lib} and "
                        "${_mj3_h}); build it with scripts/install-deps.sh mujoco3 ${TENDYN_MUJOCO3_PREFIX}")
  endif()
  file(STRINGS "${_mj3_h}" _mj3_v REGEX "^#define mjVERSION_HEADER [0-9]+")
  string(REGEX MATCH "[0-9]+$" _mj3_v "${_mj3_v}")
  if(NOT _mj3_v OR _mj3_v LESS 3000000)
    message(FATAL_ERROR "TENDYN_MUJOCO3_PREFIX=${TENDYN_MUJOCO3_PREFIX}: ${_mj3_h} is MuJoCo '${_mj3_v}', not 3.x")
  endif()
  add_library(tendyn_mujoco3 SHARED IMPORTED)
  set_target_properties(tendyn_mujoco3 PROPERTIES IMPORTED_LOCATION "${_mj3_lib}"
                        INTERFACE_INCLUDE_DIRECTORIES "${TENDYN_MUJOCO3_PREFIX}/include")
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
  message(STATUS "tendyn: MuJoCo 3 benchmarks against ${TENDYN_MUJOCO3_PREFIX} (mjVERSION_HEADER ${_mj3_v})")
endif()
