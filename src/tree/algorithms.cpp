// Recursive algorithms (Featherstone 2008: RNEA Table 5.1, CRBA Table 6.2, ABA Table 7.1).
#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>

#include <cmath>
#include <string>

#include "spatial.hpp"

namespace tendyn::tree {

using detail::compose;
using detail::cross_force;
using detail::cross_motion;
using detail::force_to_child;
using detail::force_to_parent;
using detail::inertia_times;
using detail::motion_to_child;
using detail::motion_to_parent;

namespace {

// The link that receives link i's force terms in the backward passes of rnea and aba: its parent,
// or -1 when it has none or when, without external wrenches, the terms of i or of its parent are
// skipped (Model::merge_kind kSkipped).
inline int force_parent(const Model& model, int i, bool has_ext) {
  const int p = model.parent[i];
  if (p < 0 || has_ext) return p;
  return model.merge_kind[i] == MergeKind::kSkipped || model.merge_kind[p] == MergeKind::kSkipped ? -1 : p;
}

// The inertia link i's forward-pass terms use in rnea and aba: its own with external wrenches,
// its fixed cluster's (Model::I_cluster) without when it is a kCarrier, else none (kCarried: it
// only passes on forces from below; kSkipped: its terms are skipped).
inline const Inertia* body_inertia(const Model& model, int i, bool has_ext) {
  if (has_ext) return &model.I_L[i];
  return model.merge_kind[i] == MergeKind::kCarrier ? &model.I_cluster[i] : nullptr;
}

}  // namespace

Data::Data(const Model& model) {
  const auto n = static_cast<std::size_t>(model.nlinks());
  X_PL.resize(n);
  X_WL.resize(n);
  V.assign(n, Vector6d::Zero());
  A.assign(n, Vector6d::Zero());
  F.assign(n, Vector6d::Zero());
  Fext.assign(n, Vector6d::Zero());
  Ic.resize(n);
  IA.assign(n, Matrix6d::Zero());
  pA.assign(n, Vector6d::Zero());
  c.assign(n, Vector6d::Zero());
  U.assign(n, Matrix6d::Zero());
  Dinv.assign(n, Matrix6d::Zero());
  u.assign(n, Vector6d::Zero());
  msub.assign(n, 0.0);
  hsub.assign(n, Eigen::Vector3d::Zero());
  S_W = Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv);
  tau = Eigen::VectorXd::Zero(model.nv);
  M = Eigen::MatrixXd::Zero(model.nv, model.nv);
  ddq = Eigen::VectorXd::Zero(model.nv);
  J_com = Eigen::MatrixXd::Zero(3, model.nv);
}

Data make_data(const Model& model) { return Data(model); }

