// Viewer scene of a tree-structured robot (docs/VIEWER.md): points = each link's frame origin and
// centre of mass; links drawn as capsules from a link's origin to each child's origin, and from a
// leaf's origin to its centre of mass; no ground plane (the tree module has no contact); COM
// track; energies (kinetic, gravitational, total; elastic 0: a tree has no springs).
#pragma once
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>
#include <tendyn/viz/scene.hpp>

namespace tendyn::viz {

/// The fixed part of the scene; the capsule radius is 4 % of the robot's size at q (>= 5 mm).
Scene make_scene(const tree::Model& model, const Eigen::VectorXd& q);

/// Appends a frame for (q, v) at time t_s. Cost: forward kinematics + energies, O(n).
void add_tree_frame(Scene& scene, const tree::Model& model, tree::Data& data, double t_s, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v);

}  // namespace tendyn::viz
