// Inertial-parameter identification of tree robots: the regressor against RNEA, the base
// parameters, and the acceptance test (issue 16): the biped's base parameters recovered from
// exciting motion and torque data.
#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/identify.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "tree_fixtures.hpp"

namespace tendyn::tree {
namespace {

using testing::model_path;
using testing::random_tree;
using testing::random_vector;

TEST(TreeIdentify, RegressorTimesParametersIsRnea) {
  for (const char* file : {"double_pendulum.yaml", "arm6.yaml", "biped.yaml", "humanoid35.urdf"}) {
    const Model m = load_model(model_path(file));
    Data d(m);
    const Eigen::VectorXd pi = inertial_parameters(m);
    ASSERT_EQ(pi.size(), 10 * m.nlinks());
    for (unsigned s = 0; s < 5; ++s) {
      const Eigen::VectorXd q = m.random_configuration(100 + s);
      const Eigen::VectorXd v = random_vector(m.nv, 200 + s, 2.0), a = random_vector(m.nv, 300 + s, 3.0);
      const Eigen::VectorXd tau = rnea(m, d, q, v, a);
      const Eigen::MatrixXd Y = joint_torque_regressor(m, d, q, v, a);
      const double err = (Y * pi - tau).cwiseAbs().maxCoeff();
      EXPECT_LE(err, 1e-12 * std::max(1.0, tau.cwiseAbs().maxCoeff())) << file << " sample " << s;
    }
  }
  const Model r = random_tree(12, 5);
  Data d(r);
  const Eigen::VectorXd q = r.random_configuration(9), v = random_vector(r.nv, 10), a = random_vector(r.nv, 11);
  const Eigen::VectorXd tau = rnea(r, d, q, v, a);
  EXPECT_LE((joint_torque_regressor(r, d, q, v, a) * inertial_parameters(r) - tau).cwiseAbs().maxCoeff(),
            1e-12 * std::max(1.0, tau.cwiseAbs().maxCoeff()));
}

TEST(TreeIdentify, ParametersRoundTripAndConsistencyChecks) {
  const Model m = load_model(model_path("biped.yaml"));
  const Model back = with_inertial_parameters(m, inertial_parameters(m));
  for (int i = 0; i < m.nlinks(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    EXPECT_NEAR(back.links[u].mass_kg, m.links[u].mass_kg, 1e-15);
    EXPECT_LE((back.links[u].p_LC_m - m.links[u].p_LC_m).norm(), 1e-14);
    EXPECT_LE((back.links[u].inertia_C_kgm2 - m.links[u].inertia_C_kgm2).norm(), 1e-14);
  }
  EXPECT_EQ(inertial_parameter_names(m)[10 * 5], "trunk.m_kg");
  Eigen::VectorXd pi = inertial_parameters(m);
  pi[10 * 5] = -1.0;
  EXPECT_THROW((void)with_inertial_parameters(m, pi), Error);
  pi = inertial_parameters(m);
  pi[10 * 5 + 9] = -5.0;  // trunk Izz about its origin negative: not positive semidefinite
  EXPECT_THROW((void)with_inertial_parameters(m, pi), Error);
  EXPECT_THROW((void)with_inertial_parameters(m, Eigen::VectorXd::Zero(3)), Error);
}

// Double pendulum about parallel y axes with gravity in the plane: 6 base parameters (Khalil &
// Dombre, planar 2R: ZZ1R, MX1R, MY1R, ZZ2, MX2, MY2). Mass added at link 2's origin is the same
// as that point mass carried by link 1, so d = (link2.m +1; link1.m -1, link1.mcz +1 (origin at
// z = -1), link1.Ixx -1, link1.Iyy -1) changes no torque and must be in the null space of K.
TEST(TreeIdentify, BaseParametersOfTheDoublePendulum) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  const BaseParameters b = base_parameters(m);
  EXPECT_EQ(b.rank, 6);
  EXPECT_EQ(b.K.rows(), 6);
  EXPECT_EQ(static_cast<int>(b.names.size()), 6);
  Eigen::VectorXd d = Eigen::VectorXd::Zero(20);
  d[10 + 0] = 1.0;
  d[0] = -1.0;
  d[3] = 1.0;
  d[4] = -1.0;
  d[7] = -1.0;
  EXPECT_LE((b.K * d).norm(), 1e-9);
  Data data(m);
  const Eigen::VectorXd q = m.random_configuration(3), v = random_vector(2, 4), a = random_vector(2, 5);
  const Eigen::MatrixXd Y = joint_torque_regressor(m, data, q, v, a);
  EXPECT_LE((Y * d).norm(), 1e-12);
  // W pi = W_1 K pi for any pi.
  const Eigen::VectorXd pi = random_vector(20, 6);
  Eigen::MatrixXd Y1(2, b.rank);
  for (int k = 0; k < b.rank; ++k) Y1.col(k) = Y.col(b.independent[static_cast<std::size_t>(k)]);
  EXPECT_LE((Y * pi - Y1 * (b.K * pi)).norm(), 1e-10 * (Y * pi).norm());
}

TEST(TreeIdentify, BaseParameterMapHoldsOnNewStates) {
  for (const char* file : {"arm6.yaml", "biped.yaml"}) {
    const Model m = load_model(model_path(file));
    const BaseParameters b = base_parameters(m);
    EXPECT_GT(b.rank, 0);
    EXPECT_LT(b.rank, b.nparam) << file;
    Data d(m);
    for (unsigned s = 0; s < 3; ++s) {
      Eigen::VectorXd pi = random_vector(b.nparam, 40 + s);
      for (int i = 0; i < m.nlinks(); ++i)  // the fictitious chain's links have no parameters
        if (!has_inertial_parameters(m, i)) pi.segment<10>(10 * i).setZero();
      const Eigen::VectorXd q = m.random_configuration(900 + s), v = random_vector(m.nv, 50 + s), a = random_vector(m.nv, 60 + s);
      const Eigen::MatrixXd Y = joint_torque_regressor(m, d, q, v, a);
      Eigen::MatrixXd Y1(m.nv, b.rank);
      for (int k = 0; k < b.rank; ++k) Y1.col(k) = Y.col(b.independent[static_cast<std::size_t>(k)]);
      EXPECT_LE((Y * pi - Y1 * (b.K * pi)).norm(), 1e-9 * std::max(1.0, (Y * pi).norm())) << file;
    }
  }
}

// Exciting trajectory of Swevers et al. (1997): q_j(t) = q0_j + sum_l a_jl/(l w) sin(l w t) -
// b_jl/(l w) cos(l w t), fundamental 0.2 Hz, 5 harmonics; q, v, a analytic.
struct Fourier {
  Eigen::MatrixXd a, b;
  Eigen::VectorXd q0;
  double w = 2.0 * M_PI * 0.2;
};
Fourier random_fourier(const Model& m, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Fourier f;
  const int L = 5;
  f.a.resize(m.nv, L);
  f.b.resize(m.nv, L);
  f.q0 = Eigen::VectorXd::Zero(m.nv);
  for (int j = 0; j < m.nv; ++j) {
    const Joint& jt = m.joints[static_cast<std::size_t>(m.v_to_link[static_cast<std::size_t>(j)])];
    const double amp = jt.type == JointType::kPrismatic ? 0.1 : 0.25;  // per harmonic, [m/s] or [rad/s]
    for (int l = 0; l < L; ++l) {
      f.a(j, l) = amp * u(rng);
      f.b(j, l) = amp * u(rng);
    }
    f.q0[j] = jt.type == JointType::kPrismatic ? 0.0 : 0.3 * u(rng);
  }
  return f;
}
void fourier_state(const Fourier& f, double t, Eigen::VectorXd& q, Eigen::VectorXd& v, Eigen::VectorXd& a) {
  q = f.q0;
  v.setZero(f.q0.size());
  a.setZero(f.q0.size());
  for (int l = 1; l <= f.a.cols(); ++l) {
    const double wl = l * f.w, s = std::sin(wl * t), c = std::cos(wl * t);
    q += (f.a.col(l - 1) * s - f.b.col(l - 1) * c) / wl;
    v += f.a.col(l - 1) * c + f.b.col(l - 1) * s;
    a += wl * (-f.a.col(l - 1) * s + f.b.col(l - 1) * c);
  }
}

MotionLog exciting_log(const Model& m, double duration_s, double rate_Hz, double noise_fraction, unsigned seed) {
  const Fourier f = random_fourier(m, seed);
  const auto n = static_cast<Eigen::Index>(duration_s * rate_Hz);
  MotionLog log;
  log.t_s.resize(n);
  log.q.resize(n, m.nq);
  log.v.resize(n, m.nv);
  log.a.resize(n, m.nv);
  log.tau.resize(n, m.nv);
  Data d(m);
  Eigen::VectorXd q, v, a;
  for (Eigen::Index k = 0; k < n; ++k) {
    const double t = static_cast<double>(k) / rate_Hz;
    fourier_state(f, t, q, v, a);
    log.t_s[k] = t;
    log.q.row(k) = q.transpose();
    log.v.row(k) = v.transpose();
    log.a.row(k) = a.transpose();
    log.tau.row(k) = rnea(m, d, q, v, a).transpose();
  }
  if (noise_fraction > 0.0) {
    // Gaussian noise of noise_fraction times each coordinate's torque rms.
    std::mt19937_64 rng(seed + 1);
    std::normal_distribution<double> g(0.0, 1.0);
    const Eigen::VectorXd rms = (log.tau.colwise().squaredNorm() / static_cast<double>(n)).cwiseSqrt().transpose();
    for (Eigen::Index k = 0; k < n; ++k)
      for (int j = 0; j < m.nv; ++j) log.tau(k, j) += noise_fraction * rms[j] * g(rng);
  }
  return log;
}

// Relative error of each base parameter against the truth; a base parameter whose true value is
// below 1e-3 of the largest (|beta| max is the floating base's mass-weighted terms) is compared
// absolutely at that scale (a relative error of a zero has no meaning).
double worst_relative_error(const Eigen::VectorXd& est, const Eigen::VectorXd& truth, int* worst = nullptr) {
  const double floor = 1e-3 * truth.cwiseAbs().maxCoeff();
  double e = 0.0;
  for (Eigen::Index k = 0; k < truth.size(); ++k) {
    const double ek = std::abs(est[k] - truth[k]) / std::max(std::abs(truth[k]), floor);
    if (ek > e) {
      e = ek;
      if (worst != nullptr) *worst = static_cast<int>(k);
    }
  }
  return e;
}

// Acceptance (issue 16): the standard inertial parameters of the document's biped (18 links,
// floating base as the fictitious chain) recovered on the base parameters from an exciting
// trajectory (Fourier series, 20 s at 50 Hz; all 18 torques, the 6 base rows being the wrench on
// the trunk). The model used for identification has every link's parameters off by up to 30 %
// (it only gives the nominal pi and the structure: the base parameters do not depend on it).
TEST(TreeIdentify, BipedBaseParametersFromExcitingDataNoiseFree) {
  const Model truth = load_model(model_path("biped.yaml"));
  const MotionLog log = exciting_log(truth, 20.0, 50.0, 0.0, 11);
  Model nominal = truth;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.7, 1.3);
  for (auto& l : nominal.links) {
    const double s = u(rng);
    l.mass_kg *= s;
    l.inertia_C_kgm2 *= s;
  }
  const Identification id = identify_inertial_parameters(nominal, log);
  const Eigen::VectorXd beta_true = id.base.K * inertial_parameters(truth);
  int worst = -1;
  const double err = worst_relative_error(id.beta, beta_true, &worst);
  EXPECT_LE(err, 1e-6) << id.base.names[static_cast<std::size_t>(worst)];
  EXPECT_LE(id.rms_total, 1e-8);
  EXPECT_GT(worst_relative_error(id.beta_nominal, beta_true), 0.05);  // the nominal model was off
  // The minimum-norm standard parameters reproduce the torques and are physically consistent here.
  EXPECT_LE((id.base.K * id.pi - id.beta).norm(), 1e-9 * id.beta.norm());
  EXPECT_EQ(id.nsample, 1000);
  std::printf("biped: %d base parameters of %d, cond %.3g, worst relative error %.3g (%s)\n", id.base.rank, id.base.nparam,
              id.condition_number, err, id.base.names[static_cast<std::size_t>(worst)].c_str());
}

// Same with Gaussian torque noise of 0.1 % of each coordinate's torque rms (40 s at 100 Hz): with
// joint weighting every base parameter within 1 % (the floor above; measured worst 0.66 %), and the
// errors consistent with the reported covariance; ordinary least squares, which lets the large base
// rows (the 300 N weight) swamp the small joints, within 5 % (measured worst 3.8 %).
TEST(TreeIdentify, BipedBaseParametersFromExcitingDataWithTorqueNoise) {
  const Model truth = load_model(model_path("biped.yaml"));
  const MotionLog log = exciting_log(truth, 40.0, 100.0, 0.001, 12);
  for (Weighting w : {Weighting::kNone, Weighting::kJoint}) {
    IdentifyOptions o;
    o.weighting = w;
    const Identification id = identify_inertial_parameters(truth, log, o);
    const Eigen::VectorXd beta_true = id.base.K * inertial_parameters(truth);
    int worst = -1;
    const double err = worst_relative_error(id.beta, beta_true, &worst);
    EXPECT_LE(err, w == Weighting::kJoint ? 0.01 : 0.05) << to_string(w) << ": " << id.base.names[static_cast<std::size_t>(worst)];
    // Normalised errors: at most 5 sigma anywhere; with joint weighting (each joint's noise level
    // estimated) the covariance is right, rms near 1; without it one pooled sigma overstates the
    // spread of the parameters seen by the quiet joints (z rms below 1).
    const Eigen::VectorXd z = (id.beta - beta_true).cwiseQuotient(id.beta_std);
    EXPECT_LE(z.cwiseAbs().maxCoeff(), 5.0) << to_string(w);
    const double z_rms = std::sqrt(z.squaredNorm() / static_cast<double>(z.size()));
    if (w == Weighting::kJoint) {
      EXPECT_GT(z_rms, 0.7);
      EXPECT_LT(z_rms, 1.4);
    }
    std::printf("biped, 0.1%% torque noise, weighting %s: worst relative error %.3g (%s), z rms %.3g\n", to_string(w), err,
                id.base.names[static_cast<std::size_t>(worst)].c_str(), z_rms);
  }
}

TEST(TreeIdentify, PoorlyExcitingDataAreRefused) {
  const Model m = load_model(model_path("arm6.yaml"));
  MotionLog log = exciting_log(m, 2.0, 50.0, 0.0, 3);
  for (Eigen::Index k = 0; k < log.t_s.size(); ++k) {  // hold the robot still: only gravity excites
    log.q.row(k) = log.q.row(0);
    log.v.row(k).setZero();
    log.a.row(k).setZero();
  }
  try {
    (void)identify_inertial_parameters(m, log);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not excite"), std::string::npos) << e.what();
  }
}

std::filesystem::path temp_file(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_tree_identify_test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

// Simulated (RK4, 1 ms) double pendulum under an exciting torque (accelerations up to ~70 rad/s^2),
// logged as CSV with q and tau only at 200 Hz: v and a from the three-point rule; the base
// parameters within 0.5 % (the rule's O(dt^2) error); with v logged, a from v, within 1 %.
TEST(TreeIdentify, LogWithPositionsOnlyIsDifferentiated) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  SimulationOptions so;
  so.duration_s = 10.0;
  so.dt_s = 1e-3;
  so.output_interval_s = 0.005;
  const auto torque = [](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
    tau[0] = 3.0 * std::sin(1.3 * t) + 1.5 * std::sin(3.7 * t);  // swings of about 1 rad, no full turns
    tau[1] = 1.5 * std::sin(2.1 * t + 0.5) + 0.7 * std::cos(5.3 * t);
  };
  const SimulationResult r = simulate(m, so, Eigen::Vector2d(0.3, -0.2), Eigen::Vector2d::Zero(), torque);
  const auto path = temp_file("pendulum_q_only.csv");
  {
    std::ofstream f(path);
    f << "# double pendulum, q and tau only\nt_s,q:link1_joint_rad,q:link2_joint_rad,tau:link1_joint_Nm,tau:link2_joint_Nm\n";
    for (Eigen::Index k = 0; k < r.t_s.size(); ++k) {
      io::CsvLine line;
      line.num(r.t_s[k]).num(r.q(k, 0)).num(r.q(k, 1)).num(r.tau(k, 0)).num(r.tau(k, 1));
      f << line.str() << "\n";
    }
  }
  const MotionLog log = read_motion_log(path.string(), m, 1);
  EXPECT_EQ(log.nsample(), r.t_s.size() - 2);
  EXPECT_EQ(log.places.front(), path.string() + ":4");  // the comment, header and first sample skipped
  const Identification id = identify_inertial_parameters(m, log);
  const Eigen::VectorXd beta_true = id.base.K * inertial_parameters(m);
  EXPECT_LE(worst_relative_error(id.beta, beta_true), 5e-3);
  // With v given, a is differentiated from v.
  const auto path_v = temp_file("pendulum_qv.csv");
  {
    std::ofstream f(path_v);
    f << "t_s,q:link1_joint_rad,q:link2_joint_rad,v:link1_joint_radps,v:link2_joint_radps,tau:link1_joint_Nm,"
         "tau:link2_joint_Nm\n";
    for (Eigen::Index k = 0; k < r.t_s.size(); ++k) {
      io::CsvLine line;
      line.num(r.t_s[k]).num(r.q(k, 0)).num(r.q(k, 1)).num(r.v(k, 0)).num(r.v(k, 1)).num(r.tau(k, 0)).num(r.tau(k, 1));
      f << line.str() << "\n";
    }
  }
  const Identification id_v = identify_inertial_parameters(m, read_motion_log(path_v.string(), m, 1));
  std::printf("pendulum: q only %.3g, q and v %.3g\n", worst_relative_error(id.beta, beta_true),
              worst_relative_error(id_v.beta, beta_true));
  EXPECT_LE(worst_relative_error(id_v.beta, beta_true), 1e-2);
}

// Errors in variables: q logged with 1e-4 rad of noise and differentiated twice over 3 samples
// (smooth=1) gives parameters many std off (the std knows only the torque residual). The log
// reports the noise share of the accelerations and a smoothing below 1 %; the noise-free log is
// not flagged.
TEST(TreeIdentify, NoisyPositionsReportTheDerivativeNoise) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  SimulationOptions so;
  so.duration_s = 10.0;
  so.dt_s = 1e-3;
  so.output_interval_s = 0.005;
  const auto torque = [](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
    tau[0] = 3.0 * std::sin(1.3 * t) + 1.5 * std::sin(3.7 * t);
    tau[1] = 1.5 * std::sin(2.1 * t + 0.5) + 0.7 * std::cos(5.3 * t);
  };
  const SimulationResult r = simulate(m, so, Eigen::Vector2d(0.3, -0.2), Eigen::Vector2d::Zero(), torque);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  const auto write = [&](const char* name, double noise) {
    const auto path = temp_file(name);
    std::ofstream f(path);
    f << "t_s,q:link1_joint_rad,q:link2_joint_rad,tau:link1_joint_Nm,tau:link2_joint_Nm\n";
    for (Eigen::Index k = 0; k < r.t_s.size(); ++k) {
      io::CsvLine line;
      line.num(r.t_s[k]).num(r.q(k, 0) + noise * g(rng)).num(r.q(k, 1) + noise * g(rng)).num(r.tau(k, 0)).num(r.tau(k, 1));
      f << line.str() << "\n";
    }
    return path.string();
  };
  const std::string noisy = write("pendulum_q_noisy.csv", 1e-4), clean = write("pendulum_q_clean.csv", 0.0);
  const MotionLog log = read_motion_log(noisy, m, 1);
  EXPECT_EQ(log.differentiated_order, 2);
  EXPECT_TRUE(log.differentiated_from_q);
  const Identification id = identify_inertial_parameters(m, log);
  const Eigen::VectorXd beta_true = id.base.K * inertial_parameters(m);
  const double z = ((id.beta - beta_true).array() / id.beta_std.array()).abs().maxCoeff();
  std::printf("pendulum, q noise 1e-4 rad, smooth=1: worst error %.3g std, noise share %.3g, suggested smooth %d\n", z,
              log.derivative_noise.worst(2), log.suggested_half_width);
  EXPECT_GT(z, 5.0);  // confident nonsense by the std alone
  EXPECT_GT(log.derivative_noise.worst(2), kDerivativeNoiseWarning);
  EXPECT_NEAR(log.derivative_noise.sample_std[0], 1e-4, 0.2e-4);
  ASSERT_GT(log.suggested_half_width, 1);
  const MotionLog smoothed = read_motion_log(noisy, m, log.suggested_half_width);
  EXPECT_LE(smoothed.derivative_noise.worst(2), kDerivativeNoiseWarning);
  EXPECT_EQ(smoothed.suggested_half_width, 0);
  const MotionLog ok = read_motion_log(clean, m, 1);
  EXPECT_LE(ok.derivative_noise.worst(2), kDerivativeNoiseWarning);
  EXPECT_EQ(ok.suggested_half_width, 0);
}

