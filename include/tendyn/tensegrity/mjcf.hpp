// Export of a tensegrity model to MuJoCo's MJCF (XML), for cross-checks, benchmarks and for users
// who want the same robot in MuJoCo 2.2.2 (Debian libmujoco-dev).
//
// Mapping (docs/MODEL_FORMAT.md, "MJCF export", has the full table):
// * rods -> free bodies with an explicit inertial (mass, diag(I_t, I_t, I_a)); I_a below
//   `min_axial_inertia_ratio * I_t` (thin rods: 0) is raised to that value, because MuJoCo needs
//   positive-definite inertia; centre-of-mass ratio, gravity and initial poses are exact;
// * nodes -> sites of their rod's body; world anchors -> sites of the world body (exact);
// * cables and springs -> spatial tendons with stiffness, damping and springlength = rest length.
//   2.2.2 tendon springs push as well as pull: springs that push are exact, tension-only cables
//   agree with tendyn only while taut; relative-velocity damping (document 000 eq. 3) becomes
//   axial tendon damping with the same coefficient (an approximation);
// * cable drives -> motor actuators on the tendons (ctrl = k u(t), set by the user each step);
// * a ground -> a plane with soft contact against rod capsules (friction kept, restitution and
//   compliant stiffness/damping not matched);
// * constant external node forces and rest-length/rate limits -> dropped; initial velocities ->
//   a keyframe.
// Every change or omission is reported as a note (MjcfExport::notes) and in an XML comment at the
// top of the file.
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// MuJoCo's integrator option (the names are MuJoCo's).
enum class MjcfIntegrator { kRK4, kEuler };
/// The names of MjcfIntegrator (tendyn/core/enum_names.hpp).
constexpr EnumNames<MjcfIntegrator, 2> enum_names(MjcfIntegrator) {
  return {"MJCF integrator", {{{MjcfIntegrator::kRK4, "RK4"}, {MjcfIntegrator::kEuler, "Euler"}}}};
}
/// "RK4" | "Euler" -> MjcfIntegrator (as MuJoCo spells them; any case). Throws tendyn::Error
/// "unknown MJCF integrator '<name>' (valid: RK4, Euler)" for any other text.
inline MjcfIntegrator mjcf_integrator_from_string(const std::string& name) { return enum_from_string<MjcfIntegrator>(name); }
/// "RK4", "Euler" (the value of <option integrator=...>).
inline const char* to_string(MjcfIntegrator integrator) { return enum_to_string(integrator); }

struct MjcfOptions {
  double timestep_s = 1e-3;                          ///< MuJoCo option timestep [s], > 0
  MjcfIntegrator integrator = MjcfIntegrator::kRK4;  ///< MuJoCo integrator
  double min_axial_inertia_ratio = 1e-6;             ///< I_a is exported as at least this times I_t, > 0
  /// true: a model with a ground gets a plane and rod capsules with contact; false (or a model
  /// without ground): contacts are disabled (flag contact="disable") and capsules only draw.
  bool ground = true;
  double rod_radius_m = 0.005;  ///< capsule radius of every rod [m], > 0 (contact geometry)
  /// true: each cable drive becomes a motor actuator on its tendon; false: drives are dropped.
  bool drives_as_actuators = true;
};

/// The MJCF text and what it could not represent exactly.
struct MjcfExport {
  std::string xml;
  /// One line per feature of the model that MuJoCo 2.2.2 cannot represent and that was changed,
  /// approximated or dropped (no trailing newline, no "--"); empty when the export is exact. The
  /// same lines open the XML in a comment.
  std::vector<std::string> notes;
};

/// MJCF of `model` in its initial state, with notes. Throws tendyn::Error for bad options
/// (integrator, non-positive timestep, radius or inertia ratio). Cost O(nrod + nnode + ncable).
MjcfExport export_mjcf(const Model& model, const MjcfOptions& options = {});

/// export_mjcf(model, options).xml, for callers that do not need the notes.
std::string to_mjcf(const Model& model, const MjcfOptions& options = {});

}  // namespace tendyn::tensegrity
