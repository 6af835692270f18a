# Test sources of the core module (paths relative to tests/).
list(APPEND TENDYN_TESTS_core
)
