// Recursive O(n) algorithms on a tree::Model (Featherstone, "Rigid Body Dynamics Algorithms",
// Springer 2008: RNEA Table 5.1, CRBA Table 6.2, ABA Table 7.1). Spatial vectors in link
// coordinates; motion = (angular; linear), force = (moment; force).
//
// Common inputs: q (nq) joint positions [rad | m; free joints: p [m] + quaternion w,x,y,z],
// v (nv) joint velocities [rad/s | m/s; free: body w, body v], fext (empty or nlinks) external
// wrenches (LinkWrench: force at the COM and couple, world coordinates). Gravity is model.gravity_W.
// Sizes are checked (tendyn::Error). No heap allocation after Data construction.
//
// Fixed joints: the CRBA always, and RNEA and ABA when fext is empty, treat a link together with
// the links fixed below it as one rigid body (constant cluster inertia, Model::I_cluster) and skip
// the force terms of links fixed to the world, as Pinocchio's URDF parser merges such links into
// bodies. The results equal the link-by-link sums to round-off (last bits); with fext given, RNEA
// and ABA visit every link with its own inertia and wrench.
#pragma once
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>

#include <Eigen/Core>

#include <string>
#include <vector>

namespace tendyn::tree {

/// Link poses X_PL and X_WL for configuration q. Cost O(n).
void forward_kinematics(const Model& model, Data& data, const Eigen::VectorXd& q);

/// Inverse dynamics: tau = M(q) a + b(q, v) - J^T fext (RNEA). Returns data.tau (nv) [N m | N].
/// Cost O(n).
const Eigen::VectorXd& rnea(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                            const std::vector<LinkWrench>& fext = {});

/// Bias forces b(q, v) = C(q, v) v + g(q) - J^T fext = rnea(q, v, 0). Returns data.tau.
/// Uses data.ddq as its zero acceleration (sets it to zero).
const Eigen::VectorXd& nonlinear_effects(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                         const std::vector<LinkWrench>& fext = {});

/// Joint-space mass matrix M(q) (nv x nv, symmetric positive definite for a model whose every
/// movable subtree has mass) by the composite-rigid-body algorithm. Returns data.M (both
/// triangles). Cost O(n d), d = depth: composite inertias (m, h, I) accumulated in world
/// coordinates about the world origin, then M_jc = S_j^T (I^c_i S_c) for every coordinate c of
/// link i and every coordinate j on its path to the root (Featherstone 2008, Table 6.2, evaluated
/// in world coordinates, so that the column forces need no transform from link to link). Links
/// on fixed joints enter through their carrier's constant cluster inertia (Model::I_cluster), so
/// the pass visits only model.crba_links; M differs from the link-by-link sum in the last bits
/// only. Fills data.Ic (for model.crba_links), data.S_W.
const Eigen::MatrixXd& crba(const Model& model, Data& data, const Eigen::VectorXd& q);

/// The same M(q) as crba, written to the upper triangle of data.M only (diagonal included; the
/// strictly lower triangle is left as it was): for callers that use a symmetric view, e.g.
/// data.M.selfadjointView<Eigen::Upper>() or an LDL^T of the upper triangle. The upper triangle
/// is bit-identical to crba's. Returns data.M.
const Eigen::MatrixXd& crba_upper(const Model& model, Data& data, const Eigen::VectorXd& q);

/// Forward dynamics: solves M(q) ddq = tau - b(q, v) with the articulated-body algorithm.
/// Returns data.ddq (nv). Cost O(n). Throws tendyn::Error if an articulated inertia is singular
/// (a massless subtree on a movable joint).
const Eigen::VectorXd& aba(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                           const std::vector<LinkWrench>& fext = {});

/// Kinetic energy T = 1/2 sum_i V_i^T I_i V_i [J]. Cost O(n).
double kinetic_energy(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

/// Potential energy of gravity U = -sum_i m_i g . p_WC_i [J] (zero at the world origin).
double potential_energy(const Model& model, Data& data, const Eigen::VectorXd& q);

/// Centre of mass p_WCoM [m] (also in data.p_com). Cost O(n).
Eigen::Vector3d center_of_mass(const Model& model, Data& data, const Eigen::VectorXd& q);

/// Centre-of-mass Jacobian J_com (3 x nv): dp_WCoM/dt = J_com v. Returns data.J_com. Cost O(n d).
const Eigen::MatrixXd& jacobian_center_of_mass(const Model& model, Data& data, const Eigen::VectorXd& q);

/// Total momentum about the world origin, world coordinates: (angular L_O [N m s]; linear P [N s]).
Vector6d momentum_world(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

/// Time derivative of q for velocity v (free joints: dp_PL/dt = R v_L, quaternion
/// dq/dt = 1/2 q (0, w_L)). qdot has size nq. Cost O(n).
void velocity_to_qdot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& qdot);

/// Normalises the quaternions of free joints in place.
void normalize_configuration(const Model& model, Eigen::VectorXd& q);

/// Throws tendyn::Error when `x`, computed by one of the algorithms above from finite inputs, has
/// an entry that is not finite: the computation overflowed the double range (inputs such as
/// q'' = 1e308 or v = 1e200 are finite, but M a or v^2 are not). x is a vector over the velocity
/// coordinates (nv: tau, b, ddq) or the nv x nv mass matrix. The message starts with `where`
/// (e.g. "tree inverse"), names `quantity` (e.g. "tau (joint forces)"), the first bad entry by
/// its coordinate ("joint 'elbow'", or "joint 'base' coordinate 4 of 6" for a free joint) and
/// its value (inf, -inf or nan), and says that it overflowed. Nothing happens when every entry
/// is finite. Callers check only results of finite inputs: nan in, nan out is not an overflow.
/// Cost O(size of x), no allocation unless it throws.
void check_finite_result(const Model& model, const Eigen::Ref<const Eigen::MatrixXd>& x, const std::string& where,
                         const std::string& quantity);

}  // namespace tendyn::tree