namespace {

// Link frame X(q) of joint j placed at (R_PJ, p_PJ): the joint's motion after its placement.
inline void joint_transform(const Joint& j, const Eigen::Matrix3d& R_PJ, const Eigen::Vector3d& p_PJ, const Eigen::VectorXd& q, SE3& X) {
  switch (j.type) {
    case JointType::kFixed:
      X.R = R_PJ;
      X.p = p_PJ;
      break;
    case JointType::kRevolute:
      X.R.noalias() = R_PJ * detail::axis_rotation(j.axis, q[j.idx_q]);
      X.p = p_PJ;
      break;
    case JointType::kPrismatic:
      X.R = R_PJ;
      X.p = p_PJ + R_PJ * (j.axis * q[j.idx_q]);
      break;
    case JointType::kFree: {
      const Eigen::Quaterniond quat(q[j.idx_q + 3], q[j.idx_q + 4], q[j.idx_q + 5], q[j.idx_q + 6]);
      X.R.noalias() = R_PJ * quat.normalized().toRotationMatrix();
      X.p = p_PJ + R_PJ * q.segment<3>(j.idx_q);
      break;
    }
  }
}

// Joint placement X_PL(q) of link i.
inline void joint_transform(const Joint& j, const Eigen::VectorXd& q, SE3& X) { joint_transform(j, j.R_PJ, j.p_PJ_m, q, X); }

// S * x for the joint's motion subspace (x has nv entries starting at xs).
inline Vector6d S_times(const Joint& j, const double* xs) {
  Vector6d r = Vector6d::Zero();
  switch (j.type) {
    case JointType::kFixed: break;
    case JointType::kRevolute: r.head<3>() = j.axis * xs[0]; break;
    case JointType::kPrismatic: r.tail<3>() = j.axis * xs[0]; break;
    case JointType::kFree: r = Eigen::Map<const Vector6d>(xs); break;
  }
  return r;
}

// out = S^T f (nv entries).
inline void St_times(const Joint& j, const Vector6d& f, double* out) {
  switch (j.type) {
    case JointType::kFixed: break;
    case JointType::kRevolute: out[0] = j.axis.dot(f.head<3>()); break;
    case JointType::kPrismatic: out[0] = j.axis.dot(f.tail<3>()); break;
    case JointType::kFree: {
      Eigen::Map<Vector6d> o(out);
      o = f;
      break;
    }
  }
}

// Column k of S.
inline Vector6d S_col(const Joint& j, int k) {
  Vector6d r = Vector6d::Zero();
  switch (j.type) {
    case JointType::kFixed: break;
    case JointType::kRevolute: r.head<3>() = j.axis; break;
    case JointType::kPrismatic: r.tail<3>() = j.axis; break;
    case JointType::kFree: r[k] = 1.0; break;
  }
  return r;
}

void fk(const Model& model, Data& d, const Eigen::VectorXd& q) {
  for (int i = 0; i < model.nlinks(); ++i) {
    joint_transform(model.joints[i], q, d.X_PL[i]);
    const int p = model.parent[i];
    if (p >= 0)
      compose(d.X_WL[p], d.X_PL[i], d.X_WL[i]);
    else
      d.X_WL[i] = d.X_PL[i];
  }
}

// External wrenches to link coordinates (moment about the link origin).
void set_fext(const Model& model, Data& d, const std::vector<LinkWrench>& fext) {
  if (fext.empty()) return;
  if (static_cast<int>(fext.size()) != model.nlinks())
    throw Error("tree: fext has " + std::to_string(fext.size()) + " entries, model '" + model.name + "' has " +
                std::to_string(model.nlinks()) + " links");
  for (int i = 0; i < model.nlinks(); ++i) {
    const Eigen::Matrix3d& R = d.X_WL[i].R;
    const Eigen::Vector3d f = R.transpose() * fext[i].f_W;
    d.Fext[i].tail<3>() = f;
    d.Fext[i].head<3>() = R.transpose() * fext[i].n_W + model.links[i].p_LC_m.cross(f);
  }
}

}  // namespace

void forward_kinematics(const Model& model, Data& data, const Eigen::VectorXd& q) {
  model.check_q(q);
  fk(model, data, q);
}

