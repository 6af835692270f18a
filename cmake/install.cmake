# Install rules: `cmake --install BUILD --prefix P` gives (docs/INSTALL.md)
#   P/lib/libtendyn.a (or .so with -DBUILD_SHARED_LIBS=ON), P/include/tendyn/**,
#   P/lib/cmake/tendyn/{tendynConfig,tendynConfigVersion,tendynTargets}.cmake  (find_package(tendyn CONFIG)),
#   P/bin/tendyn, P/share/tendyn/{models/**, scripts/plot.py, scripts/plot_scene.py}  (read at run time,
#   found relative to the program: apps/tendyn/resources.hpp),
#   P/share/doc/tendyn/*.md  (the documentation; the program's --help names the directory),
#   P/${TENDYN_PYTHON_INSTALL_DIR}/tendyn/{__init__.py, ..., _tendyn*.so}.
include(CMakePackageConfigHelpers)

set(TENDYN_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
    "Where the Python package tendyn/ is installed, relative to the prefix (Debian's python3 reads /usr/lib/python3/dist-packages)")
set(TENDYN_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/tendyn")
set(TENDYN_DATA_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/tendyn")
# The documentation next to the data: the program finds it as <data dir>/../doc/tendyn.
set(TENDYN_DOC_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/doc/tendyn")

# Shared library: a SONAME per minor version while the API is 0.x, and relative RPATHs so that the
# installed prefix can be moved.
if(BUILD_SHARED_LIBS)
  set_target_properties(tendyn PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  file(RELATIVE_PATH _tendyn_bin_to_lib "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH _tendyn_py_to_lib "/prefix/${TENDYN_PYTHON_INSTALL_DIR}/tendyn" "/prefix/${CMAKE_INSTALL_LIBDIR}")
  if(TARGET tendyn_cli)
    set_target_properties(tendyn_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_tendyn_bin_to_lib}")
  endif()
  if(TARGET tendyn_python)
    set_target_properties(tendyn_python PROPERTIES INSTALL_RPATH "$ORIGIN/${_tendyn_py_to_lib}")
  endif()
endif()

install(TARGETS tendyn EXPORT tendynTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tendyn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/tendyn/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tendyn COMPONENT dev)
install(EXPORT tendynTargets NAMESPACE tendyn:: DESTINATION ${TENDYN_CMAKE_INSTALL_DIR} COMPONENT dev)

# What a consumer's find_package must find again: Eigen and Threads always (public), yaml-cpp,
# nlohmann_json and Ceres only for the static library (linked privately, so they appear as link-only
# dependencies of libtendyn.a).
if(BUILD_SHARED_LIBS)
  set(TENDYN_STATIC_LIBRARY OFF)
else()
  set(TENDYN_STATIC_LIBRARY ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tendynConfig.cmake.in ${PROJECT_BINARY_DIR}/tendynConfig.cmake
  INSTALL_DESTINATION ${TENDYN_CMAKE_INSTALL_DIR} PATH_VARS TENDYN_DATA_INSTALL_DIR)
# 0.x: a minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tendynConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tendynConfig.cmake ${PROJECT_BINARY_DIR}/tendynConfigVersion.cmake
  DESTINATION ${TENDYN_CMAKE_INSTALL_DIR} COMPONENT dev)

# Run-time data: the shipped models (also for library users: examples/consumer loads one) and the
# matplotlib scripts the program runs.
set(TENDYN_DATA_SCRIPTS scripts/plot.py scripts/plot_scene.py)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${TENDYN_DATA_INSTALL_DIR}/models COMPONENT data)
install(PROGRAMS ${TENDYN_DATA_SCRIPTS} DESTINATION ${TENDYN_DATA_INSTALL_DIR}/scripts COMPONENT data)
file(GLOB _tendyn_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${_tendyn_docs} DESTINATION ${TENDYN_DOC_INSTALL_DIR} COMPONENT data)

if(TARGET tendyn_cli)
  install(TARGETS tendyn_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT program)
  # The build tree mirrors the installed layout: <build>/tendyn finds <build>/share/tendyn/, whose
  # entries are symbolic links to the sources (edits show at once, nothing to copy).
  set(_tendyn_build_data ${PROJECT_BINARY_DIR}/share/tendyn)
  file(MAKE_DIRECTORY ${_tendyn_build_data}/scripts)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/models ${_tendyn_build_data}/models SYMBOLIC)
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/doc)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/docs ${PROJECT_BINARY_DIR}/share/doc/tendyn SYMBOLIC)
  foreach(_s IN LISTS TENDYN_DATA_SCRIPTS)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${_s} ${_tendyn_build_data}/${_s} SYMBOLIC)
  endforeach()
endif()

# The Python package as laid out in the build tree (<build>/python/tendyn: the extension module and
# every .py file python/CMakeLists.txt copies there).
if(TARGET tendyn_python)
  install(TARGETS tendyn_python LIBRARY DESTINATION ${TENDYN_PYTHON_INSTALL_DIR}/tendyn COMPONENT python)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/python/tendyn/ DESTINATION ${TENDYN_PYTHON_INSTALL_DIR}/tendyn COMPONENT python
    FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()
