// CDPR pose and tension control, sensor models. Design in include/tendyn/cdpr/control.hpp.
#include <tendyn/cdpr/control.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/io/csv.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tendyn::cdpr {

Measurement make_measurement(const DynamicModel& model, const std::string& lower_group) {
  Measurement m;
  const auto lower = cables_in_group(model.geometry, lower_group);
  m.lower_force_N = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(lower.size()));
  m.lower_inclination_rad = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(lower.size()));
  m.rest_length_m = Eigen::VectorXd::Zero(model.ncable());
  return m;
}

SensorConfig typical_sensor_noise(std::uint64_t seed) {
  SensorConfig c;
  c.force_sigma_N = 20.0;
  c.inclination_sigma_rad = 1e-3;
  c.accel_sigma = 0.02;
  c.gyro_sigma = 1e-3;
  c.position_sigma_m = 2e-4;
  c.velocity_sigma_m_s = 1e-3;
  c.seed = seed;
  return c;
}

Sensors::Sensors(const DynamicModel& model, const SensorConfig& config, const std::string& lower_group)
    : cfg_(config), lower_(cables_in_group(model.geometry, lower_group)), rng_(config.seed) {
  for (double s :
       {cfg_.force_sigma_N, cfg_.inclination_sigma_rad, cfg_.accel_sigma, cfg_.gyro_sigma, cfg_.position_sigma_m, cfg_.velocity_sigma_m_s})
    if (!(s >= 0.0) || !std::isfinite(s)) throw Error("cdpr sensors: noise sigmas must be finite and >= 0");
}

double Sensors::noise(double sigma) { return sigma > 0.0 ? sigma * normal_(rng_) : 0.0; }

void Sensors::measure(const DynamicModel& model, const StateVector& x, const DynamicData& data, Measurement& out) {
  const Pose pose = state_pose(x);
  out.pose = pose;
  for (int k = 0; k < 3; ++k) out.pose.p_WP[k] += noise(cfg_.position_sigma_m);
  out.v_W = x.segment<3>(7);
  for (int k = 0; k < 3; ++k) out.v_W[k] += noise(cfg_.velocity_sigma_m_s);
  out.gyro_P = x.segment<3>(10);
  const Eigen::Vector3d sf = pose.R_WP.transpose() * (data.a_P_W - model.geometry.gravity_W);
  for (int k = 0; k < 3; ++k) {
    out.gyro_P[k] += noise(cfg_.gyro_sigma);
    out.accel_P[k] = sf[k] + noise(cfg_.accel_sigma);
  }
  for (std::size_t j = 0; j < lower_.size(); ++j) {
    const int i = lower_[j];
    const auto jj = static_cast<Eigen::Index>(j);
    out.lower_force_N[jj] = data.tension_N[i] + noise(cfg_.force_sigma_N);
    const Eigen::Vector3d u = data.geo.u_W.col(i);
    out.lower_inclination_rad[jj] = std::atan2(u.z(), u.head<2>().norm()) + noise(cfg_.inclination_sigma_rad);
  }
  out.rest_length_m = x.tail(model.ncable());
}

namespace {

// A solve whose answer breaks the bounds (an f >= 0 method: Status::kOutOfBounds) is an error,
// never a silent use of tensions outside them.
void check_bounds_kept(const TensionResult& r, Method method, const char* which) {
  if (r.status == Status::kOutOfBounds)
    throw Error(std::string("cdpr controller: ") + which + " by '" + to_string(method) + "': " + r.reason);
}

}  // namespace

