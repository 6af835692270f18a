// Mutable workspace of the recursive tree algorithms. Everything is sized once from the Model;
// rnea/crba/aba/energies then run without heap allocation. One Data per thread.
#pragma once
#include <tendyn/tree/model.hpp>

#include <Eigen/Core>

#include <vector>

namespace tendyn::tree {

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
  // crba/crba_upper fill X_WL for Model::crba_links only and leave X_PL as it was. Spatial motion
  // vectors are (angular; linear), force vectors (moment; force), both in the link frame at its
  // origin. Without external wrenches rnea and aba treat each fixed cluster as one body
  // (Model::merge_kind): F, IA and pA of links of kind kCarried hold only what moving links below
  // pass on, and those of links of kind kSkipped are not written. The constants derived from the
  // model (link inertias, fixed clusters) live in the Model.
  std::vector<SE3> X_PL;       ///< (nlinks) link frame in parent frame
  std::vector<SE3> X_WL;       ///< (nlinks) link frame in world
  std::vector<Vector6d> V;     ///< (nlinks) link spatial velocity
  std::vector<Vector6d> A;     ///< (nlinks) link spatial acceleration (RNEA: includes -g)
  std::vector<Vector6d> F;     ///< (nlinks) force transmitted from parent (RNEA)
  std::vector<Vector6d> Fext;  ///< (nlinks) external wrench in link frame
  /// (nlinks) composite inertia of the subtree (CRBA), world coordinates, about the world origin.
  /// Written for the links in Model::crba_links only: a link on a fixed joint is carried by the
  /// moving link above it (Model::I_cluster), and a subtree fixed to the world adds nothing to M.
  std::vector<Inertia> Ic;
  std::vector<Matrix6d> IA;                       ///< (nlinks) articulated inertia (ABA)
  std::vector<Vector6d> pA;                       ///< (nlinks) articulated bias force (ABA)
  std::vector<Vector6d> c;                        ///< (nlinks) velocity-product acceleration (ABA)
  std::vector<Eigen::Matrix<double, 6, 6>> U;     ///< (nlinks) IA S (first nv columns used)
  std::vector<Eigen::Matrix<double, 6, 6>> Dinv;  ///< (nlinks) (S^T IA S)^-1 (nv x nv used)
  std::vector<Vector6d> u;                        ///< (nlinks) tau - S^T pA (first nv used)
  std::vector<double> msub;                       ///< (nlinks) subtree mass
  /// (6 x nv) joint motion subspace columns in world coordinates at the world origin (CRBA)
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_W;
  std::vector<Eigen::Vector3d> hsub;  ///< (nlinks) subtree first moment in world [kg m]

  Eigen::VectorXd tau;                              ///< (nv) RNEA output [N m | N]
  Eigen::MatrixXd M;                                ///< (nv x nv) CRBA output (full symmetric; crba_upper: upper triangle)
  Eigen::VectorXd ddq;                              ///< (nv) ABA output
  Eigen::MatrixXd J_com;                            ///< (3 x nv) centre-of-mass Jacobian
  Eigen::Vector3d p_com = Eigen::Vector3d::Zero();  ///< COM in world [m]
};

/// The workspace of the recursive algorithms for `model` (a validated Model: ModelBuilder::build
/// or validate()). All storage is allocated here, O(nlinks + nv^2); the algorithms then run
/// without heap allocation. One Data per thread; a Data belongs to one model (the C++ algorithms
/// do not check this; the Python bindings do).
[[nodiscard]] Data make_data(const Model& model);

}  // namespace tendyn::tree