const Eigen::VectorXd& rnea(const Model& model, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                            const std::vector<LinkWrench>& fext) {
  model.check_q(q);
  model.check_v(v);
  model.check_v(a, "a");
  fk(model, d, q);
  const bool has_ext = !fext.empty();
  set_fext(model, d, fext);
  Vector6d a0 = Vector6d::Zero();
  a0.tail<3>() = -model.gravity_W;
  const int n = model.nlinks();
  for (int i = 0; i < n; ++i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    const Vector6d vJ = S_times(j, v.data() + j.idx_v);
    if (p >= 0) {
      d.V[i] = motion_to_child(d.X_PL[i], d.V[p]) + vJ;
      d.A[i] = motion_to_child(d.X_PL[i], d.A[p]);
    } else {
      d.V[i] = vJ;
      d.A[i] = motion_to_child(d.X_PL[i], a0);
    }
    d.A[i] += S_times(j, a.data() + j.idx_v) + cross_motion(d.V[i], vJ);
    if (const Inertia* I = body_inertia(model, i, has_ext)) {
      d.F[i] = inertia_times(*I, d.A[i]) + cross_force(d.V[i], inertia_times(*I, d.V[i]));
      if (has_ext) d.F[i] -= d.Fext[i];
    } else if (model.merge_kind[i] == MergeKind::kCarried) {
      d.F[i].setZero();
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    const Joint& j = model.joints[i];
    St_times(j, d.F[i], d.tau.data() + j.idx_v);
    const int p = force_parent(model, i, has_ext);
    if (p >= 0) d.F[p] += force_to_parent(d.X_PL[i], d.F[i]);
  }
  return d.tau;
}

const Eigen::VectorXd& nonlinear_effects(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                         const std::vector<LinkWrench>& fext) {
  // ddq = 0 without allocating: reuse data.ddq as the zero vector.
  data.ddq.setZero();
  return rnea(model, data, q, v, data.ddq, fext);
}

namespace {

// CRBA in world coordinates (Featherstone 2008, Table 6.2): with every subspace column S_c and
// every composite inertia I^c expressed in world axes about the world origin, the composite of a
// subtree is a plain sum and M_jc = S_j . (I^c_i S_c) needs no force transform up the tree.
// kFull: also writes the strictly lower triangle.
template <bool kFull>
void crba_world(const Model& model, Data& d, const Eigen::VectorXd& q) {
  model.check_q(q);
  // Kinematics of the moving links only: each joint placed in the frame of its nearest moving
  // ancestor (X_CJ, fixed placements folded in).
  for (const int i : model.crba_links) {
    const Joint& j = model.joints[i];
    const int cp = model.crba_parent[static_cast<std::size_t>(i)];
    SE3& X = d.X_WL[i];
    SE3 X_CL;
    joint_transform(j, model.X_CJ[i].R, model.X_CJ[i].p, q, cp >= 0 ? X_CL : X);
    if (cp >= 0) compose(d.X_WL[cp], X_CL, X);
    detail::inertia_to_parent(X, model.I_cluster[i], d.Ic[i]);
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kRevolute: {
        auto s = d.S_W.col(j.idx_v);
        s.head<3>().noalias() = X.R * j.axis;
        s.tail<3>() = X.p.cross(Eigen::Vector3d(s.head<3>()));
        break;
      }
      case JointType::kPrismatic: {
        auto s = d.S_W.col(j.idx_v);
        s.head<3>().setZero();
        s.tail<3>().noalias() = X.R * j.axis;
        break;
      }
      case JointType::kFree: {
        // Columns: angular e_k -> (R e_k; p x R e_k), linear e_k -> (0; R e_k).
        auto S = d.S_W.middleCols<6>(j.idx_v);
        S.topLeftCorner<3, 3>() = X.R;
        S.topRightCorner<3, 3>().setZero();
        S.bottomRightCorner<3, 3>() = X.R;
        for (int k = 0; k < 3; ++k) S.block<3, 1>(3, k) = X.p.cross(X.R.col(k));
        break;
      }
    }
  }
  Eigen::MatrixXd& M = d.M;
  for (auto it = model.crba_links.rbegin(); it != model.crba_links.rend(); ++it) {
    const int i = *it;
    const Joint& j = model.joints[i];
    const Inertia& Ic = d.Ic[i];
    for (int c = j.idx_v; c < j.idx_v + j.nv; ++c) {
      // F = I^c S_c = (I w + h x v; m v - h x w) for S_c = (w; v), in scalars: with Vector6d
      // temporaries GCC stored entries one by one and reloaded them in pairs, a store-forwarding
      // stall per product and per ancestor (perf on Atlas v3: ~1/3 of this loop's time).
      const double* sc = d.S_W.col(c).data();
      const Eigen::Matrix3d& I = Ic.I;
      const Eigen::Vector3d& h = Ic.h;
      const double w0 = sc[0], w1 = sc[1], w2 = sc[2], v0 = sc[3], v1 = sc[4], v2 = sc[5];
      const double f0 = I(0, 0) * w0 + I(0, 1) * w1 + I(0, 2) * w2 + (h[1] * v2 - h[2] * v1);
      const double f1 = I(1, 0) * w0 + I(1, 1) * w1 + I(1, 2) * w2 + (h[2] * v0 - h[0] * v2);
      const double f2 = I(2, 0) * w0 + I(2, 1) * w1 + I(2, 2) * w2 + (h[0] * v1 - h[1] * v0);
      const double f3 = Ic.m * v0 - (h[1] * w2 - h[2] * w1);
      const double f4 = Ic.m * v1 - (h[2] * w0 - h[0] * w2);
      const double f5 = Ic.m * v2 - (h[0] * w1 - h[1] * w0);
      const auto dot_F = [&](int r) {
        const double* s = d.S_W.col(r).data();
        return (s[0] * f0 + s[1] * f1) + (s[2] * f2 + s[3] * f3) + (s[4] * f4 + s[5] * f5);
      };
      M(c, c) = dot_F(c);
      for (int r = model.v_parent[static_cast<std::size_t>(c)]; r >= 0; r = model.v_parent[static_cast<std::size_t>(r)]) {
        const double val = dot_F(r);
        M(r, c) = val;
        if constexpr (kFull) M(c, r) = val;
      }
    }
    const int p = model.crba_parent[static_cast<std::size_t>(i)];
    if (p >= 0) detail::add_to(d.Ic[p], Ic);
  }
}

}  // namespace

