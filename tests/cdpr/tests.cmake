# Test sources of the cdpr module (paths relative to tests/).
list(APPEND TENDYN_TESTS_cdpr
  cdpr/dense_kernels_test.cpp
  cdpr/nnls_test.cpp
  cdpr/tension_test.cpp
  cdpr/tension_problem_test.cpp
  cdpr/exact_test.cpp
  cdpr/exhaustive_test.cpp
  cdpr/closed_form_test.cpp
  cdpr/geometry_test.cpp
  cdpr/model_io_test.cpp
  cdpr/cli_test.cpp
  cdpr/no_alloc_test.cpp
)
list(APPEND TENDYN_TESTS_cdpr cdpr/dynamics_test.cpp)
list(APPEND TENDYN_TESTS_cdpr cdpr/control_test.cpp)
list(APPEND TENDYN_TESTS_cdpr cdpr/experiment_test.cpp)
list(APPEND TENDYN_TESTS_cdpr cdpr/identify_test.cpp)
list(APPEND TENDYN_TESTS_cdpr cdpr/workspace_test.cpp cdpr/workspace_published_test.cpp)
list(APPEND TENDYN_TESTS_cdpr cdpr/interference_test.cpp cdpr/tension_continuity_test.cpp cdpr/design_test.cpp)
