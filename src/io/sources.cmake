# Sources of the io module (paths relative to src/).
list(APPEND TENDYN_SOURCES
  io/atomic_file.cpp
  io/result_set.cpp
  io/output_lock.cpp
  io/signal_cleanup.cpp
  io/yaml_util.cpp
  io/markup.cpp
  io/csv.cpp
  io/xml_lite.cpp
)
