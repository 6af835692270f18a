# Test sources of the cdpr module (paths relative to tests/).
list(APPEND TENDYN_TESTS_cdpr
)
