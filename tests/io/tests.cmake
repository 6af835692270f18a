# Test sources of the io module (paths relative to tests/).
list(APPEND TENDYN_TESTS_io
)
