// Import of MuJoCo MJCF (XML) models as tensegrity models: free bodies become rigid rods with a
// general inertia, sites become nodes (body points, or world anchors), spatial tendons between two
// sites become cables. docs/MODEL_FORMAT.md, "MJCF import", has the full mapping table.
//
// What is read: <include file> (relative to the including file; cycles and missing files are
// errors), <compiler angle coordinate inertiafromgeom eulerseq autolimits inertiagrouprange>
// (MuJoCo 2.x `coordinate="global"` too), <default> classes (nested, `class`, `childclass`),
// <option timestep gravity integrator> and its <flag contact gravity>, bodies with a free joint
// (one rod each; bodies nested in them without joints are welded parts of the same rod), geoms
// (mass and inertia by MuJoCo's compiler rules for sphere, capsule, cylinder, box, ellipsoid),
// <inertial>, sites, spatial tendons between two sites, the first <keyframe> key, and a floor
// plane in the world. Everything that would change the dynamics and has no tendyn counterpart
// (hinge/slide/ball joints, wrapping or multi-site tendons, fixed tendons, equality constraints,
// mass-carrying meshes, limited tendons, ...) is an error naming the element and its file:line:col;
// visual-only elements are skipped with a note in the report.
#pragma once
#include <tendyn/tensegrity/model_io.hpp>

#include <string>
#include <vector>

namespace tendyn::tensegrity {

struct MjcfImportOptions {
  /// false (default): tendon actuators (<general> with dyntype none, integrator, filter or
  /// filterexact, gaintype fixed/affine, biastype none/affine; <motor>, <position>, <velocity>)
  /// become ForceActuator (model.hpp), any other actuator is an error; true: every actuator is
  /// skipped, each with a note in the report.
  bool ignore_actuators = false;
};

/// An actuator as read from the file (for the report; imported as a ForceActuator, or skipped).
struct MjcfActuator {
  std::string kind;                                    ///< element name: general, motor, position, velocity, ...
  std::string name;                                    ///< its name attribute ("" if none)
  std::string tendon;                                  ///< the tendon it drives ("" if it drives something else)
  std::string where;                                   ///< file:line:col
  std::string dyntype, gaintype, biastype;             ///< as written or defaulted ("" for shortcuts)
  std::vector<double> gainprm, biasprm, dynprm, gear;  ///< as written (empty when absent)
  double kp = 0.0;                                     ///< `position` / `velocity` gain (kv) when given
};

/// What the import did, in words, for `tendyn import` and for users checking a model.
struct MjcfImportReport {
  std::vector<std::string> mapped;      ///< one line per element mapped ("body 'b' -> rod 'b' ...")
  std::vector<std::string> skipped;     ///< one line per element or attribute ignored, and why
  std::vector<MjcfActuator> actuators;  ///< the actuators found (imported or skipped)
};

/// Reads an MJCF file and returns the tendyn model (validated) with simulation defaults from
/// <option>: dt = timestep, integrator RK4 -> rk4 (Euler and the implicit integrators -> rk4, with
/// a note). The initial state is the first keyframe key (qpos, qvel, time) or, without one, the
/// bodies' poses in the file at rest. Throws tendyn::Error "<file>:<line>:<col>: <element>: <reason>"
/// for malformed XML, missing or cyclic includes, unsupported elements and attributes, absurd
/// numbers (non-finite, negative mass or size), and anything validate() rejects.
/// `report` (optional) receives what was mapped how and what was skipped.
ModelFile load_mjcf_file(const std::string& path, const MjcfImportOptions& options = {}, MjcfImportReport* report = nullptr);

/// Same, from text; `name` stands for the file in messages and its directory resolves includes.
ModelFile load_mjcf_string(const std::string& text, const std::string& name = "<string>", const MjcfImportOptions& options = {},
                           MjcfImportReport* report = nullptr);

/// Whether `path` names an MJCF file by its extension (".xml", any case), the rule by which
/// load_model_file and the CLI pick the MJCF reader.
bool is_mjcf_path(const std::string& path);

/// Turns every rod with a general inertia that is an ideal rod in disguise back into one: its
/// centre of mass on the segment between its ends (within rel_tol * length), its inertia
/// axisymmetric about that segment (within rel_tol of its largest moment), and no body points or
/// end-cap radii on it. The body frame is turned so that z runs from end 0 to end 1 (the state's
/// quaternion changes by that fixed rotation; positions and velocities do not). Returns the number
/// of rods still general (0: the model holds only ideal rods, as the YAML writer needs).
int reduce_to_ideal_rods(Model& model, double rel_tol = 1e-9);

}  // namespace tendyn::tensegrity
