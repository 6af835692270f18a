# Sources of the tree module (paths relative to src/).
list(APPEND TENDYN_SOURCES
  tree/model.cpp
  tree/algorithms.cpp
  tree/block.cpp
  tree/model_io.cpp
  tree/simulate.cpp
  tree/identify.cpp
)
