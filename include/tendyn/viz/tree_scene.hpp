// Viewer scene of a tree-structured robot (docs/VIEWER.md): points = each link's frame origin and
// centre of mass; links drawn as capsules from a link's origin to each child's origin, and from a
// leaf's origin to its centre of mass; a reference floor (the tree module has no contact: bodies
// pass through it); the axes of the revolute and prismatic joints; COM track; energies (kinetic,
// gravitational, total; elastic 0: a tree has no springs); the plots q(t), qd(t) and tau(t).
#pragma once
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>
#include <tendyn/viz/scene.hpp>

#include <string>
#include <vector>

namespace tendyn::viz {

/// Titles of the three joint plots of a tree scene (plot ids "q", "qd", "tau").
inline constexpr const char* kJointPositionPlotTitle = "joint positions q";
inline constexpr const char* kJointVelocityPlotTitle = "joint velocities qd";
inline constexpr const char* kJointTorquePlotTitle = "joint torques tau";

/// Names of the nq position coordinates: the joint's name for a 1-dof joint, "<joint>.x|y|z|qw|qx|qy|qz"
/// for a free joint (position [m], unit quaternion). Fixed joints have none.
std::vector<std::string> tree_q_names(const tree::Model& model);
/// Names of the nv velocity coordinates (also those of the torques): the joint's name for a 1-dof
/// joint, "<joint>.wx|wy|wz|vx|vy|vz" for a free joint (w_L [rad/s], v_L [m/s]).
std::vector<std::string> tree_v_names(const tree::Model& model);

/// The fixed part of the scene at configuration q (nq):
/// - capsule radius 4 % of the robot's size at q (>= 5 mm);
/// - ground_z_m = min(0, lowest link origin or centre of mass at q) [m]: a reference floor only;
/// - joints: every revolute and prismatic joint that is not part of the document's fictitious
///   floating-base chain, at its link's origin, with its q and v coordinate index;
/// - three plots with ids "q", "qd", "tau" (titles above; one series per coordinate, names
///   tree_q_names / tree_v_names), filled by add_tree_frame.
/// Throws tendyn::Error when q has the wrong size. Cost: one forward kinematics, O(nlinks).
Scene make_scene(const tree::Model& model, const Eigen::VectorXd& q);

/// Appends a frame for (q, v, tau) at time t_s: link origins and centres of mass, COM, energies,
/// the world-frame joint axes (R_WL * axis of the joint's link) and q, v, tau to the three plots.
/// q (nq), v (nv), tau (nv) [N m | N]: the torques applied at that state (tree::SimulationResult::tau).
/// Throws tendyn::Error on a size mismatch or a non-finite value. Cost: forward kinematics +
/// energies, O(nlinks).
void add_tree_frame(Scene& scene, const tree::Model& model, tree::Data& data, double t_s, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v, const Eigen::VectorXd& tau);

}  // namespace tendyn::viz
