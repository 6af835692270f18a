# Sources of the tree module (paths relative to src/).
list(APPEND TENDYN_SOURCES
)
