// The tensegrity force laws and the rods' equations of motion, written once as templates on the
// scalar type T: double for simulate/step/step_batch/the planners (dynamics.cpp), ceres::Jet for
// the exact derivatives of the identification (identify.cpp). Private header (src/).
//
// Every function here performs its floating-point operations in a fixed order: the double
// instantiation is what the kernel has always computed, bit for bit (regression.output_hashes,
// tests/tensegrity/dynamics_kernel_test.cpp against the frozen copy in tests/support).
//
// Sources: document 000 eqs. (1)-(5) (cable law, rigid-rod Newton-Euler), document 001 section 2.3
// (ground), the axial damping law of NTRT and MuJoCo tendons.
#pragma once
#include <tendyn/tensegrity/model.hpp>

#include <cmath>
#include <type_traits>

namespace tendyn::tensegrity::law {

/// The value of a scalar: itself for arithmetic types, the value part of a dual number (ceres::Jet,
/// Eigen::AutoDiffScalar).
/// Branches of the laws (slack, contact) are decided on values, so that a Jet takes the same branch
/// as the double it extends.
template <class T>
inline double value_of(const T& x) {
  if constexpr (std::is_arithmetic_v<T>)
    return static_cast<double>(x);
  else if constexpr (requires { x.a; })
    return x.a;  // ceres::Jet
  else
    return x.value();  // Eigen::AutoDiffScalar
}

/// Rod axis e = R(q) z, the third column of the rotation of the unit quaternion q = (w, x, y, z).
template <class T>
inline void rod_axis(const T* q, T* e) {
  e[0] = 2.0 * (q[1] * q[3] + q[0] * q[2]);
  e[1] = 2.0 * (q[2] * q[3] - q[0] * q[1]);
  e[2] = 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2]);
}

/// Rotation matrix R_WB (row-major r[3 * row + col]) of the rotation of the quaternion
/// q = (w, x, y, z), q != 0: the homogeneous form (2 / |q|^2 in place of 2), so that R is a
/// rotation also for the slightly non-unit quaternions of an integrator's stages (the general-body
/// path; the documents' kernel keeps rod_axis' unit form for bit-identity).
template <class T>
inline void rotation_matrix(const T* q, T* r) {
  const T &w = q[0], &x = q[1], &y = q[2], &z = q[3];
  const T s = 2.0 / (w * w + x * x + y * y + z * z);
  r[0] = 1.0 - s * (y * y + z * z);
  r[1] = s * (x * y - w * z);
  r[2] = s * (x * z + w * y);
  r[3] = s * (x * y + w * z);
  r[4] = 1.0 - s * (x * x + z * z);
  r[5] = s * (y * z - w * x);
  r[6] = s * (x * z - w * y);
  r[7] = s * (y * z + w * x);
  r[8] = 1.0 - s * (x * x + y * y);
}

/// Position and velocity of a point of a rigid body at offset d (world frame, from the centre of
/// mass C): p = p_C + d, v = v_C + w x d. `xr` is the rod's 13-number state (State).
template <class T>
inline void point_kinematics(const T* xr, const T* d, T* p, T* v) {
  p[0] = xr[0] + d[0];
  p[1] = xr[1] + d[1];
  p[2] = xr[2] + d[2];
  v[0] = xr[7] + (xr[11] * d[2] - xr[12] * d[1]);
  v[1] = xr[8] + (xr[12] * d[0] - xr[10] * d[2]);
  v[2] = xr[9] + (xr[10] * d[1] - xr[11] * d[0]);
}

/// Offset d = s e of a rod end on the axis (s from Model::p_BN's z: -(1 - a) L or a L).
inline double rod_end_offset(const Rod& r, int end) { return end == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m; }

/// Cable / spring force law (document 000 eqs. (2)-(3); the axial law of NTRT and MuJoCo tendons),
/// from the element's kinematics: length l > 0, unit vector u from node a to node b, relative
/// velocity dv = v_b - v_a, rate = u . dv, current rest length l0, stiffness k, damping c.
/// Outputs the tension (the force along u, > 0 pulls) and f_a, the force on node a (node b gets
/// -f_a). Returns false when the element carries no force (slack: l <= l0 for a tension-only
/// element, or a damped force that would push with CableForceSign::kClampTension); tension is
/// then 0 and f_a is not written.
template <class T>
inline bool cable_force(const T& l, const T* u, const T* dv, const T& rate, const T& l0, const T& k, const T& c, bool tension_only,
                        DampingLaw damping_law, CableForceSign sign, T& tension, T* f_a) {
  const T stretch = l - l0;
  if (tension_only && value_of(stretch) <= 0.0) {
    tension = T(0.0);
    return false;
  }
  tension = k * stretch;
  if (damping_law == DampingLaw::kRelativeVelocity) {
    // eq. (3): f_d on a = -gamma (v_a - v_b) = gamma dv
    f_a[0] = tension * u[0] + c * dv[0];
    f_a[1] = tension * u[1] + c * dv[1];
    f_a[2] = tension * u[2] + c * dv[2];
    tension = f_a[0] * u[0] + f_a[1] * u[1] + f_a[2] * u[2];
  } else {
    tension += c * rate;
    f_a[0] = tension * u[0];
    f_a[1] = tension * u[1];
    f_a[2] = tension * u[2];
  }
  if (sign == CableForceSign::kClampTension && tension_only && value_of(tension) < 0.0) {
    // a cable cannot push, even while damping: no force at all
    tension = T(0.0);
    return false;
  }
  return true;
}

