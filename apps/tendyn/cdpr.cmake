# CDPR subcommands (tendyn tension ...).
list(APPEND TENDYN_CLI_SOURCES cmd_tension.cpp)
list(APPEND TENDYN_CLI_SOURCES cmd_cdpr_experiment.cpp)
