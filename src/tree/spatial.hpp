// Spatial-algebra kernels for the tree algorithms (Featherstone 2008, ch. 2), written on
// (R, p) pairs and compact inertias so that no 6x6 product is formed where 3x3 work suffices.
// Motion vectors: (angular; linear). Force vectors: (moment; force).
#pragma once
#include <tendyn/tree/data.hpp>

#include <Eigen/Core>

#include <cmath>

namespace tendyn::tree::detail {

/// out = a b (frame b given in a, a in the outer frame); out must not alias a or b.
inline void compose(const SE3& a, const SE3& b, SE3& out) {
  out.p = a.p + a.R * b.p;
  out.R.noalias() = a.R * b.R;
}

inline Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d S;
  S << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return S;
}

/// Motion vector in parent coordinates -> child (link) coordinates; X = (R_PL, p_PL).
inline Vector6d motion_to_child(const SE3& X, const Vector6d& m) {
  Vector6d r;
  r.head<3>().noalias() = X.R.transpose() * m.head<3>();
  r.tail<3>().noalias() = X.R.transpose() * (m.tail<3>() - X.p.cross(m.head<3>()));
  return r;
}
/// Motion vector in child coordinates -> parent coordinates.
inline Vector6d motion_to_parent(const SE3& X, const Vector6d& m) {
  Vector6d r;
  r.head<3>().noalias() = X.R * m.head<3>();
  r.tail<3>().noalias() = X.R * m.tail<3>();
  r.tail<3>() += X.p.cross(r.head<3>());
  return r;
}
/// Force vector in child coordinates -> parent coordinates.
inline Vector6d force_to_parent(const SE3& X, const Vector6d& f) {
  Vector6d r;
  r.tail<3>().noalias() = X.R * f.tail<3>();
  r.head<3>().noalias() = X.R * f.head<3>();
  r.head<3>() += X.p.cross(r.tail<3>());
  return r;
}
/// Force vector in parent coordinates -> child coordinates.
inline Vector6d force_to_child(const SE3& X, const Vector6d& f) {
  Vector6d r;
  r.tail<3>().noalias() = X.R.transpose() * f.tail<3>();
  r.head<3>().noalias() = X.R.transpose() * (f.head<3>() - X.p.cross(f.tail<3>()));
  return r;
}
/// Spatial cross product for motions: v x m.
inline Vector6d cross_motion(const Vector6d& v, const Vector6d& m) {
  Vector6d r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}
/// Spatial cross product for forces: v x* f.
inline Vector6d cross_force(const Vector6d& v, const Vector6d& f) {
  Vector6d r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}
/// Inertia times motion: (I w + h x v; m v - h x w).
inline Vector6d inertia_times(const Inertia& I, const Vector6d& m) {
  Vector6d r;
  r.head<3>().noalias() = I.I * m.head<3>();
  r.head<3>() += I.h.cross(m.tail<3>());
  r.tail<3>() = I.m * m.tail<3>() - I.h.cross(m.head<3>());
  return r;
}
/// Inertia in child coordinates -> parent coordinates (about the parent origin), into `r`.
/// With h' = R h and g = h' + m p / 2, the parallel-axis terms
/// -([h']x[p]x + [p]x[h']x + m [p]x[p]x) equal -(p g^T + g p^T) + 2 (g . p) 1 (from
/// [a]x[b]x = b a^T - (a . b) 1); R I R^T is formed on its 6 distinct entries.
inline void inertia_to_parent(const SE3& X, const Inertia& I, Inertia& r) {
  const Eigen::Matrix3d& R = X.R;
  const Eigen::Vector3d& p = X.p;
  r.m = I.m;
  const Eigen::Vector3d hr = R * I.h;
  r.h = hr + I.m * p;
  const Eigen::Vector3d g = hr + (0.5 * I.m) * p;
  const double gp2 = 2.0 * g.dot(p);
  Eigen::Matrix3d T;
  T.noalias() = R * I.I;  // rows of T dotted with rows of R: (R I R^T)_ab = T.row(a) . R.row(b)
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b <= a; ++b) {
      double v = T(a, 0) * R(b, 0) + T(a, 1) * R(b, 1) + T(a, 2) * R(b, 2);
      v -= p[a] * g[b] + g[a] * p[b];
      if (a == b) v += gp2;
      r.I(a, b) = v;
      r.I(b, a) = v;
    }
}
inline Inertia inertia_to_parent(const SE3& X, const Inertia& I) {
  Inertia r;
  inertia_to_parent(X, I, r);
  return r;
}
inline void add_to(Inertia& a, const Inertia& b) {
  a.m += b.m;
  a.h += b.h;
  a.I += b.I;
}
/// 6x6 matrix of an inertia.
inline Matrix6d inertia_matrix(const Inertia& I) {
  Matrix6d M;
  const Eigen::Matrix3d Sh = skew(I.h);
  M.topLeftCorner<3, 3>() = I.I;
  M.topRightCorner<3, 3>() = Sh;
  M.bottomLeftCorner<3, 3>() = -Sh;
  M.bottomRightCorner<3, 3>() = I.m * Eigen::Matrix3d::Identity();
  return M;
}
/// Articulated inertia (symmetric 6x6 mapping motion -> force) from child to parent
/// coordinates: X^T IA X, X the parent->child motion transform. With IA = [A B; B^T C] rotated
/// into parent axes and S = skew(p): [A - B S + S B^T - S C S, B + S C; (B + S C)^T, C].
inline Matrix6d matrix_to_parent(const SE3& X, const Matrix6d& IA) {
  const Eigen::Matrix3d& R = X.R;
  Eigen::Matrix3d A, B, C, T;
  T.noalias() = IA.topLeftCorner<3, 3>() * R.transpose();
  A.noalias() = R * T;
  T.noalias() = IA.topRightCorner<3, 3>() * R.transpose();
  B.noalias() = R * T;
  T.noalias() = IA.bottomRightCorner<3, 3>() * R.transpose();
  C.noalias() = R * T;
  const Eigen::Matrix3d S = skew(X.p);
  Eigen::Matrix3d SC, BS;
  SC.noalias() = S * C;
  BS.noalias() = B * S;
  Matrix6d r;
  r.topLeftCorner<3, 3>() = A - BS - BS.transpose();
  r.topLeftCorner<3, 3>().noalias() -= SC * S;
  r.topRightCorner<3, 3>() = B + SC;
  r.bottomLeftCorner<3, 3>() = r.topRightCorner<3, 3>().transpose();
  r.bottomRightCorner<3, 3>() = C;
  return r;
}

/// Rotation by angle q about unit axis a (Rodrigues).
inline Eigen::Matrix3d axis_rotation(const Eigen::Vector3d& a, double q) {
  const double c = std::cos(q), s = std::sin(q), t = 1.0 - c;
  Eigen::Matrix3d R;
  R << t * a.x() * a.x() + c, t * a.x() * a.y() - s * a.z(), t * a.x() * a.z() + s * a.y(), t * a.x() * a.y() + s * a.z(),
      t * a.y() * a.y() + c, t * a.y() * a.z() - s * a.x(), t * a.x() * a.z() - s * a.y(), t * a.y() * a.z() + s * a.x(),
      t * a.z() * a.z() + c;
  return R;
}

}  // namespace tendyn::tree::detail
