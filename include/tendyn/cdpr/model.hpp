// Description of a cable-driven parallel robot (CDPR): frame anchors, platform attachment points,
// cable names and groups, tension bounds, platform mass properties and gravity. Immutable once
// built (make_model, load_model); the per-pose geometry lives in cdpr::Data (geometry.hpp).
//
// Notation (frame-explicit, as in docs/CDPR.md): p_WA anchor A in world W [m]; p_PB attachment
// point B in platform frame P [m].
#pragma once
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>

#include <limits>
#include <string>
#include <vector>

namespace tendyn::cdpr {

/// Spatial robots have a 6-row structure matrix (Fx, Fy, Fz, Mx, My, Mz); planar robots move in
/// the world x-y plane and have 3 rows (Fx, Fy, Mz).
enum class Motion { kSpatial, kPlanar };
/// The names of Motion (tendyn/core/enum_names.hpp).
constexpr EnumNames<Motion, 2> enum_names(Motion) { return {"motion", {{{Motion::kSpatial, "spatial"}, {Motion::kPlanar, "planar"}}}}; }
/// "spatial" or "planar" (as in model files; any case, '-' = '_'). Throws tendyn::Error otherwise.
inline Motion motion_from_string(const std::string& name) { return enum_from_string<Motion>(name); }
/// "spatial" or "planar".
inline const char* to_string(Motion motion) { return enum_to_string(motion); }

/// Immutable robot description. Built and validated by make_model() or load_model(). The model
/// owns the tension bounds f_min_N, f_max_N: the tension problems (solver_options(model),
/// make_tension_problem), the workspace and the controller take them from here unless an option
/// overrides them explicitly.
struct Model {
  std::string name;
  Motion motion = Motion::kSpatial;
  Eigen::Matrix3Xd p_WA;                  ///< (3 x n) frame anchors in world [m]; planar: z = 0
  Eigen::Matrix3Xd p_PB;                  ///< (3 x n) attachment points in platform frame [m]
  std::vector<std::string> cable_names;   ///< n names (default "c1".."cn")
  std::vector<std::string> cable_groups;  ///< n group labels (e.g. "upper", "lower"; default "")
  double f_min_N = 0.0;                   ///< lower tension bound [N] (>= 0)
  /// upper tension bound [N] (> f_min_N); no bound = infinity (a model file without tension.max)
  double f_max_N = std::numeric_limits<double>::infinity();
  double platform_mass_kg = 0.0;                   ///< used only to build a gravity wrench (may be 0)
  Eigen::Vector3d p_PC = Eigen::Vector3d::Zero();  ///< platform centre of mass in P [m]
  Eigen::Vector3d gravity_W{0.0, 0.0, -9.81};      ///< [m/s^2]
  [[nodiscard]] int ncable() const { return static_cast<int>(p_WA.cols()); }
  /// 6 for spatial, 3 for planar.
  [[nodiscard]] int wrench_dim() const { return motion == Motion::kSpatial ? 6 : 3; }
};

/// Validates and returns a model. Throws tendyn::Error naming the cable and reason for: n < 1,
/// n > 64, sizes that differ, non-finite coordinates, planar models with z != 0, two frame anchors
/// closer than 1e-9 m ("coincident anchors"), bad bounds (f_min < 0, f_max <= f_min, NaN), names
/// or groups of the wrong count.
Model make_model(std::string name, Motion motion, Eigen::Matrix3Xd p_WA, Eigen::Matrix3Xd p_PB, std::vector<std::string> cable_names = {},
                 std::vector<std::string> cable_groups = {});
/// Checks every invariant of a model (the checks of make_model, on an already filled model: the
/// YAML loader, hand edits). Throws tendyn::Error "cdpr model '<name>': ..." naming the cable and
/// the reason. Cost O(n^2) (the coincident-anchor test).
void validate(const Model& model);
/// The same as validate(model) (its former name, kept for source compatibility).
void validate_model(const Model& model);

}  // namespace tendyn::cdpr
