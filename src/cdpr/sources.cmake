# Sources of the cdpr module (paths relative to src/).
list(APPEND TENDYN_SOURCES
)
