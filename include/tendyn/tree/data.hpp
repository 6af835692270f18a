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

  // Kinematics (filled by forward_kinematics and by every algorithm). Spatial motion vectors are
  // (angular; linear), force vectors (moment; force), both in the link frame at its origin.
  std::vector<SE3> X_PL;        ///< (nlinks) link frame in parent frame
  std::vector<SE3> X_WL;        ///< (nlinks) link frame in world
  std::vector<Vector6d> V;      ///< (nlinks) link spatial velocity
  std::vector<Vector6d> A;      ///< (nlinks) link spatial acceleration (RNEA: includes -g)
  std::vector<Vector6d> F;      ///< (nlinks) force transmitted from parent (RNEA)
  std::vector<Vector6d> Fext;   ///< (nlinks) external wrench in link frame
  std::vector<Inertia> I_L;     ///< (nlinks) link inertia about link origin (constant)
  std::vector<Inertia> Ic;      ///< (nlinks) composite inertia (CRBA)
  std::vector<Matrix6d> IA;     ///< (nlinks) articulated inertia (ABA)
  std::vector<Vector6d> pA;     ///< (nlinks) articulated bias force (ABA)
  std::vector<Vector6d> c;      ///< (nlinks) velocity-product acceleration (ABA)
  std::vector<Eigen::Matrix<double, 6, 6>> U;  ///< (nlinks) IA S (first nv columns used)
  std::vector<Eigen::Matrix<double, 6, 6>> Dinv;  ///< (nlinks) (S^T IA S)^-1 (nv x nv used)
  std::vector<Vector6d> u;      ///< (nlinks) tau - S^T pA (first nv used)
  std::vector<double> msub;     ///< (nlinks) subtree mass
  std::vector<Eigen::Vector3d> hsub;  ///< (nlinks) subtree first moment in world [kg m]

  Eigen::VectorXd tau;    ///< (nv) RNEA output [N m | N]
  Eigen::MatrixXd M;      ///< (nv x nv) CRBA output (full symmetric)
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