const Eigen::MatrixXd& crba(const Model& model, Data& d, const Eigen::VectorXd& q) {
  crba_world<true>(model, d, q);
  return d.M;
}

const Eigen::MatrixXd& crba_upper(const Model& model, Data& d, const Eigen::VectorXd& q) {
  crba_world<false>(model, d, q);
  return d.M;
}

const Eigen::VectorXd& aba(const Model& model, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                           const std::vector<LinkWrench>& fext) {
  model.check_q(q);
  model.check_v(v);
  model.check_v(tau, "tau");
  fk(model, d, q);
  const bool has_ext = !fext.empty();
  set_fext(model, d, fext);
  const int n = model.nlinks();
  for (int i = 0; i < n; ++i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    const Vector6d vJ = S_times(j, v.data() + j.idx_v);
    d.V[i] = p >= 0 ? Vector6d(motion_to_child(d.X_PL[i], d.V[p]) + vJ) : vJ;
    d.c[i] = cross_motion(d.V[i], vJ);
    if (const Inertia* I = body_inertia(model, i, has_ext)) {
      d.IA[i] = detail::inertia_matrix(*I);
      d.pA[i] = cross_force(d.V[i], inertia_times(*I, d.V[i]));
      if (has_ext) d.pA[i] -= d.Fext[i];
    } else if (model.merge_kind[i] == MergeKind::kCarried) {
      d.IA[i].setZero();
      d.pA[i].setZero();
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    const Joint& j = model.joints[i];
    if (!has_ext && model.merge_kind[i] == MergeKind::kSkipped) continue;
    const int p = force_parent(model, i, has_ext);
    Matrix6d& IA = d.IA[i];
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
      const Vector6d s = S_col(j, 0);
      d.U[i].col(0).noalias() = IA * s;
      const double D = s.dot(d.U[i].col(0));
      if (!(D > 1e-14 * (1.0 + IA.norm()))) throw Error("tree: aba: singular articulated inertia at joint '" + j.name + "'");
      d.Dinv[i](0, 0) = 1.0 / D;
      d.u[i][0] = tau[j.idx_v] - s.dot(d.pA[i]);
      if (p >= 0) {
        Matrix6d Ia = IA;
        Ia.noalias() -= d.U[i].col(0) * (d.Dinv[i](0, 0) * d.U[i].col(0).transpose());
        Vector6d pa = d.pA[i];
        pa.noalias() += Ia * d.c[i];
        pa += d.U[i].col(0) * (d.Dinv[i](0, 0) * d.u[i][0]);
        d.IA[p] += detail::matrix_to_parent(d.X_PL[i], Ia);
        d.pA[p] += force_to_parent(d.X_PL[i], pa);
      }
    } else if (j.type == JointType::kFree) {
      d.U[i] = IA;
      Eigen::LLT<Matrix6d> llt(IA);
      if (llt.info() != Eigen::Success) throw Error("tree: aba: singular articulated inertia at free joint '" + j.name + "'");
      d.Dinv[i] = llt.solve(Matrix6d::Identity());
      d.u[i] = tau.segment<6>(j.idx_v) - d.pA[i];
      // The articulated inertia passed to the parent is zero for a free joint; only pA remains.
      if (p >= 0) d.pA[p] += force_to_parent(d.X_PL[i], d.pA[i] + d.u[i]);
    } else if (p >= 0) {
      Vector6d pa = d.pA[i];
      pa.noalias() += IA * d.c[i];
      d.IA[p] += detail::matrix_to_parent(d.X_PL[i], IA);
      d.pA[p] += force_to_parent(d.X_PL[i], pa);
    }
  }
  Vector6d a0 = Vector6d::Zero();
  a0.tail<3>() = -model.gravity_W;
  for (int i = 0; i < n; ++i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    Vector6d ap = motion_to_child(d.X_PL[i], p >= 0 ? d.A[p] : a0) + d.c[i];
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kRevolute:
      case JointType::kPrismatic: {
        const double dd = d.Dinv[i](0, 0) * (d.u[i][0] - d.U[i].col(0).dot(ap));
        d.ddq[j.idx_v] = dd;
        ap += S_col(j, 0) * dd;
        break;
      }
      case JointType::kFree: {
        // U = IA: ddq = IA^-1 (u - IA ap) = IA^-1 u - ap.
        Vector6d dd;
        dd.noalias() = d.Dinv[i] * d.u[i];
        dd -= ap;
        d.ddq.segment<6>(j.idx_v) = dd;
        ap += dd;
        break;
      }
    }
    d.A[i] = ap;
  }
  return d.ddq;
}

