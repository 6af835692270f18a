# Tree-robot subcommands (tendyn tree ...).
list(APPEND TENDYN_CLI_SOURCES cmd_tree.cpp)
# Linear identification (tendyn identify on tree models; shared file with cdpr.cmake).
if(NOT "cmd_identify_linear.cpp" IN_LIST TENDYN_CLI_SOURCES)
  list(APPEND TENDYN_CLI_SOURCES cmd_identify_linear.cpp)
endif()
