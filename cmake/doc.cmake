# The API reference: `cmake --build BUILD --target doc` runs Debian's doxygen (package doxygen) on
# the public headers include/tendyn into BUILD/doc/api/html, then prints how many warnings doxygen
# gave and how many of them are undocumented public members (the log: BUILD/doc/api/warnings.log).
# Warnings never fail it. Not part of `all` nor of CI. `cmake --install` copies the reference to
# <prefix>/share/doc/tendyn/api when it was built (nothing otherwise).
find_program(TENDYN_DOXYGEN doxygen DOC "doxygen for the API reference (target doc)")
set(TENDYN_DOC_OUT ${PROJECT_BINARY_DIR}/doc/api)
if(TENDYN_DOXYGEN)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/doc/Doxyfile.in ${PROJECT_BINARY_DIR}/doc/Doxyfile @ONLY)
  add_custom_target(doc
    COMMAND ${CMAKE_COMMAND} -E make_directory ${TENDYN_DOC_OUT}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${TENDYN_DOC_OUT}/warnings.log
    COMMAND ${TENDYN_DOXYGEN} ${PROJECT_BINARY_DIR}/doc/Doxyfile
    COMMAND ${CMAKE_COMMAND} -DLOG=${TENDYN_DOC_OUT}/warnings.log -P ${PROJECT_SOURCE_DIR}/cmake/doc/count_warnings.cmake
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
    COMMENT "tendyn: API reference (doxygen) into ${TENDYN_DOC_OUT}/html"
    VERBATIM)
else()
  add_custom_target(doc
    COMMAND ${CMAKE_COMMAND} -E echo "tendyn doc: doxygen not found; install Debian's doxygen (scripts/install-deps.sh all) and reconfigure"
    COMMAND ${CMAKE_COMMAND} -E false
    VERBATIM)
endif()
install(DIRECTORY ${TENDYN_DOC_OUT}/html/ DESTINATION ${TENDYN_DOC_INSTALL_DIR}/api COMPONENT data OPTIONAL)
