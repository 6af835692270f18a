// The viz binding files, one per bound public header include/tendyn/viz/<header>.hpp
// (python/src/viz/expose_<header>.cpp). Called by module.cpp after the tensegrity bindings (the
// signatures name tensegrity Model, State and Data).
#pragma once
#include <pybind11/pybind11.h>

#include "bind_util.hpp"

namespace tendyn::python::viz_bind {

void expose_live(pybind11::module_& m);  // live.hpp: LiveClientOptions, LiveStats, LiveClient
void expose_page(pybind11::module_& m);  // scene.hpp, tensegrity_scene.hpp: ScenePage (the viewer page)

}  // namespace tendyn::python::viz_bind
