# Test sources of the cli module (paths relative to tests/).
list(APPEND TENDYN_TESTS_cli
)
