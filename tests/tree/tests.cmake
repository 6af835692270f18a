# Test sources of the tree module (paths relative to tests/).
list(APPEND TENDYN_TESTS_tree
  tree/model_test.cpp
  tree/dynamics_test.cpp
  tree/cli_test.cpp
  tree/alloc_test.cpp
  tree/simulate_test.cpp
  tree/identify_test.cpp
)

# Cross-check against DART (optional, heavy to compile): its own binary, skipped when DART is missing.
find_package(DART 6 QUIET CONFIG COMPONENTS dart)
add_executable(tendyn_tree_dart_tests tree/dart_crosscheck_test.cpp)
target_link_libraries(tendyn_tree_dart_tests PRIVATE tendyn::tendyn GTest::gtest_main tendyn_warnings yaml-cpp)
target_include_directories(tendyn_tree_dart_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(tendyn_tree_dart_tests PRIVATE TENDYN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Not in the x86-64-v3 build: Debian's DART is compiled without AVX, and its headers' Eigen code
# meets ours built with it (the test crashed there; CMakeLists.txt, TENDYN_MARCH_X86_64_V3).
if(DART_FOUND AND TENDYN_MARCH_X86_64_V3)
  message(STATUS "tendyn: TENDYN_MARCH_X86_64_V3 is on, the DART cross-check is skipped (DART is built without AVX)")
  target_compile_definitions(tendyn_tree_dart_tests PRIVATE TENDYN_DART_SKIPPED_FOR_MARCH=1)
elseif(DART_FOUND)
  target_link_libraries(tendyn_tree_dart_tests PRIVATE ${DART_LIBRARIES})
  target_include_directories(tendyn_tree_dart_tests SYSTEM PRIVATE ${DART_INCLUDE_DIRS})
  target_compile_definitions(tendyn_tree_dart_tests PRIVATE TENDYN_HAVE_DART=1)
else()
  message(STATUS "tendyn: DART not found, tree cross-check test will be skipped")
endif()
gtest_discover_tests(tendyn_tree_dart_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS peers)