double kinetic_energy(const Model& model, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  model.check_q(q);
  model.check_v(v);
  fk(model, d, q);
  double T = 0.0;
  for (int i = 0; i < model.nlinks(); ++i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    const Vector6d vJ = S_times(j, v.data() + j.idx_v);
    d.V[i] = p >= 0 ? Vector6d(motion_to_child(d.X_PL[i], d.V[p]) + vJ) : vJ;
    T += 0.5 * d.V[i].dot(inertia_times(model.I_L[i], d.V[i]));
  }
  return T;
}

double potential_energy(const Model& model, Data& d, const Eigen::VectorXd& q) {
  model.check_q(q);
  fk(model, d, q);
  double U = 0.0;
  for (int i = 0; i < model.nlinks(); ++i) {
    const Eigen::Vector3d c = d.X_WL[i].R * model.links[i].p_LC_m + d.X_WL[i].p;
    U -= model.links[i].mass_kg * model.gravity_W.dot(c);
  }
  return U;
}

Eigen::Vector3d center_of_mass(const Model& model, Data& d, const Eigen::VectorXd& q) {
  model.check_q(q);
  fk(model, d, q);
  Eigen::Vector3d h = Eigen::Vector3d::Zero();
  double m = 0.0;
  for (int i = 0; i < model.nlinks(); ++i) {
    h += model.links[i].mass_kg * (d.X_WL[i].R * model.links[i].p_LC_m + d.X_WL[i].p);
    m += model.links[i].mass_kg;
  }
  if (!(m > 0.0)) throw Error("tree: center_of_mass: model '" + model.name + "' has no mass");
  d.p_com = h / m;
  return d.p_com;
}

