# tests/peers: cross-checks against peer programs (MuJoCo). TENDYN_TESTS_peers stays empty (no
# tendyn_peers_tests binary) because the MuJoCo cross-check needs its own link line.
if(TARGET mujoco::mujoco)
  add_executable(tendyn_mujoco_crosscheck_tests peers/mujoco_crosscheck_test.cpp peers/mujoco_export_test.cpp
                 peers/mujoco_identify_test.cpp peers/mujoco_body_geometry_test.cpp peers/mjcf_import_mujoco_test.cpp)
  target_link_libraries(tendyn_mujoco_crosscheck_tests PRIVATE tendyn::tendyn GTest::gtest_main mujoco::mujoco
                        tendyn_warnings)
  target_include_directories(tendyn_mujoco_crosscheck_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(tendyn_mujoco_crosscheck_tests PRIVATE TENDYN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(tendyn_mujoco_crosscheck_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600 LABELS peers)
  # writes the MuJoCo reference trajectories of tests/data/mjcf/ (run by hand; see the source)
  add_executable(mjcf_reference peers/mjcf_reference.cpp)
  target_link_libraries(mjcf_reference PRIVATE mujoco::mujoco tendyn_warnings)
else()
  message(STATUS "tendyn: MuJoCo not found, tests/peers/mujoco_*_test skipped")
endif()
# The same reference program against MuJoCo 3.x (TENDYN_MUJOCO3_PREFIX; a separate binary, never
# both versions in one): writes the *.mujoco3.csv references of tests/data/mjcf/.
if(TARGET tendyn_mujoco3)
  add_executable(mjcf_reference_mujoco3 peers/mjcf_reference.cpp)
  target_link_libraries(mjcf_reference_mujoco3 PRIVATE tendyn_mujoco3 tendyn_warnings)
  set_target_properties(mjcf_reference_mujoco3 PROPERTIES BUILD_RPATH "${TENDYN_MUJOCO3_PREFIX}/lib")
endif()
