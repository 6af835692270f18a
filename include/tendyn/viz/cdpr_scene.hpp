// Viewer scene of a cable-driven parallel robot (docs/VIEWER.md): points = the cable anchors
// (frame or carriage), the platform attachment points and the platform reference point; cables
// from anchor to attachment; towers drawn as rods from the ground under each raised anchor
// (spatial robots); the platform as faces through its attachment points (one face per level of
// the platform frame's z, points ordered by angle). COM track = platform centre of mass.
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/viz/scene.hpp>

#include <span>

namespace tendyn::viz {

/// The fixed part of the scene. Cost O(n log n).
Scene make_scene(const cdpr::Model& model);

/// Appends a frame: `geometry` filled by cdpr::update_geometry for `pose` (attachment points),
/// tensions f [N] (n values), `p_WA` the anchors [m] (3 x n, e.g. with carriages moved; null: the
/// model's), `strain` (n values, may be empty: zeros), optional energies.
void add_cdpr_frame(Scene& scene, const cdpr::Model& model, const cdpr::Data& geometry, const cdpr::Pose& pose, double t_s,
                    std::span<const double> tension_N, std::span<const double> strain = {}, const Eigen::Matrix3Xd* p_WA = nullptr,
                    const FrameEnergy* energy = nullptr);

/// The scene of a workspace evaluation: the robot (make_scene) in one frame at `pose` (cables at
/// zero tension) and one cloud "workspace" of the grid points: every inside point with its
/// capacity margin as value (NaN when not computed), the boundary points (grid.boundary)
/// highlighted; with `outside`, also the outside, undefined and undecided points, without a value
/// (the viewer draws them faint). Throws tendyn::Error when the grid result's sizes disagree or a
/// cable has zero length at `pose`. Cost O(N).
Scene workspace_scene(const cdpr::Model& model, const cdpr::Pose& pose, const cdpr::WorkspaceGridResult& grid,
                      const std::string& value_label, bool outside = false);

}  // namespace tendyn::viz
