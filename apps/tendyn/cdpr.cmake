# CDPR subcommands (tendyn tension ...).
list(APPEND TENDYN_CLI_SOURCES cmd_tension.cpp cmd_interference.cpp)
list(APPEND TENDYN_CLI_SOURCES cmd_cdpr_experiment.cpp)
# Linear identification (tendyn identify on CDPR models; shared file with tree.cmake).
if(NOT "cmd_identify_linear.cpp" IN_LIST TENDYN_CLI_SOURCES)
  list(APPEND TENDYN_CLI_SOURCES cmd_identify_linear.cpp)
endif()
list(APPEND TENDYN_CLI_SOURCES cmd_cdpr_workspace.cpp cmd_cdpr_design.cpp cdpr_wrench_set.cpp)
