// CDPR dynamics: rigid platform + elastic tension-only cables + rate-limited winches.
// Equations in include/tendyn/cdpr/dynamics.hpp and docs/CDPR_DYNAMICS.md.
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tendyn::cdpr {
namespace {

void check_vec(const Eigen::VectorXd& v, int n, const char* field, bool positive) {
  if (v.size() != n)
    throw Error(std::string("cdpr dynamics: ") + field + " has " + std::to_string(v.size()) + " entries, expected " + std::to_string(n));
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(v[i]) || v[i] < 0.0 || (positive && v[i] <= 0.0))
      throw Error(std::string("cdpr dynamics: ") + field + " of cable " + std::to_string(i + 1) + " must be " +
                  (positive ? "> 0" : ">= 0") + " and finite");
  }
}

Eigen::Matrix3d point_inertia(double m, const Eigen::Vector3d& d) {
  return m * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
}

}  // namespace

void finalize_dynamic_model(DynamicModel& m) {
  validate(m.geometry);
  if (m.geometry.motion != Motion::kSpatial) throw Error("cdpr dynamics: the model must be spatial");
  const int n = m.ncable();
  check_vec(m.EA_N, n, "EA", true);
  check_vec(m.damping_Nspm, n, "damping", false);
  check_vec(m.winch_rate_max_m_s, n, "winch rate limit", true);
  if (m.on_carriage.size() != n) throw Error("cdpr dynamics: on_carriage needs one entry per cable");
  if (!(m.platform_mass_kg > 0.0) || !std::isfinite(m.platform_mass_kg)) throw Error("cdpr dynamics: platform mass must be > 0");
  if (!(m.load_mass_kg >= 0.0) || !std::isfinite(m.load_mass_kg)) throw Error("cdpr dynamics: load mass must be >= 0");
  if (!m.platform_inertia_C.allFinite() ||
      (m.platform_inertia_C - m.platform_inertia_C.transpose()).norm() > 1e-9 * m.platform_inertia_C.norm())
    throw Error("cdpr dynamics: platform inertia must be finite and symmetric");
  m.mass_kg = m.platform_mass_kg + m.load_mass_kg;
  m.com_P = (m.platform_mass_kg * m.platform_com_P + m.load_mass_kg * m.load_position_P) / m.mass_kg;
  m.inertia_C = m.platform_inertia_C + point_inertia(m.platform_mass_kg, m.platform_com_P - m.com_P) +
                point_inertia(m.load_mass_kg, m.load_position_P - m.com_P);
  Eigen::LLT<Eigen::Matrix3d> llt(m.inertia_C);
  if (llt.info() != Eigen::Success) throw Error("cdpr dynamics: inertia is not positive definite");
  m.inertia_C_inv = m.inertia_C.inverse();
}

DynamicModel make_printer_dynamics(const Model& geometry, double load_mass_kg) {
  DynamicModel m;
  m.geometry = geometry;
  const int n = geometry.ncable();
  m.platform_mass_kg = geometry.platform_mass_kg > 0.0 ? geometry.platform_mass_kg : 300.0;
  m.platform_com_P = geometry.p_PC;
  const double a = 1.0, b = 1.0, c = 0.8, M = m.platform_mass_kg;
  m.platform_inertia_C = Eigen::Vector3d(M * (b * b + c * c) / 12.0, M * (a * a + c * c) / 12.0, M * (a * a + b * b) / 12.0).asDiagonal();
  m.load_mass_kg = load_mass_kg;
  m.load_position_P = Eigen::Vector3d(0.0, 0.0, -0.2);
  m.EA_N = Eigen::VectorXd::Constant(n, 2.0e7);
  m.damping_Nspm = Eigen::VectorXd::Constant(n, 2000.0);
  m.winch_rate_max_m_s = Eigen::VectorXd::Constant(n, 0.5);
  m.on_carriage = Eigen::VectorXi::Zero(n);
  for (int i = 0; i < n; ++i)
    if (!geometry.cable_groups.empty() && geometry.cable_groups[static_cast<std::size_t>(i)] == "lower") m.on_carriage[i] = 1;
  finalize_dynamic_model(m);
  return m;
}

Inputs make_inputs(const DynamicModel& model) {
  const int n = model.ncable();
  Inputs in;
  in.winch_rate_m_s = Eigen::VectorXd::Zero(n);
  in.carriage_z_m = Eigen::VectorXd::Zero(n);
  in.carriage_vz_m_s = Eigen::VectorXd::Zero(n);
  return in;
}

DynamicData make_dynamic_data(const DynamicModel& model) {
  const int n = model.ncable();
  const int s = model.state_size();
  DynamicData d;
  d.geo = make_data(model.geometry);
  d.tension_N = Eigen::VectorXd::Zero(n);
  d.length_rate = Eigen::VectorXd::Zero(n);
  d.xdot = Eigen::VectorXd::Zero(s);
  for (auto& k : d.stage) k.setZero(s);
  d.tmp.setZero(s);
  d.err.setZero(s);
  d.anchors_W = model.geometry.p_WA;
  return d;
}

