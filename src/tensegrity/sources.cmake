# Sources of the tensegrity module (paths relative to src/).
list(APPEND TENDYN_SOURCES
)
