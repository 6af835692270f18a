// tree::simulate (the RK4 driver), its options and the torque schedule.
#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "tree/tree_fixtures.hpp"
#include "support/error_of.hpp"

namespace tendyn::tree {
namespace {

using testing::model_path;

using tendyn::test::error_of;  // "" when nothing is thrown

TEST(TreeSimulate, ZeroTorqueConservesEnergy) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  SimulationOptions o;
  o.duration_s = 2.0;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.01;
  const SimulationResult r = simulate(m, o, Eigen::Vector2d(1.0, -0.5), Eigen::Vector2d(0.3, 0.0));
  ASSERT_EQ(r.steps, 2000);
  ASSERT_EQ(r.t_s.size(), 201);
  const double E0 = r.energy_J[0];
  Data d(m);
  EXPECT_DOUBLE_EQ(
      E0, kinetic_energy(m, d, Eigen::Vector2d(1.0, -0.5), Eigen::Vector2d(0.3, 0.0)) + potential_energy(m, d, Eigen::Vector2d(1.0, -0.5)));
  const double drift = (r.energy_J.array() - E0).abs().maxCoeff();
  EXPECT_LT(drift, 1e-8 * std::abs(E0)) << "E0 = " << E0;
  EXPECT_GT((r.q.row(200) - r.q.row(0)).norm(), 0.1);  // it did swing
  EXPECT_EQ(r.tau.cwiseAbs().maxCoeff(), 0.0);
}

TEST(TreeSimulate, EqualsTheHandWrittenRk4LoopBitForBit) {
  // The loop `tendyn tree simulate` ran before the driver existed: Rk4 steps at t = k dt with a
  // torque schedule, a sample every `every` steps and at the end.
  const Model m = load_model(model_path("arm6.yaml"));
  const TorqueSchedule sched({0.0, 0.05, 0.1}, {testing::random_vector(6, 1), testing::random_vector(6, 2), testing::random_vector(6, 3)});
  const TorqueFn torque = [&sched](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) { sched.eval(t, tau); };
  const Eigen::VectorXd q0 = m.random_configuration(4), v0 = testing::random_vector(6, 5);
  SimulationOptions o;
  o.duration_s = 0.123;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.01;
  const SimulationResult r = simulate(m, o, q0, v0, torque);
  ASSERT_EQ(r.steps, 123);
  ASSERT_EQ(r.output_stride, 10);
  ASSERT_EQ(r.t_s.size(), 1 + 12 + 1);

  Rk4 rk(m);
  Eigen::VectorXd q = q0, v = v0, tau(6);
  long row = 1;
  for (long k = 0; k < 123; ++k) {
    rk.step(k * 1e-3, 1e-3, q, v, torque);
    if ((k + 1) % 10 == 0 || k + 1 == 123) {
      sched.eval((k + 1) * 1e-3, tau);
      EXPECT_EQ(r.t_s[row], (k + 1) * 1e-3);
      EXPECT_TRUE(r.q.row(row) == q.transpose()) << "row " << row;
      EXPECT_TRUE(r.v.row(row) == v.transpose()) << "row " << row;
      EXPECT_TRUE(r.tau.row(row) == tau.transpose()) << "row " << row;
      ++row;
    }
  }
  EXPECT_EQ(row, r.t_s.size());
  EXPECT_EQ(r.t_s[r.t_s.size() - 1], 0.123);
}

TEST(TreeSimulate, BiasCompensationHoldsTheArmStill) {
  // tau = b(q, v) (gravity + velocity terms) gives q'' = 0: from rest the arm does not move.
  const Model m = load_model(model_path("arm6.yaml"));
  Data d(m);
  const TorqueFn hold = [&](double, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
    tau = nonlinear_effects(m, d, q, v);
  };
  const Eigen::VectorXd q0 = m.random_configuration(9);
  SimulationOptions o;
  o.duration_s = 0.5;
  const SimulationResult r = simulate(m, o, q0, Eigen::VectorXd::Zero(6), hold);
  EXPECT_LT((r.q.row(r.q.rows() - 1) - q0.transpose()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT(r.v.cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT(r.tau.cwiseAbs().maxCoeff(), 1.0);  // gravity was being held
  // Without it the arm falls.
  const SimulationResult fall = simulate(m, o, q0, Eigen::VectorXd::Zero(6));
  EXPECT_GT((fall.q.row(fall.q.rows() - 1) - q0.transpose()).cwiseAbs().maxCoeff(), 1e-2);
}

TEST(TreeSimulate, TorqueCallbackObserverAndProgress) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  long calls = 0;
  bool zeroed = true;
  const TorqueFn torque = [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
    ++calls;
    zeroed = zeroed && tau.isZero(0.0);
    tau[0] = std::sin(3.0 * t) - q[0];
  };
  struct Count : Observer {
    long calls = 0, last_step = -1, steps = -1;
    double last_t = -1.0;
    void on_step(long step, long n, double t, const Eigen::VectorXd&, const Eigen::VectorXd&) override {
      EXPECT_EQ(step, last_step + 1);
      ++calls;
      last_step = step;
      steps = n;
      last_t = t;
    }
  } obs;
  double last_fraction = 0.0;
  int progress_calls = 0;
  SimulationOptions o;
  o.duration_s = 0.05;
  o.dt_s = 0.002;
  o.output_interval_s = 0.004;
  const SimulationResult r = simulate(m, o, Eigen::Vector2d(0.2, 0.1), Eigen::Vector2d::Zero(), torque, &obs,
                                      [&](double f) { last_fraction = f, ++progress_calls; });
  ASSERT_EQ(r.steps, 25);
  ASSERT_EQ(r.t_s.size(), 1 + 12 + 1);  // t = 0, 12 multiples of 2 steps, the last (odd) step
  EXPECT_EQ(calls, 4 * 25 + 14);        // 4 stages per step + one per sample
  EXPECT_TRUE(zeroed);
  EXPECT_EQ(obs.calls, 26);
  EXPECT_EQ(obs.steps, 25);
  EXPECT_DOUBLE_EQ(obs.last_t, 0.05);
  EXPECT_EQ(progress_calls, 25);
  EXPECT_EQ(last_fraction, 1.0);
  for (Eigen::Index i = 0; i < r.t_s.size(); ++i) {
    EXPECT_DOUBLE_EQ(r.tau(i, 0), std::sin(3.0 * r.t_s[i]) - r.q(i, 0));
    EXPECT_EQ(r.tau(i, 1), 0.0);
  }
}

TEST(TreeSimulate, ZeroDurationGivesTheInitialSampleAndFreeJointsAreNormalised) {
  const Model m = load_model(model_path("biped.urdf"), BaseMode::kFree);
  Eigen::VectorXd q0 = m.neutral();
  q0.segment<4>(3) << 2.0, 0.0, 0.0, 0.0;  // not a unit quaternion
  SimulationOptions o;
  o.duration_s = 0.0;
  const SimulationResult r = simulate(m, o, q0, Eigen::VectorXd::Zero(m.nv));
  EXPECT_EQ(r.steps, 0);
  ASSERT_EQ(r.t_s.size(), 1);
  EXPECT_EQ(r.q(0, 3), 1.0);
  EXPECT_EQ(r.q.cols(), m.nq);
  EXPECT_EQ(r.v.cols(), m.nv);
}

TEST(TreeSimulate, BadOptionsAndInputsAreErrorsNamingTheOption) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  const Eigen::VectorXd q = Eigen::Vector2d::Zero(), v = Eigen::Vector2d::Zero();
  auto run = [&](double duration, double dt, double interval) {
    return error_of([&] { (void)simulate(m, SimulationOptions{duration, dt, interval}, q, v); });
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(run(1.0, 0.0, 0.0).find("dt_s must be a finite number > 0 (got 0)"), std::string::npos);
  EXPECT_NE(run(1.0, -1e-3, 0.0).find("dt_s"), std::string::npos);
  EXPECT_NE(run(1.0, nan, 0.0).find("dt_s"), std::string::npos);
  EXPECT_NE(run(-1.0, 1e-3, 0.0).find("duration_s must be a finite number >= 0 (got -1)"), std::string::npos);
  EXPECT_NE(run(nan, 1e-3, 0.0).find("duration_s"), std::string::npos);
  // A positive duration must not silently run zero steps.
  EXPECT_NE(run(4e-4, 1e-3, 0.0).find("shorter than half a step"), std::string::npos);
  EXPECT_EQ(run(6e-4, 1e-3, 0.0), "");  // rounds to one step
  EXPECT_NE(run(1.0, 1e-3, 1.5e-3).find("not a whole multiple of dt_s"), std::string::npos);
  EXPECT_NE(run(1.0, 1e-3, 1e-4).find("not a whole multiple"), std::string::npos);
  EXPECT_NE(run(1.0, 1e-3, nan).find("output_interval_s must be finite"), std::string::npos);
  EXPECT_NE(run(1e9, 1e-9, 0.0).find("too many"), std::string::npos);
  const std::string e1 = error_of([&] { (void)simulate(m, SimulationOptions{}, Eigen::VectorXd::Zero(3), v); });
  EXPECT_NE(e1.find("q0 has size 3"), std::string::npos) << e1;
  EXPECT_NE(e1.find("nq = 2"), std::string::npos) << e1;
  const std::string e2 = error_of([&] { (void)simulate(m, SimulationOptions{}, q, Eigen::Vector2d(0.0, nan)); });
  EXPECT_NE(e2.find("v0 is not finite"), std::string::npos) << e2;
  EXPECT_EQ(simulation_steps(SimulationOptions{0.0333, 0.002, 0.0}), 17);  // rounded to the nearest step
  EXPECT_EQ(sample_count(25, 2), 14);
  EXPECT_EQ(sample_count(24, 2), 13);
  EXPECT_EQ(sample_count(0, 5), 1);
}

TEST(TreeSimulate, NonFiniteTorqueIsASimulationErrorWithTheTime) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  const TorqueFn bad = [](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
    if (t > 0.0102) tau[0] = std::numeric_limits<double>::infinity();
  };
  SimulationOptions o;
  o.duration_s = 0.1;
  try {
    (void)simulate(m, o, Eigen::Vector2d::Zero(), Eigen::Vector2d::Zero(), bad);
    FAIL() << "no SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NEAR(e.time(), 0.0105, 1e-12);  // the second stage of step 10
    EXPECT_NE(std::string(e.what()).find("torque is not finite"), std::string::npos) << e.what();
  }
}

TEST(TreeSimulate, TorqueScheduleInterpolates) {
  TorqueSchedule s({0.0, 1.0}, {Eigen::Vector2d(0.0, 2.0), Eigen::Vector2d(1.0, 4.0)});
  Eigen::VectorXd out(2);
  s.eval(0.25, out);
  EXPECT_DOUBLE_EQ(out[0], 0.25);
  EXPECT_DOUBLE_EQ(out[1], 2.5);
  s.eval(5.0, out);
  EXPECT_DOUBLE_EQ(out[1], 4.0);
  s.eval(-1.0, out);
  EXPECT_DOUBLE_EQ(out[1], 2.0);
  EXPECT_EQ(s.rows(), 2u);
  EXPECT_EQ(s.width(), 2);
  EXPECT_THROW(TorqueSchedule({1.0, 0.0}, {Eigen::Vector2d::Zero(), Eigen::Vector2d::Zero()}), Error);
}

TEST(TreeSimulate, TorqueScheduleCsvErrorsNameFileAndLine) {
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_tree_simulate_test";
  std::filesystem::create_directories(dir);
  const auto f = dir / "sched.csv";
  std::ofstream(f) << "t,tau1,tau2\n0,1,2\n0.5,3,4\n";
  const TorqueSchedule s = TorqueSchedule::load_csv(f.string(), 2);
  Eigen::VectorXd out(2);
  s.eval(0.25, out);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  EXPECT_DOUBLE_EQ(out[1], 3.0);
  const std::string e = error_of([&] { (void)TorqueSchedule::load_csv(f.string(), 3); });
  EXPECT_NE(e.find("sched.csv:1: torque schedule: expected 4 columns (t and nv = 3 torques), got 3"), std::string::npos) << e;

  // Without a header, '#' comments skipped; a bad cell is named by line, column and place.
  std::ofstream(f) << "# t, tau\n0,1,2\n0.5,3,x\n";
  const std::string bad = error_of([&] { (void)TorqueSchedule::load_csv(f.string(), 2); });
  EXPECT_NE(bad.find("sched.csv:3:7 (column 3): 'x' is not a finite number"), std::string::npos) << bad;
  // Blank-separated rows are not the documented format (docs/TREE.md: "t,tau_1,...").
  std::ofstream(f) << "0 1 2\n0.5 3 4\n";
  const std::string blanks = error_of([&] { (void)TorqueSchedule::load_csv(f.string(), 2); });
  EXPECT_NE(blanks.find("expected 3 columns (t and nv = 2 torques), got 1"), std::string::npos) << blanks;
  std::ofstream(f) << "0,1,2\n0,3,4\n";
  EXPECT_NE(error_of([&] { (void)TorqueSchedule::load_csv(f.string(), 2); }).find("times must increase"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::tree