StateVector make_state(const DynamicModel& model, const Pose& pose, const Eigen::VectorXd& l0) {
  const int n = model.ncable();
  if (l0.size() != n) throw Error("cdpr dynamics: rest lengths need one entry per cable");
  StateVector x = StateVector::Zero(model.state_size());
  x.segment<3>(0) = pose.p_WP;
  const Eigen::Quaterniond q(pose.R_WP);
  x[3] = q.w();
  x[4] = q.x();
  x[5] = q.y();
  x[6] = q.z();
  x.tail(n) = l0;
  return x;
}

Pose state_pose(const StateVector& x) {
  Pose p;
  p.p_WP = x.segment<3>(0);
  p.R_WP = Eigen::Quaterniond(x[3], x[4], x[5], x[6]).normalized().toRotationMatrix();
  return p;
}

namespace {

// Geometry with moving carriages: fills d.geo (p_WB, l_W, length, u_W, J) and d.length_rate.
void eval_cables(const DynamicModel& m, const Inputs& in, const StateVector& x, DynamicData& d) {
  const int n = m.ncable();
  const Eigen::Vector3d p = x.segment<3>(0);
  const Eigen::Quaterniond q(x[3], x[4], x[5], x[6]);
  const Eigen::Matrix3d R = q.normalized().toRotationMatrix();
  const Eigen::Vector3d v = x.segment<3>(7);
  const Eigen::Vector3d wW = R * x.segment<3>(10);
  for (int i = 0; i < n; ++i) {
    Eigen::Vector3d a = m.geometry.p_WA.col(i);
    Eigen::Vector3d va = Eigen::Vector3d::Zero();
    if (m.on_carriage[i] != 0) {
      a.z() += in.carriage_z_m[i];
      va.z() = in.carriage_vz_m_s[i];
    }
    d.anchors_W.col(i) = a;
    const Eigen::Vector3d rB = R * m.geometry.p_PB.col(i);
    const Eigen::Vector3d b = p + rB;
    const Eigen::Vector3d l = a - b;
    const double len = l.norm();
    if (!(len > 1e-9))
      throw SimulationError(
          "cdpr dynamics: cable " + m.geometry.cable_names[static_cast<std::size_t>(i)] + " has zero length or the state is not finite",
          0.0);
    const Eigen::Vector3d u = l / len;
    d.geo.p_WB.col(i) = b;
    d.geo.l_W.col(i) = l;
    d.geo.length_m[i] = len;
    d.geo.u_W.col(i) = u;
    d.geo.J.block<3, 1>(0, i) = u;
    d.geo.J.block<3, 1>(3, i) = rB.cross(u);
    const Eigen::Vector3d vb = v + wW.cross(rB);
    d.length_rate[i] = u.dot(va - vb);
  }
}

}  // namespace

Eigen::VectorXd rest_lengths_for_tensions(const DynamicModel& m, const Inputs& in, const Pose& pose, const Eigen::VectorXd& f_N) {
  DynamicData d = make_dynamic_data(m);
  const StateVector x = make_state(m, pose, Eigen::VectorXd::Ones(m.ncable()));
  eval_cables(m, in, x, d);
  Eigen::VectorXd l0(m.ncable());
  for (int i = 0; i < m.ncable(); ++i) l0[i] = m.EA_N[i] * d.geo.length_m[i] / (m.EA_N[i] + f_N[i]);
  return l0;
}