/// A force actuator's command clamped to its ctrl range when limited (ForceActuator, model.hpp).
template <class T>
inline T actuator_ctrl(const ForceActuator& a, const T& ctrl_in) {
  T ctrl = ctrl_in;
  if (a.ctrl_limited) {
    if (value_of(ctrl) < a.ctrl_min) ctrl = T(a.ctrl_min);
    if (value_of(ctrl) > a.ctrl_max) ctrl = T(a.ctrl_max);
  }
  return ctrl;
}

/// Force of a MuJoCo-style tendon actuator (ForceActuator, model.hpp) on an element of length l
/// and rate l' with input u (the clamped ctrl, or the activation act): L = gear l, V = gear l',
/// F = (g0 + g1 L + g2 V) u + b0 + b1 L + b2 V clamped to the force range when limited (MuJoCo's
/// mj_fwdActuation, gaintype fixed/affine, biastype none/affine). The element's nodes get gear F
/// along the length's gradient.
template <class T>
inline T actuator_force(const ForceActuator& a, const T& l, const T& rate, const T& u) {
  const T L = a.gear * l, V = a.gear * rate;
  T F = (a.gain[0] + a.gain[1] * L + a.gain[2] * V) * u + (a.bias[0] + a.bias[1] * L + a.bias[2] * V);
  if (a.force_limited) {
    if (value_of(F) < a.force_min_N) F = T(a.force_min_N);
    if (value_of(F) > a.force_max_N) F = T(a.force_max_N);
  }
  return F;
}

/// The activation's rate act' from the clamped ctrl: ctrl (integrator), (ctrl - act) / tau
/// (filter), 0 without dynamics (MuJoCo's mj_fwdActuation act_dot).
template <class T>
inline T activation_rate(const ForceActuator& a, const T& ctrl, const T& act) {
  switch (a.dynamics) {
    case ForceActuator::Dynamics::kIntegrator: return ctrl;
    case ForceActuator::Dynamics::kFilter: return (ctrl - act) / a.time_constant_s;
    case ForceActuator::Dynamics::kNone: break;
  }
  return T(0.0);
}

/// Compliant ground (contact.hpp): the force f on a contact point at penetration depth > 0 moving
/// with velocity v: normal F_n = max(0, k depth - c v_z), regularised Coulomb friction
/// F_t = -mu F_n v_t / sqrt(|v_t|^2 + v_s^2). Returns false (f not written) when depth <= 0.
template <class T>
inline bool compliant_ground_force(const T& depth, const T* v, const T& k, const T& c, const T& mu, double slip_velocity_mps, T* f) {
  using std::sqrt;
  if (!(value_of(depth) > 0.0)) return false;
  T Fn = k * depth - c * v[2];
  if (value_of(Fn) < 0.0) Fn = T(0.0);
  const T den = sqrt(v[0] * v[0] + v[1] * v[1] + slip_velocity_mps * slip_velocity_mps);
  f[0] = -mu * Fn * v[0] / den;
  f[1] = -mu * Fn * v[1] / den;
  f[2] = Fn;
  return true;
}

/// Adds the force f, applied at offset d from the centre of mass, to a body's resultant force F
/// and torque tau about C: F += f, tau += d x f.
template <class T>
inline void add_wrench(const T* d, const T* f, T* F, T* tau) {
  F[0] += f[0];
  F[1] += f[1];
  F[2] += f[2];
  tau[0] += d[1] * f[2] - d[2] * f[1];
  tau[1] += d[2] * f[0] - d[0] * f[2];
  tau[2] += d[0] * f[1] - d[1] * f[0];
}

/// The same for a rod end on the axis, d = s e: tau += s (e x f).
template <class T>
inline void add_axial_wrench(double s, const T* e, const T* f, T* F, T* tau) {
  F[0] += f[0];
  F[1] += f[1];
  F[2] += f[2];
  tau[0] += s * (e[1] * f[2] - e[2] * f[1]);
  tau[1] += s * (e[2] * f[0] - e[0] * f[2]);
  tau[2] += s * (e[0] * f[1] - e[1] * f[0]);
}

