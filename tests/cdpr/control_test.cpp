// CDPR control (issue 6): sensors against the true state, seeded noise, pose regulation and the
// lower-cable tension regulator in closed loop with the dynamics.
#include <gtest/gtest.h>

#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>

#include <cmath>
#include <string>

#include "cdpr/test_util.hpp"
#include "support/error_of.hpp"

namespace tendyn::cdpr {
namespace {

DynamicModel printer() { return make_printer_dynamics(load_model(test::model_path("printer8.yaml")).model, 50.0); }

struct Loop {
  DynamicModel model = printer();
  Inputs in = make_inputs(model);
  DynamicData data = make_dynamic_data(model);
  StateVector x;
  Measurement meas = make_measurement(model);

  // Starts at `pose` with the rest lengths of the tensions `f`.
  void start(const Pose& pose, const Eigen::VectorXd& f) { x = make_state(model, pose, rest_lengths_for_tensions(model, in, pose, f)); }
  void run(Controller& c, Sensors& s, const Reference& ref, double T) {
    const double h = 1e-3;
    for (int k = 0; k < static_cast<int>(std::lround(T / h)); ++k) {
      if (k % 2 == 0) {
        compute_derivative(model, in, x, data);
        s.measure(model, x, data, meas);
        c.update(ref, meas, in);
      }
      step_rk4(model, in, x, h, data);
    }
    compute_derivative(model, in, x, data);
  }
};

TEST(CdprSensors, NoiseFreeReadingsMatchTheState) {
  Loop L;
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(0, 0, 0.3));
  L.start(pose, Eigen::VectorXd::Constant(8, 2000.0));
  compute_derivative(L.model, L.in, L.x, L.data);
  Sensors s(L.model, SensorConfig{});
  s.measure(L.model, L.x, L.data, L.meas);
  ASSERT_EQ(L.meas.lower_force_N.size(), 4);
  for (int j = 0; j < 4; ++j) {
    const int i = s.lower()[static_cast<std::size_t>(j)];
    EXPECT_DOUBLE_EQ(L.meas.lower_force_N[j], L.data.tension_N[i]);
    const Eigen::Vector3d u = L.data.geo.u_W.col(i);
    EXPECT_NEAR(std::sin(L.meas.lower_inclination_rad[j]), u.z(), 1e-12);
  }
  // IMU specific force = R^T (a - g)
  EXPECT_LT((L.meas.accel_P - pose.R_WP.transpose() * (L.data.a_P_W - Eigen::Vector3d(0, 0, -9.81))).norm(), 1e-12);
  EXPECT_LT((L.meas.pose.p_WP - pose.p_WP).norm(), 1e-15);
}

TEST(CdprSensors, SeededNoiseIsReproducibleAndHasTheGivenSpread) {
  Loop L;
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0, 0, 3), Eigen::Vector3d::Zero());
  L.start(pose, Eigen::VectorXd::Constant(8, 2000.0));
  compute_derivative(L.model, L.in, L.x, L.data);
  SensorConfig cfg;
  cfg.force_sigma_N = 10.0;
  cfg.seed = 42;
  Sensors a(L.model, cfg), b(L.model, cfg);
  Measurement ma = make_measurement(L.model), mb = make_measurement(L.model);
  double sum2 = 0.0;
  const int N = 4000;
  for (int k = 0; k < N; ++k) {
    a.measure(L.model, L.x, L.data, ma);
    b.measure(L.model, L.x, L.data, mb);
    ASSERT_EQ(ma.lower_force_N, mb.lower_force_N);
    const double e = ma.lower_force_N[0] - L.data.tension_N[4];
    sum2 += e * e;
  }
  EXPECT_NEAR(std::sqrt(sum2 / N), 10.0, 0.5);
  cfg.gyro_sigma = -1.0;
  EXPECT_THROW(Sensors(L.model, cfg), Error);
}

TEST(CdprControl, RegulatesPositionAndDrivesLowerTensionsToTheOptimum) {
  Loop L;
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.5, -1.0, 3.0), Eigen::Vector3d::Zero());
  L.start(pose, Eigen::VectorXd::Constant(8, 3000.0));  // far from the optimum
  ControllerConfig cc;
  cc.lower_profile = LowerProfile::kFull;  // the 200 N minimum applies to every cable
  Controller c(L.model, cc);
  Sensors s(L.model, SensorConfig{});
  Reference ref;
  ref.p_W = pose.p_WP + Eigen::Vector3d(0.05, -0.03, 0.02);  // 6 cm step
  L.run(c, s, ref, 4.0);
  EXPECT_LT((L.x.segment<3>(0) - ref.p_W).norm(), 1e-3);
  EXPECT_LT(quat_log(Eigen::Quaterniond(L.x[3], L.x[4], L.x[5], L.x[6])).norm(), 5e-3);
  for (int i : c.lower()) EXPECT_NEAR(L.data.tension_N[i], c.optimal_tensions()[i], 0.05 * c.optimal_tensions()[i] + 20.0);
  EXPECT_GE(L.data.tension_N.minCoeff(), 0.8 * c.f_min_N());
}