void compute_derivative(const DynamicModel& m, const Inputs& in, const StateVector& x, DynamicData& d) {
  const int n = m.ncable();
  eval_cables(m, in, x, d);
  const Eigen::Quaterniond q = Eigen::Quaterniond(x[3], x[4], x[5], x[6]).normalized();
  const Eigen::Matrix3d R = q.toRotationMatrix();
  const Eigen::Vector3d w = x.segment<3>(10);
  const Eigen::Vector3d r = R * m.com_P;  // P -> C in world
  Eigen::Vector3d F = m.mass_kg * m.geometry.gravity_W + in.force_ext_W;
  Eigen::Vector3d M_C = in.moment_ext_W;  // about C, world
  for (int i = 0; i < n; ++i) {
    const double l0 = x[13 + i];
    const double len = d.geo.length_m[i];
    const double l0dot = std::clamp(in.winch_rate_m_s[i], -m.winch_rate_max_m_s[i], m.winch_rate_max_m_s[i]);
    double f = 0.0;
    if (len > l0) f = std::max(0.0, m.EA_N[i] / l0 * (len - l0) + m.damping_Nspm[i] * (d.length_rate[i] - l0dot));
    d.tension_N[i] = f;
    const Eigen::Vector3d fi = f * d.geo.u_W.col(i);
    F += fi;
    M_C += (d.geo.p_WB.col(i) - x.segment<3>(0) - r).cross(fi);
  }
  const Eigen::Vector3d M_b = R.transpose() * M_C;
  const Eigen::Vector3d alpha = m.inertia_C_inv * (M_b - w.cross(m.inertia_C * w));
  const Eigen::Vector3d wW = R * w;
  const Eigen::Vector3d aC = F / m.mass_kg;
  const Eigen::Vector3d aP = aC - (R * alpha).cross(r) - wW.cross(wW.cross(r));
  d.a_P_W = aP;
  d.alpha_P = alpha;
  d.xdot.segment<3>(0) = x.segment<3>(7);
  // qdot = 0.5 q * (0, w_body)
  const Eigen::Quaterniond qw(0.0, w.x(), w.y(), w.z());
  const Eigen::Quaterniond qd = Eigen::Quaterniond(x[3], x[4], x[5], x[6]) * qw;
  d.xdot[3] = 0.5 * qd.w();
  d.xdot[4] = 0.5 * qd.x();
  d.xdot[5] = 0.5 * qd.y();
  d.xdot[6] = 0.5 * qd.z();
  d.xdot.segment<3>(7) = aP;
  d.xdot.segment<3>(10) = alpha;
  for (int i = 0; i < n; ++i) d.xdot[13 + i] = std::clamp(in.winch_rate_m_s[i], -m.winch_rate_max_m_s[i], m.winch_rate_max_m_s[i]);
}

void step_rk4(const DynamicModel& m, const Inputs& in, StateVector& x, double h, DynamicData& d, double t0_s) {
  try {
    compute_derivative(m, in, x, d);
    d.stage[0] = d.xdot;
    rk4_step(x, t0_s, h, d.stage[0], d.stage[1], d.stage[2], d.stage[3], d.tmp, [&](double, Eigen::VectorXd& out) {
      compute_derivative(m, in, d.tmp, d);
      out = d.xdot;
    });
  } catch (const SimulationError& e) {
    throw SimulationError(e.what(), t0_s);  // compute_derivative does not know the time
  }
  x.segment<4>(3).normalize();
  if (!x.allFinite()) throw SimulationError("cdpr dynamics: state is not finite", t0_s + h);
}

AdaptiveStep step_dopri5(const DynamicModel& m, const Inputs& in, StateVector& x, double h, DynamicData& d, const Tolerance& tol,
                         double t0_s) {
  if (!(h >= tol.h_min_s)) throw SimulationError("cdpr dynamics: DOPRI5 step below h_min", t0_s);
  double error = 0.0;
  try {
    compute_derivative(m, in, x, d);
    d.stage[0] = d.xdot;
    error = dopri5_trial(x, t0_s, h, d.stage, d.tmp, d.err, tol.rtol, tol.atol, [&](double, Eigen::VectorXd& out) {
      compute_derivative(m, in, d.tmp, d);
      out = d.xdot;
    });
  } catch (const SimulationError& e) {
    throw SimulationError(e.what(), t0_s);  // compute_derivative does not know the time
  }
  if (!std::isfinite(error)) throw SimulationError("cdpr dynamics: state is not finite", t0_s);
  const AdaptiveStep r = dopri5_control(error, h, tol.h_max_s);
  if (r.accepted) {
    x = d.tmp;
    x.segment<4>(3).normalize();
  }
  return r;
}

AdaptiveStep step_dopri5(const DynamicModel& m, const Inputs& in, StateVector& x, double h, DynamicData& d, double rtol, double atol,
                         double h_min) {
  Tolerance tol;
  tol.rtol = rtol;
  tol.atol = atol;
  tol.h_min_s = h_min;
  tol.h_max_s = std::numeric_limits<double>::infinity();
  return step_dopri5(m, in, x, h, d, tol, 0.0);
}

DynamicEnergy compute_energy(const DynamicModel& m, const Inputs& in, const StateVector& x, DynamicData& d) {
  eval_cables(m, in, x, d);
  const Eigen::Matrix3d R = Eigen::Quaterniond(x[3], x[4], x[5], x[6]).normalized().toRotationMatrix();
  const Eigen::Vector3d w = x.segment<3>(10);
  const Eigen::Vector3d r = R * m.com_P;
  const Eigen::Vector3d vC = x.segment<3>(7) + (R * w).cross(r);
  DynamicEnergy e;
  e.kinetic_J = 0.5 * m.mass_kg * vC.squaredNorm() + 0.5 * w.dot(m.inertia_C * w);
  e.gravity_J = -m.mass_kg * m.geometry.gravity_W.dot(x.segment<3>(0) + r);
  for (int i = 0; i < m.ncable(); ++i) {
    const double l0 = x[13 + i];
    const double s = d.geo.length_m[i] - l0;
    if (s > 0.0) e.elastic_J += 0.5 * m.EA_N[i] / l0 * s * s;
  }
  return e;
}

}  // namespace tendyn::cdpr