const Eigen::MatrixXd& jacobian_center_of_mass(const Model& model, Data& d, const Eigen::VectorXd& q) {
  model.check_q(q);
  fk(model, d, q);
  const int n = model.nlinks();
  for (int i = 0; i < n; ++i) {
    d.msub[i] = model.links[i].mass_kg;
    d.hsub[i] = model.links[i].mass_kg * (d.X_WL[i].R * model.links[i].p_LC_m + d.X_WL[i].p);
  }
  for (int i = n - 1; i >= 0; --i)
    if (model.parent[i] >= 0) {
      d.msub[model.parent[i]] += d.msub[i];
      d.hsub[model.parent[i]] += d.hsub[i];
    }
  double mtot = 0.0;
  Eigen::Vector3d htot = Eigen::Vector3d::Zero();
  for (int i = 0; i < n; ++i)
    if (model.parent[i] < 0) {
      mtot += d.msub[i];
      htot += d.hsub[i];
    }
  if (!(mtot > 0.0)) throw Error("tree: jacobian_center_of_mass: model has no mass");
  d.p_com = htot / mtot;
  for (int i = 0; i < n; ++i) {
    const Joint& j = model.joints[i];
    for (int k = 0; k < j.nv; ++k) {
      const Vector6d Sw = motion_to_parent(d.X_WL[i], S_col(j, k));  // world coords, at origin
      d.J_com.col(j.idx_v + k) = (d.msub[i] * Sw.tail<3>() + Sw.head<3>().cross(d.hsub[i])) / mtot;
    }
  }
  return d.J_com;
}

Vector6d momentum_world(const Model& model, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  kinetic_energy(model, d, q, v);  // fills V and X_WL
  Vector6d h = Vector6d::Zero();
  for (int i = 0; i < model.nlinks(); ++i) h += force_to_parent(d.X_WL[i], inertia_times(model.I_L[i], d.V[i]));
  return h;
}

void velocity_to_qdot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& qdot) {
  model.check_q(q);
  model.check_v(v);
  qdot.resize(model.nq);
  for (const Joint& j : model.joints) {
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kRevolute:
      case JointType::kPrismatic: qdot[j.idx_q] = v[j.idx_v]; break;
      case JointType::kFree: {
        const Eigen::Quaterniond quat(q[j.idx_q + 3], q[j.idx_q + 4], q[j.idx_q + 5], q[j.idx_q + 6]);
        const Eigen::Vector3d w = v.segment<3>(j.idx_v);
        qdot.segment<3>(j.idx_q) = quat.normalized().toRotationMatrix() * v.segment<3>(j.idx_v + 3);
        const Eigen::Quaterniond dq = quat * Eigen::Quaterniond(0.0, w.x(), w.y(), w.z());
        qdot[j.idx_q + 3] = 0.5 * dq.w();
        qdot[j.idx_q + 4] = 0.5 * dq.x();
        qdot[j.idx_q + 5] = 0.5 * dq.y();
        qdot[j.idx_q + 6] = 0.5 * dq.z();
        break;
      }
    }
  }
}

void normalize_configuration(const Model& model, Eigen::VectorXd& q) {
  model.check_q(q);
  for (const Joint& j : model.joints)
    if (j.type == JointType::kFree) q.segment<4>(j.idx_q + 3).normalize();
}

namespace {

// "joint 'elbow'" or, for a joint with several velocity coordinates, "joint 'base' coordinate 4 of 6".
std::string coordinate_label(const Model& model, Eigen::Index k) {
  if (k < 0 || k >= static_cast<Eigen::Index>(model.v_to_link.size())) return "coordinate " + std::to_string(k + 1);
  const Joint& j = model.joints[static_cast<std::size_t>(model.v_to_link[static_cast<std::size_t>(k)])];
  std::string s = "joint '" + j.name + "'";
  if (j.nv > 1) s += " coordinate " + std::to_string(k - j.idx_v + 1) + " of " + std::to_string(j.nv);
  return s;
}

const char* non_finite_name(double x) { return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"); }

}  // namespace

void check_finite_result(const Model& model, const Eigen::Ref<const Eigen::MatrixXd>& x, const std::string& where,
                         const std::string& quantity) {
  if (x.allFinite()) return;
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      if (std::isfinite(x(r, c))) continue;
      const std::string entry =
          x.cols() == 1 ? coordinate_label(model, r) : "row " + coordinate_label(model, r) + ", column " + coordinate_label(model, c);
      throw Error(where + ": " + quantity + " overflowed the double range (" + entry + " is " + non_finite_name(x(r, c)) +
                  ") although every input is finite: the inputs are too large for this model");
    }
  }
}

}  // namespace tendyn::tree
