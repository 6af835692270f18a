// Recursive algorithms (Featherstone 2008: RNEA Table 5.1, CRBA Table 6.2, ABA Table 7.1).
#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>

#include <string>

#include "spatial.hpp"

namespace tendyn::tree {

using detail::cross_force;
using detail::cross_motion;
using detail::force_to_child;
using detail::force_to_parent;
using detail::inertia_times;
using detail::motion_to_child;
using detail::motion_to_parent;

Data::Data(const Model& model) {
  const auto n = static_cast<std::size_t>(model.nlinks());
  X_PL.resize(n);
  X_WL.resize(n);
  V.assign(n, Vector6d::Zero());
  A.assign(n, Vector6d::Zero());
  F.assign(n, Vector6d::Zero());
  Fext.assign(n, Vector6d::Zero());
  I_L.resize(n);
  Ic.resize(n);
  IA.assign(n, Matrix6d::Zero());
  pA.assign(n, Vector6d::Zero());
  c.assign(n, Vector6d::Zero());
  U.assign(n, Matrix6d::Zero());
  Dinv.assign(n, Matrix6d::Zero());
  u.assign(n, Vector6d::Zero());
  msub.assign(n, 0.0);
  hsub.assign(n, Eigen::Vector3d::Zero());
  for (std::size_t i = 0; i < n; ++i) {
    const Link& l = model.links[i];
    Inertia& I = I_L[i];
    I.m = l.mass_kg;
    I.h = l.mass_kg * l.p_LC_m;
    I.I = l.inertia_C_kgm2 - l.mass_kg * detail::skew(l.p_LC_m) * detail::skew(l.p_LC_m);
  }
  S_W = Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv);
  v_parent.assign(static_cast<std::size_t>(model.nv), -1);
  axis_code.assign(n, 0);
  std::vector<int> last_v(n, -1);  // last velocity coordinate on the path root..i (i included)
  for (std::size_t i = 0; i < n; ++i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    int prev = p >= 0 ? last_v[static_cast<std::size_t>(p)] : -1;
    for (int k = 0; k < j.nv; ++k) {
      v_parent[static_cast<std::size_t>(j.idx_v + k)] = prev;
      prev = j.idx_v + k;
    }
    last_v[i] = prev;
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic)
      for (int k = 0; k < 3; ++k) {
        const Eigen::Vector3d e = Eigen::Vector3d::Unit(k);
        if (j.axis == e) axis_code[i] = static_cast<signed char>(k + 1);
        if (j.axis == -e) axis_code[i] = static_cast<signed char>(-(k + 1));
      }
  }
  tau = Eigen::VectorXd::Zero(model.nv);
  M = Eigen::MatrixXd::Zero(model.nv, model.nv);
  ddq = Eigen::VectorXd::Zero(model.nv);
  J_com = Eigen::MatrixXd::Zero(3, model.nv);
}

Data make_data(const Model& model) { return Data(model); }

