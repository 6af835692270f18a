// Export of a tensegrity model to MuJoCo's MJCF (XML), for cross-checks and benchmarks.
// Rods become free bodies (explicit inertial: mass and diag(It, It, Ia), with Ia replaced by
// `min_axial_inertia_ratio * It` for thin rods because MuJoCo needs positive-definite inertia),
// nodes become sites, anchors are sites of the world body, and every element becomes a spatial
// tendon with stiffness, damping and springlength = rest length. MuJoCo 2.2.2 tendon springs
// push as well as pull, so results agree with tendyn only while every cable stays taut.
#pragma once
#include <tendyn/tensegrity/simulate.hpp>

#include <string>

namespace tendyn::tensegrity {

struct MjcfOptions {
  double timestep_s = 1e-3;
  std::string integrator = "RK4";  ///< MuJoCo integrator: "RK4" or "Euler"
  double min_axial_inertia_ratio = 1e-6;
  bool contact = false;            ///< false: contacts disabled (flag contact="disable")
};

/// MJCF text of `model` in its initial state. Throws tendyn::Error for elements MJCF cannot express.
std::string to_mjcf(const Model& model, const MjcfOptions& options = {});

}  // namespace tendyn::tensegrity
