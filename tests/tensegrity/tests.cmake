# Test sources of the tensegrity module (paths relative to tests/).
list(APPEND TENDYN_TESTS_tensegrity
)
