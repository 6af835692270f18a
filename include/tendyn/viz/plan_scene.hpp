// Viewer scene of an executed plan (document 001 chapter 3; docs/VIEWER.md): the planned model
// simulated once more, with the distance of the planner's centroid from the path as an extra plot.
#pragma once
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/viz/scene.hpp>

namespace tendyn::viz {

/// Title of the extra plot added by simulate_plan_scene (y label "m", one series "path error").
inline constexpr const char* kPathErrorPlotTitle = "distance of the centroid from the path";

/// Names of the two paths added by simulate_plan_scene.
inline constexpr const char* kTargetPathName = "target path";
inline constexpr const char* kCentroidTrackName = "executed centroid track";

/// Simulates `planned` (the model with the executed schedule as drives, PlanResult::as_drives)
/// with `options` from planned.initial_state, recording a scene as TensegritySceneRecorder does
/// (make_scene(planned), at most one frame per frame_interval_s [s], the last output always kept),
/// and adds the plot kPathErrorPlotTitle: for every frame, PathTracker(path).distance of
/// tensegrity::plan_centroid_m at that frame's state [m] (the planner's own centroid and distance,
/// so the plot's knots equal PlanResult::path_error_m up to the replay's round-off), and two paths
/// on the floor (z = the model's ground height, 0 without ground): kTargetPathName, the points of
/// `path` (drawn whole), and kCentroidTrackName, plan_centroid_m of every frame (per_frame, drawn up
/// to the current frame).
/// Throws tendyn::Error for a bad model, options or path (fewer than 2 points, coinciding
/// points), SimulationError as simulate does. Cost: one simulation plus O(nrod + path points) per frame.
Scene simulate_plan_scene(const tensegrity::Model& planned, const tensegrity::SimulationOptions& options, const tensegrity::PlanPath& path,
                          double frame_interval_s);

}  // namespace tendyn::viz