TEST(CdprControl, WithoutTensionControlLowerWinchesFollowTheReferenceLengths) {
  Loop L;
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.0, 0.0, 3.0), Eigen::Vector3d::Zero());
  L.start(pose, Eigen::VectorXd::Constant(8, 3000.0));
  ControllerConfig cc;
  cc.tension_control = false;
  Controller c(L.model, cc);
  Sensors s(L.model, SensorConfig{});
  Reference ref;
  ref.p_W = pose.p_WP;
  const Eigen::VectorXd l0_start = L.x.tail(8);
  L.run(c, s, ref, 1.0);
  // the reference did not move: lower rest lengths unchanged, their tensions stay where they were
  for (int i : c.lower()) EXPECT_NEAR(L.x[13 + i], l0_start[i], 1e-9);
  EXPECT_LT((L.x.segment<3>(0) - ref.p_W).norm(), 2e-3);
}

// Document 002's system (4): the lower group alone, rows (Fx, Fy, Mz), 3 x 4, f >= 0. At poses over
// the layer, with and without a side load and a yaw moment, the profile is non-negative, solves its
// equations to 1e-9 (relative) and is the minimum-norm solution (KKT); the upper part is that of
// the full solution; the full profile's lower part never goes below the model's 200 N.
TEST(CdprControl, System4LowerProfileIsNonNegativeAndSolvesItsEquations) {
  Loop L;
  ControllerConfig full_cfg;
  full_cfg.lower_profile = LowerProfile::kFull;
  ControllerConfig s4_cfg;
  s4_cfg.lower_profile = LowerProfile::kSystem4;
  Controller full(L.model, full_cfg), s4(L.model, s4_cfg);
  Sensors s(L.model, SensorConfig{});
  int zero_tensions = 0, solved = 0, nontrivial = 0;
  for (const Eigen::Vector3d& p : {Eigen::Vector3d(-3, -4, 3), Eigen::Vector3d(3, -4, 3), Eigen::Vector3d(3, 4, 3),
                                   Eigen::Vector3d(0, 0, 3), Eigen::Vector3d(-3, 2, 3)}) {
    for (const Eigen::Vector3d& load : {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(300, -200, 0)}) {
      const Pose pose = pose_from_xyz_rpy(p, Eigen::Vector3d::Zero());
      L.start(pose, Eigen::VectorXd::Constant(8, 1000.0));
      L.in.force_ext_W = load;
      L.in.moment_ext_W = Eigen::Vector3d(0, 0, load.norm() > 0 ? 150.0 : 0.0);
      compute_derivative(L.model, L.in, L.x, L.data);
      s.measure(L.model, L.x, L.data, L.meas);
      Reference ref;
      ref.p_W = p;
      full.reset();
      s4.reset();
      full.update(ref, L.meas, L.in);
      s4.update(ref, L.meas, L.in);
      const Eigen::MatrixXd& J4 = s4.lower_system_J();
      const Eigen::VectorXd& w4 = s4.lower_system_w();
      ASSERT_EQ(J4.rows(), 3);
      ASSERT_EQ(J4.cols(), 4);
      Eigen::VectorXd f(4);
      for (int j = 0; j < 4; ++j) f[j] = s4.optimal_tensions()[s4.lower()[static_cast<std::size_t>(j)]];
      EXPECT_GE(f.minCoeff(), 0.0);
      zero_tensions += static_cast<int>((f.array() == 0.0).count());
      // at the centre without load the upper cables leave nothing: w4 = 0 and f = 0 (the
      // document's "trivial solution"); everywhere else a real problem
      if (w4.norm() > 1.0) ++nontrivial;
      EXPECT_LE((J4 * f - w4).norm(), 1e-9 * w4.norm()) << "pose " << p.transpose() << " load " << load.transpose();
      EXPECT_LE(kkt_violation(J4, w4, f), 1e-9);
      ++solved;
      // the right-hand side: rows Fx, Fy, Mz of w_d - J_u f*_u; the upper part is the full solution's
      const Eigen::Matrix<double, 6, 1> wd = s4.desired_wrench();
      Eigen::Vector3d w_expect(wd[0], wd[1], wd[5]);
      for (int i : s4.upper()) {
        EXPECT_EQ(s4.optimal_tensions()[i], full.optimal_tensions()[i]);
        w_expect -= full.optimal_tensions()[i] * Eigen::Vector3d(L.data.geo.J(0, i), L.data.geo.J(1, i), L.data.geo.J(5, i));
      }
      EXPECT_LT((w_expect - w4).norm(), 1e-6 * w4.norm());
      // the full profile keeps the 200 N minimum on each lower cable; system (4) needs less
      double nf = 0.0, n4 = 0.0;
      for (int i : full.lower()) {
        EXPECT_GE(full.optimal_tensions()[i], 200.0 - 1e-6);
        nf += full.optimal_tensions()[i] * full.optimal_tensions()[i];
        n4 += s4.optimal_tensions()[i] * s4.optimal_tensions()[i];
      }
      EXPECT_LT(n4, nf);
    }
  }
  EXPECT_EQ(solved, 10);
  EXPECT_EQ(nontrivial, 9);
  EXPECT_GT(zero_tensions, 0);  // the document's method unloads cables (f = 0), unlike the 200 N minimum
  EXPECT_EQ(lower_profile_from_string("System4"), LowerProfile::kSystem4);
  EXPECT_EQ(lower_profile_from_string("full"), LowerProfile::kFull);
  EXPECT_STREQ(to_string(LowerProfile::kSystem4), "system4");
  try {
    (void)lower_profile_from_string("3x4");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("valid: full, system4"), std::string::npos) << e.what();
  }
}

