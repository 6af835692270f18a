// Block-matrix formulation of document 003 (see include/tendyn/tree/block.hpp, docs/TREE.md).
#include <tendyn/core/error.hpp>
#include <tendyn/tree/block.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <string>

#include "spatial.hpp"

namespace tendyn::tree {

namespace {
using detail::skew;

void check_one_dof(const Model& m) {
  if (!m.one_dof_joints_only())
    throw Error("tree: block-matrix formulation of model '" + m.name +
                "' needs 1-DOF joints: load it with the floating base as the fictitious 6-joint "
                "chain (BaseMode::kFictitious, CLI --base fictitious)");
}

void check_block_size(const Model& m) {
  if (m.nlinks() > kMaxBlockLinks)
    throw Error("tree: block-matrix formulation of model '" + m.name + "': " + std::to_string(m.nlinks()) +
                " links, more than its limit of " + std::to_string(kMaxBlockLinks) +
                " (dense 3N x 3N matrices); use the recursive algorithms (--method recursive)");
}

// Fills the blocks d_ik Lambda(x_i - y_k) of a 3N x 3N block matrix.
void fill_lambda(const Model& m, const Eigen::VectorXd& x, const Eigen::VectorXd& y, Eigen::MatrixXd& L) {
  const int N = m.nlinks();
  for (int i = 0; i < N; ++i)
    for (int k = 0; k <= i; ++k)
      if (m.reachability(i, k)) L.block<3, 3>(3 * i, 3 * k) = skew(x.segment<3>(3 * i) - y.segment<3>(3 * k));
}

void check_fext(const Model& m, const std::vector<LinkWrench>& fext) {
  if (!fext.empty() && static_cast<int>(fext.size()) != m.nlinks())
    throw Error("tree: fext has " + std::to_string(fext.size()) + " entries, model '" + m.name + "' has " + std::to_string(m.nlinks()) +
                " links");
}

// d'Alembert loads per link: F = m (a_c - g) - f_ext, N = J w' + w x J w - n_ext.
void dalembert_loads(const Model& m, BlockData& bd, const Eigen::VectorXd& ac, const Eigen::VectorXd& wdot,
                     const std::vector<LinkWrench>& fext) {
  const int N = m.nlinks();
  bd.N.noalias() = bd.Jw * wdot;
  for (int i = 0; i < N; ++i) {
    const Eigen::Vector3d wi = bd.w.segment<3>(3 * i);
    bd.F.segment<3>(3 * i) = m.links[i].mass_kg * (ac.segment<3>(3 * i) - m.gravity_W);
    bd.N.segment<3>(3 * i) += wi.cross(bd.Jw.block<3, 3>(3 * i, 3 * i) * wi);
    if (!fext.empty()) {
      bd.F.segment<3>(3 * i) -= fext[i].f_W;
      bd.N.segment<3>(3 * i) -= fext[i].n_W;
    }
  }
}

// Projects the loads through D, (19), (22), (24): result into out (nv).
void project_loads(BlockData& bd, Eigen::VectorXd& out) {
  bd.f.noalias() = bd.D3.transpose() * bd.F;
  bd.n.noalias() = bd.D3.transpose() * bd.N;
  bd.n.noalias() -= bd.Lc.transpose() * bd.F;
  out.noalias() = bd.Zs.transpose() * bd.n;
  out.noalias() += bd.Zt.transpose() * bd.f;
}

}  // namespace

// The size check runs before fk (and everything else) allocates.
BlockData::BlockData(const Model& model) : fk((check_block_size(model), model)) {
  check_one_dof(model);
  const int nl = model.nlinks(), nv = model.nv, n3 = 3 * nl;
  D3 = Eigen::MatrixXd::Zero(n3, n3);
  const Eigen::MatrixXd Dd = model.reachability.cast<double>();
  const Eigen::MatrixXd Pd = Eigen::MatrixXd::Identity(nl, nl) - Dd.inverse();
  P3 = Eigen::MatrixXd::Zero(n3, n3);
  for (int i = 0; i < nl; ++i)
    for (int k = 0; k < nl; ++k) {
      D3.block<3, 3>(3 * i, 3 * k) = Dd(i, k) * Eigen::Matrix3d::Identity();
      P3.block<3, 3>(3 * i, 3 * k) = Pd(i, k) * Eigen::Matrix3d::Identity();
    }
  sigma = Eigen::VectorXd::Zero(nv);
  for (const Joint& j : model.joints)
    if (j.type == JointType::kRevolute) sigma[j.idx_v] = 1.0;
  Z = Zs = Zt = Zdot = Bw = Bv = Bc = K = Kw = Nm = Fm = Eigen::MatrixXd::Zero(n3, nv);
  Lc = Ll = Lcdot = Lldot = Jw = Eigen::MatrixXd::Zero(n3, n3);
  m3.resize(n3);
  for (int i = 0; i < nl; ++i) m3.segment<3>(3 * i).setConstant(model.links[i].mass_kg);
  o = c = w = vo = vc = wf = wdot_bias = ac_bias = wdot = ac = ao = F = N = f = n = Eigen::VectorXd::Zero(n3);
  A = Eigen::MatrixXd::Zero(nv, nv);
  b = tau = ddq = Eigen::VectorXd::Zero(nv);
}

void block_kinematics(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  model.check_q(q);
  model.check_v(qd, "qd");
  forward_kinematics(model, bd.fk, q);
  const int Nl = model.nlinks();
  for (int i = 0; i < Nl; ++i) {
    const SE3& X = bd.fk.X_WL[i];
    bd.o.segment<3>(3 * i) = X.p;
    bd.c.segment<3>(3 * i) = X.R * model.links[i].p_LC_m + X.p;
    bd.Jw.block<3, 3>(3 * i, 3 * i).noalias() = X.R * model.links[i].inertia_C_kgm2 * X.R.transpose();
    const Joint& j = model.joints[i];
    if (j.nv == 1) {
      const Eigen::Vector3d z = X.R * j.axis;
      bd.Z.block<3, 1>(3 * i, j.idx_v) = z;
      bd.Zs.block<3, 1>(3 * i, j.idx_v) = bd.sigma[j.idx_v] * z;
      bd.Zt.block<3, 1>(3 * i, j.idx_v) = (1.0 - bd.sigma[j.idx_v]) * z;
    }
  }
  fill_lambda(model, bd.c, bd.o, bd.Lc);
  fill_lambda(model, bd.o, bd.o, bd.Ll);
  // (10), (13) and the COM analogue.
  bd.Bw.noalias() = bd.D3 * bd.Zs;
  bd.Bv.noalias() = bd.D3 * bd.Zt;
  bd.Bv.noalias() -= bd.Ll * bd.Zs;
  bd.Bc.noalias() = bd.D3 * bd.Zt;
  bd.Bc.noalias() -= bd.Lc * bd.Zs;
  // (9), (12).
  bd.w.noalias() = bd.Bw * qd;
  bd.vo.noalias() = bd.Bv * qd;
  bd.vc.noalias() = bd.Bc * qd;
  bd.wf.noalias() = bd.P3 * bd.w;  // (15): angular velocities of the parent links
  for (int i = 0; i < Nl; ++i) {
    const Joint& j = model.joints[i];
    if (j.nv == 1) bd.Zdot.block<3, 1>(3 * i, j.idx_v) = bd.wf.segment<3>(3 * i).cross(bd.Z.block<3, 1>(3 * i, j.idx_v));  // (14)
  }
  fill_lambda(model, bd.vc, bd.vo, bd.Lcdot);
  // (16): w' = B_w q'' + D3 Z' sigma q'.
  bd.K.noalias() = bd.D3 * bd.Zdot;  // scratch: D3 Z'
  bd.wdot_bias.noalias() = bd.K * bd.sigma.cwiseProduct(qd);
  // (18): a_c = B_c q'' - L(c'_D) Z sigma q' - L(c_D) Z' sigma q' + D3 Z' (E - sigma) q'.
  bd.ac_bias.noalias() = bd.K * (qd - bd.sigma.cwiseProduct(qd));
  bd.F.noalias() = bd.Zs * qd;  // scratch: Z sigma q'
  bd.ac_bias.noalias() -= bd.Lcdot * bd.F;
  bd.F.noalias() = bd.Zdot * bd.sigma.cwiseProduct(qd);
  bd.ac_bias.noalias() -= bd.Lc * bd.F;
}

void block_accelerations(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         const Eigen::VectorXd& qdd) {
  model.check_v(qdd, "qdd");
  block_kinematics(model, bd, q, qd);
  bd.wdot = bd.wdot_bias;
  bd.wdot.noalias() += bd.Bw * qdd;
  bd.ac = bd.ac_bias;
  bd.ac.noalias() += bd.Bc * qdd;
  // (17): as (18) with l_D (origin to origin) in place of c_D.
  fill_lambda(model, bd.vo, bd.vo, bd.Lldot);
  const Eigen::VectorXd sq = bd.sigma.cwiseProduct(qd);
  bd.ao.noalias() = bd.Bv * qdd;
  bd.ao.noalias() += bd.D3 * (bd.Zdot * (qd - sq));
  bd.ao.noalias() -= bd.Lldot * (bd.Zs * qd);
  bd.ao.noalias() -= bd.Ll * (bd.Zdot * sq);
}

const Eigen::VectorXd& block_inverse_dynamics(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                              const Eigen::VectorXd& qdd, const std::vector<LinkWrench>& fext) {
  model.check_v(qdd, "qdd");
  check_fext(model, fext);
  block_kinematics(model, bd, q, qd);
  bd.wdot = bd.wdot_bias;
  bd.wdot.noalias() += bd.Bw * qdd;
  bd.ac = bd.ac_bias;
  bd.ac.noalias() += bd.Bc * qdd;
  dalembert_loads(model, bd, bd.ac, bd.wdot, fext);
  project_loads(bd, bd.tau);
  return bd.tau;
}

void block_eom(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
               const std::vector<LinkWrench>& fext) {
  check_fext(model, fext);
  block_kinematics(model, bd, q, qd);
  // A = sigma Z^T (-L(c_D)^T m B_c + D^T J B_w) + (E - sigma) Z^T D^T m B_c.
  bd.K = bd.m3.asDiagonal() * bd.Bc;
  bd.Kw.noalias() = bd.Jw * bd.Bw;
  bd.Nm.noalias() = bd.D3.transpose() * bd.Kw;
  bd.Nm.noalias() -= bd.Lc.transpose() * bd.K;
  bd.Fm.noalias() = bd.D3.transpose() * bd.K;
  bd.A.noalias() = bd.Zs.transpose() * bd.Nm;
  bd.A.noalias() += bd.Zt.transpose() * bd.Fm;
  // b = the same projection of the loads at q'' = 0 (velocity products, gravity, fext).
  dalembert_loads(model, bd, bd.ac_bias, bd.wdot_bias, fext);
  project_loads(bd, bd.b);
}

const Eigen::VectorXd& block_forward_dynamics(const Model& model, BlockData& bd, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                              const Eigen::VectorXd& tau, const std::vector<LinkWrench>& fext) {
  model.check_v(tau, "tau");
  block_eom(model, bd, q, qd, fext);
  Eigen::LLT<Eigen::MatrixXd> llt(bd.A);
  if (llt.info() != Eigen::Success) throw Error("tree: block_forward_dynamics: A(q) is not positive definite");
  bd.ddq = llt.solve(tau - bd.b);
  return bd.ddq;
}

}  // namespace tendyn::tree
