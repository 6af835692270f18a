// Anchor design of a cable-driven parallel robot: move the frame anchors within a frame box (and,
// optionally, the platform attachment points within a box of the platform frame) to improve an
// objective over a set of poses (a region), with a derivative-free method.
//
// Objectives (DesignObjective):
//  * tension-margin (default; design_score(model, poses)): below.
//  * capacity-margin: the worst capacity margin (workspace.hpp: the distance of the required wrench
//    set to the boundary of the available wrench set, hyperplane shifting) over the poses, with the
//    wrench set, rows and bounds of DesignOptions::workspace (default: the weight alone) [N, N m
//    mixed]; a pose where it is undefined (rank-deficient J) scores -infinity.
//  * volume: the fraction of the poses in the wrench-feasible workspace of DesignOptions::workspace
//    (0..1; for a grid region the workspace volume within the region over the region's volume).
//    Piecewise constant in the design: the search is blind on its plateaus.
// `feasible` beside the score counts the poses with status ok (tension-margin) or inside (others).
//
// Tension-margin score of a design over poses q_1..q_K (gravity-compensation wrench, the model's
// bounds, every cable, the centred tension distribution of tension.hpp, which is continuous in the
// anchors where the poses stay feasible):
//   per pose: feasible (status ok) -> margin = min_c min(f_c - f_min, f_max - f_c) / (f_max - f_min)
//             (in [0, 0.5]: how far the most loaded or least loaded cable is from its bound);
//             not feasible -> -1 - |J f - w| / |w| (any infeasible pose scores below any feasible one);
//   score = mean over the poses. Higher is better; the count of feasible poses is reported beside it.
// This is the tension margin of one distribution, not the capacity margin of the literature (the
// distance of the wrench to the boundary of the available wrench set); it is cheap (one solve per
// pose) and continuous in the anchors where the poses stay feasible, which Nelder-Mead needs.
//
// Optimiser: Nelder-Mead (Nelder & Mead 1965; coefficients 1, 2, 0.5, 0.5) on the anchor
// coordinates (x, y per anchor for planar models, x, y, z for spatial ones), each clamped to the
// frame box, then (move_attachments) the attachment coordinates, each clamped to the attachment
// box; the initial simplex steps every coordinate by `initial_step_m` (an attachment coordinate
// by at most half its box; at most the room left in its box). Deterministic (no random numbers); the best design seen is returned, so the score
// never decreases.
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>

#include <string>
#include <utility>

namespace tendyn::cdpr {

enum class DesignObjective { kTensionMargin, kCapacityMargin, kVolume };
/// The names of DesignObjective (tendyn/core/enum_names.hpp).
constexpr EnumNames<DesignObjective, 3> enum_names(DesignObjective) {
  return {"design objective",
          {{{DesignObjective::kTensionMargin, "tension-margin"},
            {DesignObjective::kCapacityMargin, "capacity-margin"},
            {DesignObjective::kVolume, "volume"}}}};
}
/// "tension-margin", "capacity-margin", "volume" (any case, '-' = '_'). Throws tendyn::Error naming the accepted names.
inline DesignObjective design_objective_from_string(const std::string& name) { return enum_from_string<DesignObjective>(name); }
inline const char* to_string(DesignObjective o) { return enum_to_string(o); }

struct DesignOptions {
  Eigen::Vector3d frame_min_m = Eigen::Vector3d::Zero();  ///< anchors stay in [frame_min, frame_max] [m]
  Eigen::Vector3d frame_max_m = Eigen::Vector3d::Zero();  ///< (planar models: z ignored)
  double initial_step_m = 0.1;                            ///< initial simplex step [m] (> 0)
  int max_evaluations = 300;                              ///< score evaluations (>= 1)
  DesignObjective objective = DesignObjective::kTensionMargin;
  /// Also move the attachment points p_PB, each coordinate within [attachment_min_m,
  /// attachment_max_m] (platform frame [m]; planar: z ignored). When min == max == 0 on every
  /// axis (the default), the box is the bounding box of the starting attachment points: the
  /// platform's size. An axis of zero width (all attachments share the coordinate) stays fixed.
  bool move_attachments = false;
  Eigen::Vector3d attachment_min_m = Eigen::Vector3d::Zero();
  Eigen::Vector3d attachment_max_m = Eigen::Vector3d::Zero();
  /// capacity-margin and volume: the wrench set, rows, group and bounds of the workspace test
  /// (kind feasible or static; its margin and threads fields are set by the design).
  WorkspaceOptions workspace;
};

struct DesignScore {
  double score = 0.0;  ///< mean per-pose margin (see the header comment), dimensionless
  int feasible = 0;    ///< poses with status ok
  int poses = 0;
};

/// The tension-margin score of `model` over the poses (rows of q: pose_from_vector). Throws
/// tendyn::Error for no poses, a pose of the wrong length, a model without a finite tension.max,
/// or a cable of zero length at a pose. O(K) solves.
DesignScore design_score(const Model& model, const Eigen::MatrixXd& poses);
/// The score of options.objective (header comment; options.workspace for capacity-margin and
/// volume). Throws as above (a finite tension.max only for tension-margin), for a workspace kind
/// closure, and as WorkspaceEvaluator for the workspace options.
DesignScore design_score(const Model& model, const Eigen::MatrixXd& poses, const DesignOptions& options);

struct DesignResult {
  Model start, best;  ///< the starting and the best design (anchors, and attachments if moved)
  DesignScore start_score, best_score;
  int evaluations = 0;
};

/// Checks options' frame box against the model (planar: x and y only): throws tendyn::Error for an
/// axis that is not finite or has no width ("frame box x: lower 1 is not below upper 1 (no width)")
/// and for a starting anchor outside it ("the anchor of cable c1 lies outside the frame box
/// (x = 2 m)"). O(cables).
void check_frame_box(const Model& model, const DesignOptions& options);
/// The attachment box of options (move_attachments): attachment_min_m/attachment_max_m, or the
/// attachments' bounding box when both are 0; returns (lower, upper) corners in the platform frame
/// [m]. Throws tendyn::Error for an axis that is not finite or inverted ("attachment box x: lower
/// 0.2 is above upper 0.1") and for a starting attachment outside the box. O(cables).
std::pair<Eigen::Vector3d, Eigen::Vector3d> attachment_box(const Model& model, const DesignOptions& options);

/// Nelder-Mead over the anchors (and attachments) of `model` within the frame box (attachment box)
/// for options.objective. Throws tendyn::Error as check_frame_box and (move_attachments)
/// attachment_box, for a non-positive step or evaluation count, and as design_score. A candidate whose anchors coincide
/// or whose cable has zero length at a pose scores -infinity (it is never the best).
DesignResult optimise_anchors(const Model& model, const Eigen::MatrixXd& poses, const DesignOptions& options);

}  // namespace tendyn::cdpr