TEST(TreeIdentify, LogErrorsNameThePlace) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  EXPECT_EQ(motion_log_header(m),
            "t_s,q:link1_joint_rad,q:link2_joint_rad,v:link1_joint_radps,v:link2_joint_radps,a:link1_joint_radps2,"
            "a:link2_joint_radps2,tau:link1_joint_Nm,tau:link2_joint_Nm");
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    const auto p = temp_file("bad.csv");
    {
      std::ofstream f(p);
      f << text;
    }
    try {
      (void)read_motion_log(p.string(), m, 1);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what() << "\nexpected: " << needle;
    }
  };
  const std::string path = temp_file("bad.csv").string();
  expect_error("t_s,q:link1_joint_rad,tau:link1_joint_Nm,tau:link2_joint_Nm\n0,0,0,0\n", path + ":1: missing column 'q:link2_joint'");
  expect_error(motion_log_header(m) + "\n0,0,0,0,0,0,0,0,0\n0.01,0,0,0,x,0,0,0,0\n", path + ":3:");
  expect_error(motion_log_header(m) + "\n0,0,0,0,0,0,0,0,0\n0,0,0,0,0,0,0,0,0\n", path + ":3:");
  expect_error(motion_log_header(m) + "\n0,0,0,0,0,0,0,,0\n", path + ":2:");
  expect_error(
      "t_s,q:link1_joint_rad,q:link2_joint_rad,v:link1_joint_radps,tau:link1_joint_Nm,tau:link2_joint_Nm\n"
      "0,0,0,0,0,0\n",
      "has some v columns but not 'v:link2_joint'");
  EXPECT_THROW((void)weighting_from_string("joints"), Error);
  EXPECT_EQ(weighting_from_string("joint"), Weighting::kJoint);
}

}  // namespace
}  // namespace tendyn::tree
