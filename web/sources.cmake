# Sources of the web viewer bundle (listed, not globbed; paths absolute via TENDYN_WEB_DIR).
set(TENDYN_WEB_SOURCES
  ${TENDYN_WEB_DIR}/src/colormap.js
  ${TENDYN_WEB_DIR}/src/dom.js
  ${TENDYN_WEB_DIR}/src/forces.js
  ${TENDYN_WEB_DIR}/src/live.js
  ${TENDYN_WEB_DIR}/src/main.js
  ${TENDYN_WEB_DIR}/src/plots.js
  ${TENDYN_WEB_DIR}/src/scene.js
  ${TENDYN_WEB_DIR}/src/studio.js
  ${TENDYN_WEB_DIR}/src/studio.css
  ${TENDYN_WEB_DIR}/src/studio_summary.js
  ${TENDYN_WEB_DIR}/src/viewer.js
  ${TENDYN_WEB_DIR}/src/style.css
)
