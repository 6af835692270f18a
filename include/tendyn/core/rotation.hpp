// Rotation helpers shared by all modules. Quaternions are Eigen::Quaterniond (w, x, y, z),
// always unit length, mapping body-frame vectors to the world frame: v_W = q * v_B.
#pragma once
#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cmath>

namespace tendyn {

/// Skew-symmetric matrix: skew(a) * b == a.cross(b).
inline Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

/// Exponential map: the unit quaternion of the rotation by the vector `phi` (axis * angle, rad).
/// Uses a Taylor series near zero so it is smooth and exact to machine precision there.
inline Eigen::Quaterniond quat_exp(const Eigen::Vector3d& phi) {
  const double theta2 = phi.squaredNorm();
  const double theta = std::sqrt(theta2);
  double w, s;  // s = sin(theta/2)/theta
  if (theta < 1e-4) {
    w = 1.0 - theta2 / 8.0 + theta2 * theta2 / 384.0;
    s = 0.5 - theta2 / 48.0 + theta2 * theta2 / 3840.0;
  } else {
    w = std::cos(0.5 * theta);
    s = std::sin(0.5 * theta) / theta;
  }
  return Eigen::Quaterniond(w, s * phi.x(), s * phi.y(), s * phi.z());
}

/// Logarithm map: the rotation vector (axis * angle, angle in [0, pi]) of a unit quaternion.
inline Eigen::Vector3d quat_log(const Eigen::Quaterniond& q_in) {
  Eigen::Quaterniond q = q_in.w() < 0.0 ? Eigen::Quaterniond(-q_in.coeffs()) : q_in;
  const Eigen::Vector3d v = q.vec();
  const double sn = v.norm();
  if (sn < 1e-12) return 2.0 * v;  // first order, exact in the limit
  const double angle = 2.0 * std::atan2(sn, q.w());
  return v * (angle / sn);
}

/// The minimal rotation taking unit vector `from` to unit vector `to` (any rotation if they are
/// opposite: then about an axis perpendicular to `from`).
inline Eigen::Quaterniond quat_from_two_vectors(const Eigen::Vector3d& from, const Eigen::Vector3d& to) {
  return Eigen::Quaterniond::FromTwoVectors(from, to).normalized();
}

/// Angle between two rotations (rad, in [0, pi]).
inline double rotation_angle_between(const Eigen::Quaterniond& a, const Eigen::Quaterniond& b) {
  return quat_log(a.conjugate() * b).norm();
}

}  // namespace tendyn
