# The Debian package (docs/INSTALL.md):  cd BUILD && cpack -G DEB   ->  BUILD/tendyn_<version>_amd64.deb
# Everything `cmake --install` installs, under /usr: the program, the library with its headers and
# CMake package, the Python package (Debian's python3), the models and plot scripts.
set(TENDYN_PACKAGE_MAINTAINER "tendyn developers <tendyn-dev@example.org>" CACHE STRING
    "Maintainer field of the Debian package")

set(CPACK_PACKAGE_NAME tendyn)
set(CPACK_PACKAGE_VENDOR tendyn)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "rod-and-cable robot dynamics: tensegrity, cable-driven parallel and tree robots")
set(CPACK_PACKAGE_CONTACT "${TENDYN_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_NAME tendyn)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tendyn_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TENDYN_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# the extended description (the synopsis is CPACK_PACKAGE_DESCRIPTION_SUMMARY)
set(CPACK_PACKAGE_DESCRIPTION "tendyn models, simulates, plans and controls robots built from rigid parts
and cables. This package holds the tendyn program, the C++ library (static,
with its headers and CMake package: find_package(tendyn CONFIG)), the Python
module (import tendyn), the shipped models and the plot scripts
(/usr/share/tendyn).")
# Run-time libraries of the program and the Python module (libyaml-cpp, libstdc++, ...) from
# dpkg-shlibdeps (Debian's dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(BUILD_SHARED_LIBS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_INSTALL_LIBDIR})
endif()
# What a consumer of the library needs to compile and link (Eigen headers; yaml-cpp,
# nlohmann_json and Ceres CMake packages for the static library), and what `import tendyn` needs.
set(_tendyn_depends libeigen3-dev libyaml-cpp-dev nlohmann-json3-dev python3-numpy)
if(TENDYN_WITH_IDENTIFY)
  list(APPEND _tendyn_depends libceres-dev)
endif()
if(TARGET tendyn_python)
  # The extension module is built for one Python minor version.
  math(EXPR _tendyn_py_next "${Python_VERSION_MINOR} + 1")
  list(APPEND _tendyn_depends "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR})"
       "python3 (<< ${Python_VERSION_MAJOR}.${_tendyn_py_next})")
else()
  list(APPEND _tendyn_depends python3)
endif()
# The static library's exported target names cpp-httplib's shared library (a link-only dependency,
# lib/cmake/tendyn/tendynTargets.cmake): /usr/lib/<triplet>/libcpp-httplib.so is in the -dev package.
if(NOT BUILD_SHARED_LIBS)  # src/CMakeLists.txt requires cpp-httplib
  list(APPEND _tendyn_depends libcpp-httplib-dev zlib1g-dev)  # zlib: the same, for viz/scene.cpp
endif()
list(JOIN _tendyn_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib")  # tendyn plot and the PNGs of plan, study, sweep

# Maintainer scripts: remove the byte code (__pycache__) that Python writes into the package's
# Python directory when root imports tendyn, so that `apt-get remove` leaves nothing behind.
set(TENDYN_DEB_PYTHON_DIR "${CPACK_PACKAGING_INSTALL_PREFIX}/${TENDYN_PYTHON_INSTALL_DIR}/tendyn")
foreach(_script prerm postrm)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/${_script}.in ${PROJECT_BINARY_DIR}/debian/${_script} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian/prerm ${PROJECT_BINARY_DIR}/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
