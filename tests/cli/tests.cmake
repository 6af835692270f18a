# End-to-end tests of the tendyn program (paths relative to tests/).
list(APPEND TENDYN_TESTS_cli
  cli/cli_test.cpp
  cli/consistency_test.cpp
  cli/viewer_cli_test.cpp
  cli/limits_cli_test.cpp
  cli/outputs_cli_test.cpp
  cli/inputs_cli_test.cpp
  cli/import_cli_test.cpp
  cli/identify_linear_cli_test.cpp
  cli/identify_cli_test.cpp
  cli/identify_general_cli_test.cpp
  cli/live_cli_test.cpp
  cli/newcomer_cli_test.cpp
  cli/render_cli_test.cpp
  cli/modules_cli_test.cpp
  cli/real_robot_cli_test.cpp
)
