# Test sources of the core module (paths relative to tests/).
list(APPEND TENDYN_TESTS_core
  core/integrate_test.cpp
  core/parallel_test.cpp
  core/differentiate_test.cpp
  core/enum_names_test.cpp
  core/format_test.cpp
  core/worker_pool_test.cpp
)