namespace {

// Joint placement X_PL(q) of link i.
inline void joint_transform(const Joint& j, const Eigen::VectorXd& q, SE3& X) {
  switch (j.type) {
    case JointType::kFixed:
      X.R = j.R_PJ;
      X.p = j.p_PJ_m;
      break;
    case JointType::kRevolute:
      X.R.noalias() = j.R_PJ * detail::axis_rotation(j.axis, q[j.idx_q]);
      X.p = j.p_PJ_m;
      break;
    case JointType::kPrismatic:
      X.R = j.R_PJ;
      X.p = j.p_PJ_m + j.R_PJ * (j.axis * q[j.idx_q]);
      break;
    case JointType::kFree: {
      const Eigen::Quaterniond quat(q[j.idx_q + 3], q[j.idx_q + 4], q[j.idx_q + 5], q[j.idx_q + 6]);
      X.R.noalias() = j.R_PJ * quat.normalized().toRotationMatrix();
      X.p = j.p_PJ_m + j.R_PJ * q.segment<3>(j.idx_q);
      break;
    }
  }
}

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

inline void compose(const SE3& a, const SE3& b, SE3& out) {
  out.p = a.p + a.R * b.p;
  out.R.noalias() = a.R * b.R;
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
    throw Error("tree: fext has " + std::to_string(fext.size()) + " entries, model '" + model.name +
                "' has " + std::to_string(model.nlinks()) + " links");
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

const Eigen::VectorXd& rnea(const Model& model, Data& d, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, const Eigen::VectorXd& a,
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
    d.F[i] = inertia_times(d.I_L[i], d.A[i]) + cross_force(d.V[i], inertia_times(d.I_L[i], d.V[i]));
    if (has_ext) d.F[i] -= d.Fext[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    const Joint& j = model.joints[i];
    St_times(j, d.F[i], d.tau.data() + j.idx_v);
    const int p = model.parent[i];
    if (p >= 0) d.F[p] += force_to_parent(d.X_PL[i], d.F[i]);
  }
  return d.tau;
}

const Eigen::VectorXd& nonlinear_effects(const Model& model, Data& data, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v,
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
  fk(model, d, q);
  const int n = model.nlinks();
  for (int i = 0; i < n; ++i) {
    const SE3& X = d.X_WL[i];
    detail::inertia_to_parent(X, d.I_L[i], d.Ic[i]);
    const Joint& j = model.joints[i];
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
  for (int i = n - 1; i >= 0; --i) {
    const Joint& j = model.joints[i];
    const Inertia& Ic = d.Ic[i];
    for (int c = j.idx_v; c < j.idx_v + j.nv; ++c) {
      const Vector6d F = inertia_times(Ic, d.S_W.col(c));
      M(c, c) = d.S_W.col(c).dot(F);
      for (int r = d.v_parent[static_cast<std::size_t>(c)]; r >= 0; r = d.v_parent[static_cast<std::size_t>(r)]) {
        const double val = d.S_W.col(r).dot(F);
        M(r, c) = val;
        if constexpr (kFull) M(c, r) = val;
      }
    }
    const int p = model.parent[i];
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

const Eigen::VectorXd& aba(const Model& model, Data& d, const Eigen::VectorXd& q,
                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
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
    d.IA[i] = detail::inertia_matrix(d.I_L[i]);
    d.pA[i] = cross_force(d.V[i], inertia_times(d.I_L[i], d.V[i]));
    if (has_ext) d.pA[i] -= d.Fext[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    Matrix6d& IA = d.IA[i];
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
      const Vector6d s = S_col(j, 0);
      d.U[i].col(0).noalias() = IA * s;
      const double D = s.dot(d.U[i].col(0));
      if (!(D > 1e-14 * (1.0 + IA.norm())))
        throw Error("tree: aba: singular articulated inertia at joint '" + j.name + "'");
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
      if (llt.info() != Eigen::Success)
        throw Error("tree: aba: singular articulated inertia at free joint '" + j.name + "'");
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

double kinetic_energy(const Model& model, Data& d, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& v) {
  model.check_q(q);
  model.check_v(v);
  fk(model, d, q);
  double T = 0.0;
  for (int i = 0; i < model.nlinks(); ++i) {
    const Joint& j = model.joints[i];
    const int p = model.parent[i];
    const Vector6d vJ = S_times(j, v.data() + j.idx_v);
    d.V[i] = p >= 0 ? Vector6d(motion_to_child(d.X_PL[i], d.V[p]) + vJ) : vJ;
    T += 0.5 * d.V[i].dot(inertia_times(d.I_L[i], d.V[i]));
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

const Eigen::MatrixXd& jacobian_center_of_mass(const Model& model, Data& d,
                                               const Eigen::VectorXd& q) {
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
      d.J_com.col(j.idx_v + k) =
          (d.msub[i] * Sw.tail<3>() + Sw.head<3>().cross(d.hsub[i])) / mtot;
    }
  }
  return d.J_com;
}

Vector6d momentum_world(const Model& model, Data& d, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v) {
  kinetic_energy(model, d, q, v);  // fills V and X_WL
  Vector6d h = Vector6d::Zero();
  for (int i = 0; i < model.nlinks(); ++i)
    h += force_to_parent(d.X_WL[i], inertia_times(d.I_L[i], d.V[i]));
  return h;
}

void velocity_to_qdot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                      Eigen::VectorXd& qdot) {
  model.check_q(q);
  model.check_v(v);
  qdot.resize(model.nq);
  for (const Joint& j : model.joints) {
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kRevolute:
      case JointType::kPrismatic: qdot[j.idx_q] = v[j.idx_v]; break;
      case JointType::kFree: {
        const Eigen::Quaterniond quat(q[j.idx_q + 3], q[j.idx_q + 4], q[j.idx_q + 5],
                                      q[j.idx_q + 6]);
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

}  // namespace tendyn::tree
