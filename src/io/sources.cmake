# Sources of the io module (paths relative to src/).
list(APPEND TENDYN_SOURCES
  io/atomic_file.cpp
  io/yaml_util.cpp
  io/markup.cpp
)
