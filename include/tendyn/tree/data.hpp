// Mutable workspace of the recursive tree algorithms. Everything is sized once from the Model;
// rnea/crba/aba/energies then run without heap allocation. One Data per thread.
#pragma once
#include <tendyn/tree/model.hpp>

#include <Eigen/Core>

#include <vector>

namespace tendyn::tree {

using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;

/// Rigid transform: x_A = R x_B + p (frame B expressed in frame A).
struct SE3 {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
};

/// Rigid-body inertia about a frame origin: mass m [kg], first moment h = m p_C [kg m],
/// rotational inertia about the origin I_O [kg m^2].
struct Inertia {
  double m = 0.0;
  Eigen::Vector3d h = Eigen::Vector3d::Zero();
  Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
};

/// External wrench on a link: force f_W [N] acting at the link's centre of mass and a couple
/// n_W [N m], both in world coordinates.
struct LinkWrench {
  Eigen::Vector3d f_W = Eigen::Vector3d::Zero();
  Eigen::Vector3d n_W = Eigen::Vector3d::Zero();
};

struct Data {
  /// Sized for `model` (the same as make_data(model)).
  explicit Data(const Model& model);

  // Kinematics: filled by forward_kinematics and by every algorithm for every link, except that
  // crba/crba_upper fill X_WL for data.crba_links only and leave X_PL as it was. Spatial motion
  // vectors are (angular; linear), force vectors (moment; force), both in the link frame at its
  // origin. Without external wrenches rnea and aba treat each fixed cluster as one body
  // (merge_kind): F, IA and pA of links with merge_kind 1 hold only what moving links below pass
  // on, and those of links with merge_kind 2 are not written.
  std::vector<SE3> X_PL;        ///< (nlinks) link frame in parent frame
  std::vector<SE3> X_WL;        ///< (nlinks) link frame in world
  std::vector<Vector6d> V;      ///< (nlinks) link spatial velocity
  std::vector<Vector6d> A;      ///< (nlinks) link spatial acceleration (RNEA: includes -g)
  std::vector<Vector6d> F;      ///< (nlinks) force transmitted from parent (RNEA)
  std::vector<Vector6d> Fext;   ///< (nlinks) external wrench in link frame
  std::vector<Inertia> I_L;     ///< (nlinks) link inertia about link origin (constant)
  /// (nlinks) composite inertia of the subtree (CRBA), world coordinates, about the world origin.
  /// Written for the links in crba_links only: a link on a fixed joint is carried by the moving
  /// link above it (I_cluster), and a subtree fixed to the world adds nothing to M.
  std::vector<Inertia> Ic;
  /// (nlinks) inertia of link i together with every link attached below it through fixed joints
  /// only (its fixed cluster), about link i's origin in link i's axes. Constant, from the model.
  /// Entries of links that are themselves on a fixed joint below another link are not used.
  std::vector<Inertia> I_cluster;
  /// Links whose composite inertia the CRBA forms, in increasing order: every link with a moving
  /// joint (the links on fixed joints are merged into them through I_cluster, as Pinocchio's URDF
  /// parser merges them into bodies). Constant, from the model.
  std::vector<int> crba_links;
  /// (nlinks) for a link in crba_links, the link in crba_links whose composite inertia receives its
  /// own (its nearest ancestor with a moving joint), -1 for none. Constant, from the model.
  std::vector<int> crba_parent;
  /// (nlinks) for a link in crba_links, its joint frame in the frame of crba_parent (in world when
  /// crba_parent is -1): the fixed placements between them composed. Constant, from the model.
  std::vector<SE3> X_CJ;
  /// (nlinks) the part a link plays when rnea and aba run without external wrenches: 0 its inertia
  /// is its cluster's (I_cluster); 1 it is on a fixed joint below another link, its inertia is in
  /// that link's cluster and it only passes on the forces of moving links below it; 2 nothing
  /// moving depends on its force terms (on a fixed joint with only fixed joints below it, or fixed
  /// to the world through fixed joints), which are skipped. Constant, from the model.
  std::vector<signed char> merge_kind;
  std::vector<Matrix6d> IA;     ///< (nlinks) articulated inertia (ABA)
  std::vector<Vector6d> pA;     ///< (nlinks) articulated bias force (ABA)
  std::vector<Vector6d> c;      ///< (nlinks) velocity-product acceleration (ABA)
  std::vector<Eigen::Matrix<double, 6, 6>> U;  ///< (nlinks) IA S (first nv columns used)
  std::vector<Eigen::Matrix<double, 6, 6>> Dinv;  ///< (nlinks) (S^T IA S)^-1 (nv x nv used)
  std::vector<Vector6d> u;      ///< (nlinks) tau - S^T pA (first nv used)
  std::vector<double> msub;     ///< (nlinks) subtree mass
  /// (6 x nv) joint motion subspace columns in world coordinates at the world origin (CRBA)
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_W;
  /// (nv) previous velocity coordinate on the path to the root (Featherstone's lambda over
  /// coordinates: the preceding coordinate of the same joint, else the last coordinate of the
  /// nearest moving ancestor), -1 for none. Constant, from the model.
  std::vector<int> v_parent;
  std::vector<Eigen::Vector3d> hsub;  ///< (nlinks) subtree first moment in world [kg m]

  Eigen::VectorXd tau;    ///< (nv) RNEA output [N m | N]
  Eigen::MatrixXd M;      ///< (nv x nv) CRBA output (full symmetric; crba_upper: upper triangle)
  Eigen::VectorXd ddq;    ///< (nv) ABA output
  Eigen::MatrixXd J_com;  ///< (3 x nv) centre-of-mass Jacobian
  Eigen::Vector3d p_com = Eigen::Vector3d::Zero();  ///< COM in world [m]
};

/// The workspace of the recursive algorithms for `model` (a validated Model: ModelBuilder::build
/// or validate()). All storage is allocated here, O(nlinks + nv^2); the algorithms then run
/// without heap allocation. One Data per thread; a Data belongs to one model (the C++ algorithms
/// do not check this; the Python bindings do).
[[nodiscard]] Data make_data(const Model& model);

}  // namespace tendyn::tree
