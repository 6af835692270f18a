# Tree-robot subcommands (tendyn tree ...).
list(APPEND TENDYN_CLI_SOURCES cmd_tree.cpp)
