# Sources of the viz module (viewer scenes and the studio's request handling; paths relative to src/).
list(APPEND TENDYN_SOURCES
  viz/scene.cpp
  viz/tensegrity_scene.cpp
  viz/studio.cpp
  viz/studio_cdpr.cpp
  viz/plan_scene.cpp
  viz/live.cpp
  viz/studio_net.cpp
)
if(TENDYN_WITH_CDPR)
  list(APPEND TENDYN_SOURCES viz/cdpr_scene.cpp)
endif()
if(TENDYN_WITH_TREE)
  list(APPEND TENDYN_SOURCES viz/tree_scene.cpp)
endif()
