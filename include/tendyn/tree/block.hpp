// Block-matrix kinematics and dynamics of a tree mechanism through its reachability matrix D
// (document 003: Kovalchuk, Kulakov, Semenov, "Block-matrix equations of motion of robot
// mechanisms with a tree kinematic structure", 2008, eqs. (8)-(24)). The formulas were rebuilt
// from their definitions (the OCR of the source is damaged); derivations are in docs/TREE.md.
//
// Every quantity is a block vector/matrix over all N links, all in world coordinates W:
//   w = B_w q'           angular velocities            B_w = D3 Z sigma                 (9)-(10)
//   v_o = B_v q'         velocities of link origins    B_v = -L(l_D) Z sigma + D3 Z (E-sigma) (12)-(13)
//   v_c = B_c q'         COM velocities                B_c = -L(c_D) Z sigma + D3 Z (E-sigma)
//   w' = B_w q'' + D3 Z' sigma q'                                                       (16)
//   a_o = B_v q'' - L(l'_D) Z sigma q' - L(l_D) Z' sigma q' + D3 Z' (E-sigma) q'        (17)
//   a_c = B_c q'' - L(c'_D) Z sigma q' - L(c_D) Z' sigma q' + D3 Z' (E-sigma) q'        (18)
//   f = D^T (m a_c - m g - f_ext)                                                       (19)
//   n = -L(c_D)^T (m a_c - m g - f_ext) + D^T (J w' + w x J w - n_ext)                  (22)
//   tau = sigma Z^T n + (E - sigma) Z^T f                                               (24)
//   A(q) q'' + b(q, q') = tau
// with D3 = D (x) I3, Z = blockdiag of joint axes z_i (3N x nv), sigma = 1 for revolute, 0 for
// prismatic, L(x_D) the 3N x 3N block matrix of skew matrices Lambda(x_ik) d_ik, c_D blocks
// c_i - o_k, l_D blocks o_i - o_k, Z' = blocks w_f(i) x z_i (w_f = parent angular velocity).
//
// Restriction: only fixed, revolute and prismatic joints (a floating base as the document's
// fictitious 6-joint chain: see convert_base). Cost: O(N^2 nv) dense block products (the point
// of the formulation is its universality, not its speed; see docs/BENCHMARKS.md).
// Allocation: all matrices are sized at BlockData creation.
#pragma once
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>

#include <Eigen/Core>

#include <vector>

namespace tendyn::tree {

/// Most links for the block formulation: BlockData holds seven dense 3N x 3N matrices (about
/// 130 MB at 512 links); larger models use the recursive algorithms.
constexpr int kMaxBlockLinks = 512;

struct BlockData {
  /// Throws tendyn::Error if the model has a free joint or more than kMaxBlockLinks links
  /// (checked before anything is allocated).
  explicit BlockData(const Model& model);

  Data fk;                             ///< poses from forward kinematics
  Eigen::MatrixXd D3;                  ///< (3N x 3N) D (x) I3
  Eigen::MatrixXd P3;                  ///< (3N x 3N) (E - D^-1) (x) I3: selects the parent's block
  Eigen::VectorXd sigma;               ///< (nv) 1 revolute, 0 prismatic
  Eigen::MatrixXd Z;                   ///< (3N x nv) joint axes z_i in W at block row of the link
  Eigen::MatrixXd Zs, Zt;              ///< (3N x nv) Z sigma, Z (E - sigma)
  Eigen::MatrixXd Zdot;                ///< (3N x nv) dz_i/dt = w_f(i) x z_i
  Eigen::MatrixXd Lc;                  ///< (3N x 3N) blocks d_ik Lambda(c_i - o_k)
  Eigen::MatrixXd Ll;                  ///< (3N x 3N) blocks d_ik Lambda(o_i - o_k)
  Eigen::MatrixXd Lcdot;               ///< (3N x 3N) blocks d_ik Lambda(v_c,i - v_o,k)
  Eigen::MatrixXd Lldot;               ///< (3N x 3N) blocks d_ik Lambda(v_o,i - v_o,k) (block_accelerations)
  Eigen::MatrixXd Bw, Bv, Bc;          ///< (3N x nv)
  Eigen::MatrixXd Jw;                  ///< (3N x 3N) block diagonal inertia about the COMs in W
  Eigen::VectorXd m3;                  ///< (3N) link masses repeated
  Eigen::VectorXd o, c;                ///< (3N) link origins, COMs in W [m]
  Eigen::VectorXd w, vo, vc, wf;       ///< (3N) velocities [rad/s, m/s]
  Eigen::VectorXd wdot_bias, ac_bias;  ///< (3N) accelerations at q'' = 0
  Eigen::VectorXd wdot, ac;            ///< (3N) accelerations for the last inverse dynamics / block_accelerations
  Eigen::VectorXd ao;                  ///< (3N) accelerations of the link origins (block_accelerations) [m/s^2]
  Eigen::VectorXd F, N;                ///< (3N) d'Alembert forces/moments per link (m a - m g - f_ext, ...)
  Eigen::VectorXd f, n;                ///< (3N) force/moment on each link from its parent, (19)/(22)
  Eigen::MatrixXd K, Kw, Nm, Fm;       ///< (3N x nv) scratch for A
  Eigen::MatrixXd A;                   ///< (nv x nv) mass matrix
  Eigen::VectorXd b;                   ///< (nv) bias b(q, q')
  Eigen::VectorXd tau;                 ///< (nv) drive forces (24)
  Eigen::VectorXd ddq;                 ///< (nv) forward dynamics result
};

/// Block kinematics (8)-(18): fills Z, L matrices, B_w, B_v, B_c, w, v_o, v_c and the bias
/// accelerations. q (nq), qd (nv).
void block_kinematics(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd);

/// Block accelerations of all links for q'' (nv): angular w' (16), link origins a_o (17)
///   a_o = B_v q'' - L(l'_D) Z sigma q' - L(l_D) Z' sigma q' + D3 Z' (E - sigma) q',
/// l'_D blocks v_o,i - v_o,k, and COMs a_c (18). Fills bd.wdot, bd.ao, bd.ac (W, absolute).
void block_accelerations(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         const Eigen::VectorXd& qdd);

/// Inverse dynamics by d'Alembert through D, (19), (22), (24). Returns bd.tau; bd.f and bd.n hold
/// the force and moment (about the parent-joint origin o_i) exerted on each link by its parent.
const Eigen::VectorXd& block_inverse_dynamics(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                              const Eigen::VectorXd& qdd, const std::vector<LinkWrench>& fext = {});

/// Equation of motion A(q) q'' + b(q, q') = tau: fills bd.A and bd.b (gravity and fext in b).
void block_eom(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
               const std::vector<LinkWrench>& fext = {});

/// Forward dynamics: q'' = A^-1 (tau - b) by Cholesky. Returns bd.ddq. Throws tendyn::Error if A
/// is not positive definite.
const Eigen::VectorXd& block_forward_dynamics(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                              const Eigen::VectorXd& tau, const std::vector<LinkWrench>& fext = {});

}  // namespace tendyn::tree
