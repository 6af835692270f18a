# Sources of the core module (paths relative to src/).
list(APPEND TENDYN_SOURCES
  core/differentiate.cpp
  core/enum_names.cpp
  core/format.cpp
  core/worker_pool.cpp
)
