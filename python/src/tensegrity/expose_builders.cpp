// Bindings of include/tendyn/tensegrity/builders.hpp: the n-prism and the expanded octahedron.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/builders.hpp>

#include "tensegrity/expose.hpp"

namespace tendyn::python::tensegrity_bind {

void expose_builders(py::module_& m) {
  py::enum_<PrismLayout>(m, "PrismLayout",
                         "Initial geometry of make_prism: kPivot (ours: rods turned about a point on a circle) or kCentred "
                         "(document 000's authors' n_prism.py: rod centres on a circle).")
      .value("kPivot", PrismLayout::kPivot)
      .value("kCentred", PrismLayout::kCentred);
  m.def("prism_layout_from_string", &prism_layout_from_string, py::arg("name"),
        "'pivot' or 'centred' -> PrismLayout (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<PrismLayout>(&to_string), py::arg("layout"), "'pivot' or 'centred'.");
  m.def("prism_radius_m", &prism_radius_m, py::arg("params"),
        "The radius make_prism uses [m]: radius_m if > 0, else the layout's default (0.12 m pivot, rod_length_m / 8 centred).");

  py::class_<PrismParams> prism(m, "PrismParams",
                                "Parameters of the n-prism builder (document 000); per-class values < 0 mean 'use the common value'.");
  prism.def_readwrite("n", &PrismParams::n, "number of rods (>= 3)")
      .def_readwrite("rod_mass_kg", &PrismParams::rod_mass_kg, "rod mass [kg]")
      .def_readwrite("rod_length_m", &PrismParams::rod_length_m, "rod length [m]")
      .def_readwrite("rod_radius_outer_m", &PrismParams::rod_radius_outer_m, "outer rod radius [m] (0: thin rod)")
      .def_readwrite("rod_radius_inner_m", &PrismParams::rod_radius_inner_m, "inner rod radius [m]")
      .def_readwrite("stiffness_Npm", &PrismParams::stiffness_Npm, "stiffness of all cables [N/m]")
      .def_readwrite("stiffness_top_Npm", &PrismParams::stiffness_top_Npm, "top-ring stiffness [N/m] (< 0: stiffness_Npm)")
      .def_readwrite("stiffness_bottom_Npm", &PrismParams::stiffness_bottom_Npm, "bottom-ring stiffness [N/m] (< 0: stiffness_Npm)")
      .def_readwrite("stiffness_side_Npm", &PrismParams::stiffness_side_Npm, "side-cable stiffness [N/m] (< 0: stiffness_Npm)")
      .def_readwrite("damping_Nspm", &PrismParams::damping_Nspm, "damping of all cables [N s/m]")
      .def_readwrite("rest_length_m", &PrismParams::rest_length_m, "rest length of all cables [m]")
      .def_readwrite("rest_top_m", &PrismParams::rest_top_m, "top-ring rest length [m] (< 0: rest_length_m)")
      .def_readwrite("rest_bottom_m", &PrismParams::rest_bottom_m, "bottom-ring rest length [m] (< 0: rest_length_m)")
      .def_readwrite("rest_side_m", &PrismParams::rest_side_m, "side-cable rest length [m] (< 0: rest_length_m)")
      .def_readwrite("psi_rad", &PrismParams::psi_rad, "initial tilt psi [rad] (default 50 deg)")
      .def_readwrite("layout", &PrismParams::layout, "PrismLayout of the initial geometry (default kPivot)")
      .def_readwrite(
          "radius_m", &PrismParams::radius_m,
          "radius [m] of the circle of the pivot points (kPivot) or of the rod centres (kCentred); < 0 (default): the layout's default")
      .def_readwrite("pivot", &PrismParams::pivot,
                     "kPivot: fraction of the rod from its bottom end that lies on the circle (dimensionless)")
      .def_readwrite("height_m", &PrismParams::height_m, "height of the circle [m]")
      .def_readwrite("damping_law", &PrismParams::damping_law, "DampingLaw of the cables");
  def_kw_init(prism);
  m.def("make_prism", &make_prism, py::arg("params") = PrismParams(), "Build an n-prism (document 000).");
  m.def("prism_equilibrium_nodes", &prism_equilibrium_nodes, py::arg("n"), py::arg("rod_length_m"), py::arg("ring_radius_m"),
        "(2n x 3) node positions of the prism's equilibrium [m].");

  py::class_<OctahedronParams> octa(m, "OctahedronParams", "Parameters of the 6-bar expanded octahedron builder (SUPERball topology).");
  octa.def_readwrite("rod_mass_kg", &OctahedronParams::rod_mass_kg, "rod mass [kg]")
      .def_readwrite("rod_length_m", &OctahedronParams::rod_length_m, "rod length L [m]")
      .def_readwrite("rod_radius_outer_m", &OctahedronParams::rod_radius_outer_m, "outer rod radius [m] (0: thin rod)")
      .def_readwrite("rod_radius_inner_m", &OctahedronParams::rod_radius_inner_m, "inner rod radius [m]")
      .def_readwrite("stiffness_Npm", &OctahedronParams::stiffness_Npm, "cable stiffness [N/m]")
      .def_readwrite("damping_Nspm", &OctahedronParams::damping_Nspm, "cable damping [N s/m]")
      .def_readwrite("rest_length_m", &OctahedronParams::rest_length_m, "cable rest length [m]")
      .def_readwrite("spacing_scale", &OctahedronParams::spacing_scale, "initial pair spacing / (L/2) (dimensionless)")
      .def_readwrite("perturbation_m", &OctahedronParams::perturbation_m, "size of the deterministic initial perturbation [m]")
      .def_readwrite("damping_law", &OctahedronParams::damping_law, "DampingLaw of the cables");
  def_kw_init(octa);
  m.def("make_expanded_octahedron", &make_expanded_octahedron, py::arg("params") = OctahedronParams(),
        "Build the 6-bar expanded octahedron.");
}

}  // namespace tendyn::python::tensegrity_bind