// The model owns the tension bounds: an unset ControllerConfig bound is the model's, a set one an
// explicit override.
TEST(CdprControl, TensionBoundsAreTheModelsUnlessOverridden) {
  DynamicModel m = printer();
  m.geometry.f_min_N = 350.0;
  m.geometry.f_max_N = 12000.0;
  const Controller c(m, ControllerConfig{});
  EXPECT_EQ(c.f_min_N(), 350.0);
  EXPECT_EQ(c.f_max_N(), 12000.0);
  ControllerConfig cc;
  cc.f_min_N = 100.0;
  const Controller o(m, cc);
  EXPECT_EQ(o.f_min_N(), 100.0);
  EXPECT_EQ(o.f_max_N(), 12000.0);
  // The bounds in force are the ones the optimum keeps.
  Loop L;
  L.model.geometry.f_min_N = 700.0;
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.0, 0.0, 3.0), Eigen::Vector3d::Zero());
  L.start(pose, Eigen::VectorXd::Constant(8, 3000.0));
  ControllerConfig full;
  full.lower_profile = LowerProfile::kFull;
  Controller cf(L.model, full);
  Sensors s(L.model, SensorConfig{});
  Reference ref;
  ref.p_W = pose.p_WP;
  L.run(cf, s, ref, 0.01);
  EXPECT_GE(cf.optimal_tensions().minCoeff(), 700.0 * (1.0 - 1e-9));
}

// exhaustive and lawson-hanson solve f >= 0 only: as the controller's method they are refused
// when the lower bound is positive (they would break it); a bound one of them breaks in system (4)
// (f_max) is reported in lower_solution().status.
TEST(CdprControl, RefusesOrReportsBoundsTheNonNegativeMethodsDoNotHonour) {
  const DynamicModel m = printer();
  for (const Method method : {Method::kExhaustive, Method::kLawsonHanson}) {
    SCOPED_TRACE(to_string(method));
    ControllerConfig cc;
    cc.method = method;
    const std::string e = tendyn::test::error_of([&] { Controller c(m, cc); });
    EXPECT_NE(e.find(std::string("cdpr controller: method '") + to_string(method) +
                     "' solves f >= 0 only and cannot honour the lower tension bound 200 N"),
              std::string::npos)
        << e;
    cc.f_min_N = 0.0;  // f >= 0 is all they are asked for
    EXPECT_NO_THROW(Controller(m, cc));
  }
  for (const Method method : {Method::kExhaustive, Method::kLawsonHanson}) {
    SCOPED_TRACE(to_string(method));
    Loop L;
    const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.0, 0.0, 3.0), Eigen::Vector3d::Zero());
    L.start(pose, Eigen::VectorXd::Constant(8, 3000.0));
    ControllerConfig cc;
    cc.lower_method = method;  // system (4)
    cc.f_min_N = 0.0;
    cc.f_max_N = 1.0;  // far below what the lower cables must carry against the side load
    cc.method = Method::kExact;
    L.in.force_ext_W = Eigen::Vector3d(500.0, 300.0, 0.0);  // a side load: Fx, Fy for system (4)
    Controller c(L.model, cc);
    Sensors s(L.model, SensorConfig{});
    Reference ref;
    ref.p_W = pose.p_WP;
    L.run(c, s, ref, 0.01);
    EXPECT_EQ(c.lower_solution().status, Status::kOutOfBounds);
    EXPECT_NE(std::string(c.lower_solution().reason).find("a tension is above f_max"), std::string::npos);
  }
}

TEST(CdprControl, BadConfigIsRejected) {
  const DynamicModel m = printer();
  ControllerConfig cc;
  cc.tau_winch_s = 0.0;
  EXPECT_THROW(Controller(m, cc), Error);
  cc = ControllerConfig{};
  cc.f_max_N = m.geometry.f_min_N;  // the override meets the model's lower bound
  EXPECT_THROW(Controller(m, cc), Error);
  cc = ControllerConfig{};
  cc.tau_tension_s = 0.0;
  EXPECT_THROW(Controller(m, cc), Error);
  cc = ControllerConfig{};
  cc.tau_filter_s = -0.01;
  EXPECT_THROW(Controller(m, cc), Error);
  cc = ControllerConfig{};
  cc.lower_group = "nope";
  EXPECT_THROW(Controller(m, cc), Error);
}

}  // namespace
}  // namespace tendyn::cdpr