Controller::Controller(const DynamicModel& model, const ControllerConfig& config)
    : model_(&model),
      cfg_(config),
      upper_(cables_in_group(model.geometry, config.upper_group)),
      lower_(cables_in_group(model.geometry, config.lower_group)),
      geo_(model.geometry),
      ws_(6, model.ncable()),
      ws_up_(6, std::max(1, static_cast<int>(upper_.size()))),
      ws_low_(3, std::max(1, static_cast<int>(lower_.size()))) {
  if (!(cfg_.tau_winch_s > 0.0)) throw Error("cdpr controller: tau_winch must be > 0");
  if (!(cfg_.period_s > 0.0) || !(cfg_.tau_tension_s > 0.0) || !(cfg_.tension_rate_max_Nps > 0.0) || !(cfg_.tau_filter_s >= 0.0) ||
      !std::isfinite(cfg_.tau_filter_s))
    throw Error("cdpr controller: period, tau_tension and tension_rate_max must be > 0, tau_filter >= 0");
  const double f_min = cfg_.f_min_N.value_or(model.geometry.f_min_N);
  const double f_max = cfg_.f_max_N.value_or(model.geometry.f_max_N);
  if (!(f_min >= 0.0) || !std::isfinite(f_min) || !(f_max > f_min))
    throw Error("cdpr controller: tension bounds need 0 <= f_min < f_max (got f_min " + io::format_number(f_min) + " N, f_max " +
                io::format_number(f_max) + " N)");
  if ((cfg_.method == Method::kExhaustive || cfg_.method == Method::kLawsonHanson) && f_min > 0.0)
    throw Error(std::string("cdpr controller: method '") + to_string(cfg_.method) +
                "' solves f >= 0 only and cannot honour the lower tension bound " + io::format_number(f_min) +
                " N (use exact, centred or a closed form, or set f_min_N to 0)");
  geo_.platform_mass_kg = model.mass_kg;
  geo_.p_PC = model.com_P;
  data_ = make_data(geo_);
  ref_data_ = make_data(geo_);
  opt_.f_min_N = f_min;
  opt_.f_max_N = f_max;
  opt_low_.f_min_N = 0.0;  // document 002: non-negative tensions
  opt_low_.f_max_N = f_max;
  if (cfg_.lower_profile == LowerProfile::kSystem4 && (lower_.empty() || model.geometry.wrench_dim() != 6))
    throw Error("cdpr controller: lower profile 'system4' needs a spatial model with a lower cable group");
  res_low_.f_N = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(lower_.size()));
  J4_ = Eigen::MatrixXd::Zero(3, static_cast<Eigen::Index>(lower_.size()));
  w4_ = Eigen::VectorXd::Zero(3);
  const int n = model.ncable();
  res_full_.f_N = Eigen::VectorXd::Zero(n);
  res_up_.f_N = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(upper_.size()));
  Ju_ = Eigen::MatrixXd::Zero(6, static_cast<Eigen::Index>(upper_.size()));
  wu_ = Eigen::VectorXd::Zero(6);
  f_opt_ = Eigen::VectorXd::Zero(n);
  f_des_ = Eigen::VectorXd::Zero(n);
  offset_ = Eigen::VectorXd::Zero(n);
  f_meas_lp_ = Eigen::VectorXd::Zero(n);
  f_opt_lp_ = Eigen::VectorXd::Zero(n);
  w_d_.setZero();
  twist_.setZero();
}

void Controller::reset() { have_offset_ = false; }

