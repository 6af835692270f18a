# Test sources of the tree module (paths relative to tests/).
list(APPEND TENDYN_TESTS_tree
)