/// Position and attitude rows of a rigid body's state derivative: p' = v, and
/// q' = 1/2 [0, w] (x) q (world-frame angular velocity multiplies from the left).
template <class T>
inline void pose_rate(const T* xr, T* dx) {
  const T &wx = xr[10], &wy = xr[11], &wz = xr[12];
  dx[0] = xr[7];
  dx[1] = xr[8];
  dx[2] = xr[9];
  const T &qw = xr[3], &qx = xr[4], &qy = xr[5], &qz = xr[6];
  dx[3] = 0.5 * (-wx * qx - wy * qy - wz * qz);
  dx[4] = 0.5 * (wx * qw + wy * qz - wz * qy);
  dx[5] = 0.5 * (wy * qw + wz * qx - wx * qz);
  dx[6] = 0.5 * (wz * qw + wx * qy - wy * qx);
}

/// Newton-Euler right-hand side of an axisymmetric rod (document 000 eq. (5), dynamics.hpp):
/// writes the 13 derivatives of the rod's state xr from the resultant force F and torque tau about
/// C, the axis e, the mass m and the principal moments I_t (transverse) and I_a (axial; 0: a thin
/// rod whose spin is never solved for, `axial` false):
///   v' = F / m,  w' = (tau_perp - (I_a - I_t) w_a (w x e)) / I_t + e tau_a / I_a.
template <class T>
inline void rod_rate(const T* xr, const T* F, const T* tau, const T* e, const T& m, const T& It, const T& Ia, bool axial, T* dx) {
  pose_rate(xr, dx);
  dx[7] = F[0] / m;
  dx[8] = F[1] / m;
  dx[9] = F[2] / m;
  const T &wx = xr[10], &wy = xr[11], &wz = xr[12];
  const T tau_a = tau[0] * e[0] + tau[1] * e[1] + tau[2] * e[2];
  const T w_a = wx * e[0] + wy * e[1] + wz * e[2];
  const T gyro = (Ia - It) * w_a;
  T a0 = (tau[0] - tau_a * e[0] - gyro * (wy * e[2] - wz * e[1])) / It;
  T a1 = (tau[1] - tau_a * e[1] - gyro * (wz * e[0] - wx * e[2])) / It;
  T a2 = (tau[2] - tau_a * e[2] - gyro * (wx * e[1] - wy * e[0])) / It;
  if (axial) {
    const T axial_rate = tau_a / Ia;
    a0 += axial_rate * e[0];
    a1 += axial_rate * e[1];
    a2 += axial_rate * e[2];
  }
  dx[10] = a0;
  dx[11] = a1;
  dx[12] = a2;
}

/// Newton-Euler right-hand side of a rigid body of any inertia: I_W = R I_B R^T (R row-major,
/// I_B symmetric, about C in body axes), v' = F / m, w' = I_W^-1 (tau - w x I_W w) (Euler's
/// equations in the world frame). Cost: a 3 x 3 symmetric solve.
template <class T>
inline void body_rate(const T* xr, const T* F, const T* tau, const T* R, const Eigen::Matrix3d& I_B, const T& m, T* dx) {
  pose_rate(xr, dx);
  dx[7] = F[0] / m;
  dx[8] = F[1] / m;
  dx[9] = F[2] / m;
  // I_W = R I_B R^T
  T RI[9], I[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) RI[3 * i + j] = R[3 * i] * I_B(0, j) + R[3 * i + 1] * I_B(1, j) + R[3 * i + 2] * I_B(2, j);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) I[3 * i + j] = RI[3 * i] * R[3 * j] + RI[3 * i + 1] * R[3 * j + 1] + RI[3 * i + 2] * R[3 * j + 2];
  const T* w = xr + 10;
  const T L[3] = {I[0] * w[0] + I[1] * w[1] + I[2] * w[2], I[3] * w[0] + I[4] * w[1] + I[5] * w[2],
                  I[6] * w[0] + I[7] * w[1] + I[8] * w[2]};
  const T b[3] = {tau[0] - (w[1] * L[2] - w[2] * L[1]), tau[1] - (w[2] * L[0] - w[0] * L[2]), tau[2] - (w[0] * L[1] - w[1] * L[0])};
  // symmetric 3 x 3 solve by the adjugate (I_W is positive definite: validate())
  const T c00 = I[4] * I[8] - I[5] * I[7], c01 = I[5] * I[6] - I[3] * I[8], c02 = I[3] * I[7] - I[4] * I[6];
  const T c11 = I[0] * I[8] - I[2] * I[6], c12 = I[2] * I[3] - I[0] * I[5], c22 = I[0] * I[4] - I[1] * I[3];
  const T det = I[0] * c00 + I[1] * c01 + I[2] * c02;
  dx[10] = (c00 * b[0] + c01 * b[1] + c02 * b[2]) / det;
  dx[11] = (c01 * b[0] + c11 * b[1] + c12 * b[2]) / det;
  dx[12] = (c02 * b[0] + c12 * b[1] + c22 * b[2]) / det;
}

}  // namespace tendyn::tensegrity::law
