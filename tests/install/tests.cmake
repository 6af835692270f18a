# Install, relocation and packaging tests (label "install"; docs/INSTALL.md). They run
# `cmake --install` / cpack on this build, so the whole build must be up to date first. Included by
# the top-level CMakeLists.txt after the Python bindings and the install rules. One at a time
# (RESOURCE_LOCK): each writes <build>/install_manifest.txt.
set(_tendyn_install_dir ${PROJECT_SOURCE_DIR}/tests/install)
add_test(NAME install.consumer
  COMMAND bash ${_tendyn_install_dir}/consumer.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CXX_COMPILER})
set_tests_properties(install.consumer PROPERTIES LABELS install TIMEOUT 300 RESOURCE_LOCK tendyn_install)
if(TENDYN_BUILD_CLI)
  add_test(NAME install.relocated
    COMMAND bash ${_tendyn_install_dir}/relocated.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${TENDYN_WITH_VIEWER} ${TENDYN_WITH_CDPR})
  set_tests_properties(install.relocated PROPERTIES LABELS install TIMEOUT 300 RESOURCE_LOCK tendyn_install)
endif()
find_program(TENDYN_DPKG_DEB dpkg-deb)
find_program(TENDYN_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TENDYN_BUILD_PACKAGE AND TENDYN_BUILD_CLI AND TARGET tendyn_python AND TENDYN_DPKG_DEB AND TENDYN_DPKG_SHLIBDEPS)
  add_test(NAME install.deb COMMAND bash ${_tendyn_install_dir}/deb.sh ${PROJECT_BINARY_DIR} ${PROJECT_VERSION})
  set_tests_properties(install.deb PROPERTIES LABELS install TIMEOUT 300 RESOURCE_LOCK tendyn_install)
else()
  message(STATUS "tendyn: install.deb test skipped (needs the program, the Python module, dpkg-deb and dpkg-shlibdeps)")
endif()
# The API reference (target doc, doxygen); skipped without doxygen. Its own build tree in a
# temporary directory (configure only, no compilation).
add_test(NAME install.doc COMMAND bash ${_tendyn_install_dir}/doc.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(install.doc PROPERTIES LABELS "install;doc" TIMEOUT 300 SKIP_RETURN_CODE 77)
