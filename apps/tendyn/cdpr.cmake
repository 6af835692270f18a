# CDPR subcommands (tendyn tension ...).
list(APPEND TENDYN_CLI_SOURCES cmd_tension.cpp)
