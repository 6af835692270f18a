# Sources of the cdpr module (paths relative to src/).
list(APPEND TENDYN_SOURCES
  cdpr/model.cpp
  cdpr/geometry.cpp
  cdpr/model_io.cpp
  cdpr/dense_kernels.cpp
  cdpr/tension.cpp
  cdpr/exhaustive.cpp
  cdpr/nnls.cpp
  cdpr/exact.cpp
  cdpr/closed_form.cpp
  cdpr/study.cpp
  cdpr/tension_problem.cpp
)
list(APPEND TENDYN_SOURCES cdpr/dynamics.cpp)
list(APPEND TENDYN_SOURCES cdpr/control.cpp cdpr/experiment.cpp)
list(APPEND TENDYN_SOURCES cdpr/identify.cpp)
list(APPEND TENDYN_SOURCES cdpr/workspace.cpp)
list(APPEND TENDYN_SOURCES cdpr/tension_centroid.cpp cdpr/interference.cpp cdpr/design.cpp)
