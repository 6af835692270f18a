// Anchor design of a cable-driven parallel robot: move the frame anchors within a frame box to
// improve the tension margin over a set of poses (a region), with a derivative-free method.
//
// Score of a design over poses q_1..q_K (gravity-compensation wrench, the model's bounds, every
// cable, the centred tension distribution of tension.hpp, which is continuous in the anchors where
// the poses stay feasible):
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
// frame box; the initial simplex steps every coordinate by `initial_step_m`. Deterministic (no
// random numbers); the best design seen is returned, so the score never decreases.
#pragma once
#include <tendyn/cdpr/geometry.hpp>

#include <Eigen/Core>

namespace tendyn::cdpr {

struct DesignOptions {
  Eigen::Vector3d frame_min_m = Eigen::Vector3d::Zero();  ///< anchors stay in [frame_min, frame_max] [m]
  Eigen::Vector3d frame_max_m = Eigen::Vector3d::Zero();  ///< (planar models: z ignored)
  double initial_step_m = 0.1;                            ///< initial simplex step [m] (> 0)
  int max_evaluations = 300;                              ///< score evaluations (>= 1)
};

struct DesignScore {
  double score = 0.0;  ///< mean per-pose margin (see the header comment), dimensionless
  int feasible = 0;    ///< poses with status ok
  int poses = 0;
};

/// The score of `model` over the poses (rows of q: pose_from_vector). Throws tendyn::Error for no
/// poses, a pose of the wrong length, a model without a finite tension.max, or a cable of zero
/// length at a pose. O(K) solves.
DesignScore design_score(const Model& model, const Eigen::MatrixXd& poses);

struct DesignResult {
  Model start, best;  ///< the starting and the best design (anchors changed only)
  DesignScore start_score, best_score;
  int evaluations = 0;
};

/// Nelder-Mead over the anchors of `model` within the frame box. Throws tendyn::Error for an empty
/// or inverted frame box, a starting anchor outside it, a non-positive step or evaluation count,
/// and as design_score. A candidate whose anchors coincide or whose cable has zero length at a
/// pose scores -infinity (it is never the best).
DesignResult optimise_anchors(const Model& model, const Eigen::MatrixXd& poses, const DesignOptions& options);

}  // namespace tendyn::cdpr
