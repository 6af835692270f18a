# Test sources of the viz module: viewer scenes and the studio's request handling (paths relative to tests/).
list(APPEND TENDYN_TESTS_viz
  viz/scene_test.cpp
  viz/tensegrity_scene_test.cpp
  viz/studio_test.cpp
  viz/plan_scene_test.cpp
  viz/live_test.cpp
)
if(TENDYN_WITH_CDPR)
  list(APPEND TENDYN_TESTS_viz viz/cdpr_scene_test.cpp viz/studio_cdpr_test.cpp)
endif()
if(TENDYN_WITH_TREE)
  list(APPEND TENDYN_TESTS_viz viz/tree_scene_test.cpp)
endif()
