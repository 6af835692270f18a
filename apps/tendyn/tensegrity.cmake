list(APPEND TENDYN_CLI_SOURCES tensegrity_cli.cpp cmd_simulate.cpp cmd_sweep.cpp cmd_validate.cpp cmd_export.cpp cmd_import.cpp cmd_plan.cpp cmd_formfind.cpp cmd_study.cpp
  viewer_cli.cpp cmd_view.cpp cmd_render.cpp headless_browser.cpp cmd_serve.cpp http_server.cpp studio_app.cpp live_routes.cpp)
# tendyn identify (tensegrity, CDPR and tree models): with identification only (TENDYN_WITH_IDENTIFY).
if(TENDYN_WITH_IDENTIFY)
  list(APPEND TENDYN_CLI_SOURCES cmd_identify.cpp)
endif()