void Controller::update(const Reference& ref, const Measurement& meas, Inputs& in) {
  const DynamicModel& m = *model_;
  const int n = m.ncable();
  for (int i = 0; i < n; ++i) geo_.p_WA(2, i) = m.geometry.p_WA(2, i) + (m.on_carriage[i] != 0 ? in.carriage_z_m[i] : 0.0);
  update_geometry(geo_, meas.pose, data_);
  // 1. pose regulators -> desired wrench
  const Eigen::Vector3d r = meas.pose.R_WP * m.com_P;
  const Eigen::Vector3d F = m.mass_kg * (ref.a_W - m.geometry.gravity_W) - in.force_ext_W + cfg_.kp_pos_Npm * (ref.p_W - meas.pose.p_WP) +
                            cfg_.kd_pos_Nspm * (ref.v_W - meas.v_W);
  const Eigen::Quaterniond q(meas.pose.R_WP);
  const Eigen::Vector3d e_R = quat_log(ref.q_WP * q.conjugate());
  const Eigen::Vector3d w_W = meas.pose.R_WP * meas.gyro_P;
  w_d_.head<3>() = F;
  w_d_.tail<3>() =
      r.cross(m.mass_kg * (ref.a_W - m.geometry.gravity_W)) - in.moment_ext_W + cfg_.kp_rot_Nmprad * e_R - cfg_.kd_rot_Nmsprad * w_W;
  // 2. optimal distribution at the measured pose
  solve_tensions(cfg_.method, data_.J, w_d_, opt_, ws_, res_full_);
  check_bounds_kept(res_full_, cfg_.method, "full distribution");
  f_opt_ = res_full_.f_N;
  if (cfg_.lower_profile == LowerProfile::kSystem4) {
    // document 002's system (4): rows Fx, Fy, Mz (0, 1, 5); right-hand side what the upper part
    // of the full solution leaves in those rows
    constexpr int kRows[3] = {0, 1, 5};
    for (int r = 0; r < 3; ++r) {
      double w = w_d_[kRows[r]];
      for (int i : upper_) w -= data_.J(kRows[r], i) * f_opt_[i];
      w4_[r] = w;
      for (std::size_t j = 0; j < lower_.size(); ++j) J4_(r, static_cast<Eigen::Index>(j)) = data_.J(kRows[r], lower_[j]);
    }
    solve_tensions(cfg_.lower_method, J4_, w4_, opt_low_, ws_low_, res_low_);
    // system (4) is the document's f >= 0 problem: a broken f_max stays reported in
    // lower_solution().status (out_of_bounds), as the printer experiment's pretension sweeps meet it.
    for (std::size_t j = 0; j < lower_.size(); ++j) f_opt_[lower_[j]] = res_low_.f_N[static_cast<Eigen::Index>(j)];
  }
  // 3. upper cables carry what the measured lower forces leave
  wu_ = w_d_;
  for (std::size_t j = 0; j < lower_.size(); ++j) wu_ -= data_.J.col(lower_[j]) * meas.lower_force_N[static_cast<Eigen::Index>(j)];
  for (std::size_t j = 0; j < upper_.size(); ++j) Ju_.col(static_cast<Eigen::Index>(j)) = data_.J.col(upper_[j]);
  solve_tensions(cfg_.method, Ju_, wu_, opt_, ws_up_, res_up_);
  check_bounds_kept(res_up_, cfg_.method, "upper distribution");
  for (std::size_t j = 0; j < upper_.size(); ++j) f_des_[upper_[j]] = res_up_.f_N[static_cast<Eigen::Index>(j)];
  // 4./5. winch rates
  // measured cable length rates dl/dt = -J^T [v; omega] (feed-forward of the winch rates), the
  // command being held over the period: the rate at its middle (without a_ref T/2 the rest lengths lag by
  // tau_winch a T/2 during the 0.5 m/s^2 ramps: ~10 N per cable, 1.2 mrad of orientation error)
  twist_.head<3>() = meas.v_W + 0.5 * cfg_.period_s * ref.a_W;
  twist_.tail<3>() = w_W;
  auto winch = [&](int i) {
    const double ea = m.EA_N[i] / (m.EA_N[i] + f_des_[i]);
    const double l0_d = ea * data_.length_m[i];
    const double ldot = -data_.J.col(i).dot(twist_);
    in.winch_rate_m_s[i] = ea * ldot + (l0_d - meas.rest_length_m[i]) / cfg_.tau_winch_s;
  };
  for (int i : upper_) winch(i);
  // lower cables: kinematic lengths of the reference pose minus the offset
  Pose rp;
  rp.p_WP = ref.p_W;
  rp.R_WP = ref.q_WP.toRotationMatrix();
  update_geometry(geo_, rp, ref_data_);
  const bool first = !have_offset_;
  if (first) {  // keep the stretch l - l0 = f l0 / EA the force sensors read now
    for (std::size_t j = 0; j < lower_.size(); ++j) {
      const int i = lower_[j];
      const double f = std::max(0.0, meas.lower_force_N[static_cast<Eigen::Index>(j)]);
      offset_[i] = f * meas.rest_length_m[i] / m.EA_N[i];
    }
    have_offset_ = true;
  }
  // first-order low-pass (exact discretisation at the control period) of the readings the
  // tension regulator uses; restarted from the current readings
  const double a_lp = cfg_.tau_filter_s > 0.0 ? 1.0 - std::exp(-cfg_.period_s / cfg_.tau_filter_s) : 1.0;
  const double gain = cfg_.period_s / cfg_.tau_tension_s, df_max = cfg_.tension_rate_max_Nps * cfg_.period_s;
  twist_.head<3>() = ref.v_W + 0.5 * cfg_.period_s * ref.a_W;
  twist_.tail<3>().setZero();
  for (std::size_t j = 0; j < lower_.size(); ++j) {
    const int i = lower_[j];
    const double fm = meas.lower_force_N[static_cast<Eigen::Index>(j)];
    f_des_[i] = f_opt_[i];
    if (first) {
      f_meas_lp_[i] = fm;
      f_opt_lp_[i] = f_opt_[i];
    } else {
      f_meas_lp_[i] += a_lp * (fm - f_meas_lp_[i]);
      f_opt_lp_[i] += a_lp * (f_opt_[i] - f_opt_lp_[i]);
    }
    if (cfg_.tension_control) {
      // tension regulator: raising f by df needs l0 shorter by df / k
      const double df = std::clamp(gain * (f_opt_lp_[i] - f_meas_lp_[i]), -df_max, df_max);
      offset_[i] += df * meas.rest_length_m[i] / m.EA_N[i];
    }
    const double l0_d = ref_data_.length_m[i] - offset_[i];
    const double ldot = -ref_data_.J.col(i).dot(twist_);
    in.winch_rate_m_s[i] = ldot + (l0_d - meas.rest_length_m[i]) / cfg_.tau_winch_s;
  }
}

}  // namespace tendyn::cdpr
