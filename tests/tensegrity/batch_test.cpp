// Batched rollouts: each robot equals stepping it alone with step(), for any thread count; a
// failing robot stops alone; bad input is refused with the robot and cable named.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/batch.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include "support/error_of.hpp"
#include "support/tensegrity_fixtures.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace ts = tendyn::tensegrity;
using tendyn::test::error_of;

namespace {

// Robot r: the damped 3-prism, rod 0 pushed sideways by 0.1 r m/s, rest lengths scaled by
// 1 + 0.01 r (different states and controls).
struct Robots {
  ts::Model model = tendyn::test::doc000_prism(50.0, 0.5);
  std::vector<ts::State> initial;
  Eigen::MatrixXd rest;
  explicit Robots(int n) : rest(n, model.ncable()) {
    for (int r = 0; r < n; ++r) {
      ts::State s = model.initial_state;
      s.v_WC(0) += Eigen::Vector3d(0.1 * r, 0.0, 0.0);
      initial.push_back(s);
      for (int k = 0; k < model.ncable(); ++k) rest(r, k) = model.cables[static_cast<std::size_t>(k)].rest_length_m * (1.0 + 0.01 * r);
    }
  }
};

ts::Batch run_batch(const Robots& su, int threads, int calls, int nstep) {
  ts::Batch b = ts::make_batch(su.model, static_cast<int>(su.initial.size()));
  for (int r = 0; r < b.size(); ++r) ts::set_state(su.model, b, r, su.initial[static_cast<std::size_t>(r)]);
  ts::set_rest_lengths(su.model, b, su.rest);
  ts::BatchStepOptions o;
  o.h_s = 1e-3;
  o.nstep = nstep;
  o.threads = threads;
  for (int c = 0; c < calls; ++c) EXPECT_EQ(ts::step_batch(su.model, b, o), 0);
  return b;
}

TEST(Batch, EachRobotEqualsSteppingItAloneForAnyThreadCount) {
  const Robots su(5);
  const ts::Batch one = run_batch(su, 1, 4, 25);
  const ts::Batch two = run_batch(su, 2, 4, 25);
  const ts::Batch three = run_batch(su, 3, 4, 25);
  for (int r = 0; r < 5; ++r) {
    const auto i = static_cast<std::size_t>(r);
    // by hand: the same steps with step() and the same time stamps
    ts::Data d = ts::make_data(su.model);
    ts::State s = su.initial[i];
    d.cable_rest_length_m = su.rest.row(r).transpose();
    ts::compute_derivative(su.model, s, d);
    for (int c = 0; c < 4; ++c) {
      const double t0 = s.time_s;
      for (int k = 0; k < 25; ++k) ts::step(su.model, d, s, 1e-3, ts::StepOptions{}, t0 + (k + 1) * 1e-3);
    }
    EXPECT_EQ(one.states[i].x, s.x) << r;  // bit-identical
    EXPECT_EQ(one.states[i].time_s, s.time_s) << r;
    EXPECT_EQ(two.states[i].x, s.x) << r;
    EXPECT_EQ(three.states[i].x, s.x) << r;
    EXPECT_EQ(one.datas[i].cable_tension_N, d.cable_tension_N) << r;
    EXPECT_NEAR(s.time_s, 0.1, 1e-15);
  }
  // the robots really differ (different states and controls)
  EXPECT_GT((one.states[0].x - one.states[4].x).norm(), 1e-3);
}

TEST(Batch, AFailingRobotStopsAloneAndCanBeRestarted) {
  const Robots su(3);
  ts::Batch b = ts::make_batch(su.model, 3);
  ts::State wild = su.model.initial_state;
  wild.w_W(1) = Eigen::Vector3d(1e200, 1e200, 0.0);  // finite, blows up in the first step
  ts::set_state(su.model, b, 1, wild);
  ts::BatchStepOptions o;
  o.nstep = 20;
  o.threads = 2;
  EXPECT_EQ(ts::step_batch(su.model, b, o), 1);
  EXPECT_EQ(b.nrunning(), 2);
  EXPECT_TRUE(b.error[0].empty());
  EXPECT_FALSE(b.error[1].empty());
  EXPECT_TRUE(std::isfinite(b.error_time_s[1]));
  EXPECT_NEAR(b.states[0].time_s, 0.02, 1e-15);
  EXPECT_NEAR(b.states[2].time_s, 0.02, 1e-15);
  // robots 0 and 2 equal (same start, same controls); robot 1 is no longer stepped
  EXPECT_EQ(b.states[0].x, b.states[2].x);
  EXPECT_EQ(ts::step_batch(su.model, b, o), 0);
  EXPECT_NEAR(b.states[0].time_s, 0.04, 1e-15);
  ts::set_state(su.model, b, 1, b.states[0]);
  EXPECT_EQ(b.nrunning(), 3);
  EXPECT_EQ(ts::step_batch(su.model, b, o), 0);
  EXPECT_EQ(b.states[0].x, b.states[1].x);
}

TEST(Batch, BadInputIsRefusedWithThePlace) {
  const Robots su(2);
  ts::Batch b = ts::make_batch(su.model, 2);
  EXPECT_EQ(error_of([&] { (void)ts::make_batch(su.model, 0); }), "batch: the robot count must be >= 1 (got 0)");
  ts::BatchStepOptions o;
  o.step.integrator = ts::Integrator::kDormandPrince45;
  EXPECT_NE(error_of([&] { ts::step_batch(su.model, b, o); }).find("dopri5 is not available"), std::string::npos);
  o = {};
  o.nstep = 0;
  EXPECT_EQ(error_of([&] { ts::step_batch(su.model, b, o); }), "batch: nstep must be >= 1 (got 0)");
  EXPECT_EQ(error_of([&] { ts::set_rest_lengths(su.model, b, Eigen::MatrixXd::Ones(3, 9)); }),
            "batch: rest lengths must be (robots x ncable) = (2 x 9), got (3 x 9)");
  Eigen::MatrixXd rest = su.rest;
  rest(1, 4) = -0.1;
  const std::string e = error_of([&] { ts::set_rest_lengths(su.model, b, rest); });
  EXPECT_NE(e.find("batch: robot 1, cable '" + su.model.cable_ids[4] + "': rest length -0.1"), std::string::npos) << e;
  EXPECT_EQ(b.datas[0].cable_rest_length_m[0], su.model.cables[0].rest_length_m);  // nothing changed
  EXPECT_EQ(error_of([&] { ts::set_state(su.model, b, 2, su.model.initial_state); }),
            "batch: robot 2 out of range (the batch has 2 robots)");
  ts::State short_state;
  short_state.x = Eigen::VectorXd::Zero(5);
  EXPECT_EQ(error_of([&] { ts::set_state(su.model, b, 0, short_state); }),
            "batch: robot 0: the state has 5 entries, the model needs 13 * nrod = 39");
}

// Per-robot models: robot r with its own stiffness, mass, ground and winch gains equals stepping it
// alone with its model, for any thread count; commands go to the winch target on motorised cables;
// external forces are per robot.
TEST(Batch, PerRobotModelsEqualSteppingEachAloneForAnyThreadCount) {
  const ts::Model base = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar_motorised.yaml").model;
  ts::Model ideal = base;
  ideal.drives.clear();
  std::vector<ts::Model> models(3, ideal);
  for (int r = 0; r < 3; ++r) {
    auto& m = models[static_cast<std::size_t>(r)];
    for (auto& c : m.cables) c.stiffness_Npm *= 1.0 + 0.2 * r;
    m.rods[0].mass_kg *= 1.0 + 0.1 * r;
    m.ground.friction = 0.5 + 0.2 * r;
    m.winches[1].kp_per_m *= 1.0 + r;
  }
  std::vector<const ts::Model*> ptrs;
  for (const auto& m : models) ptrs.push_back(&m);
  Eigen::MatrixXd cmd(3, ideal.ncable());
  Eigen::MatrixXd force = Eigen::MatrixXd::Zero(3, 3 * ideal.nnode());
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < ideal.ncable(); ++k) cmd(r, k) = ideal.cables[static_cast<std::size_t>(k)].rest_length_m * (0.9 + 0.02 * k);
    force(r, 2) = 0.5 * r;  // node 0 pushed up
  }
  auto run = [&](int threads) {
    ts::Batch b = ts::make_batch(ideal, 3);
    for (int r = 0; r < 3; ++r) ts::set_state(models[static_cast<std::size_t>(r)], b, r, ideal.initial_state);
    ts::command_rest_lengths(ptrs, b, cmd);
    ts::set_external_forces(ptrs, b, force);
    ts::BatchStepOptions o;
    o.h_s = 2e-4;
    o.nstep = 50;
    o.threads = threads;
    for (int c = 0; c < 3; ++c) EXPECT_EQ(ts::step_batch(ptrs, b, o), 0);
    return b;
  };
  const ts::Batch one = run(1), two = run(2);
  for (int r = 0; r < 3; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const ts::Model& m = models[i];
    ts::Data d = ts::make_data(m);
    ts::State s = m.initial_state;
    for (int k = 0; k < m.ncable(); ++k) ts::command_rest_length(d, k, cmd(r, k));
    d.f_W_ext_node[0].z() = 0.5 * r;
    ts::compute_derivative(m, s, d);
    for (int c = 0; c < 3; ++c) {
      const double t0 = s.time_s;
      for (int k = 0; k < 50; ++k) ts::step(m, d, s, 2e-4, ts::StepOptions{}, t0 + (k + 1) * 2e-4);
    }
    EXPECT_EQ(one.states[i].x, s.x) << r;  // bit-identical
    EXPECT_EQ(two.states[i].x, s.x) << r;
    // the winch cables follow their targets (commanded), the others took the command directly
    EXPECT_EQ(one.datas[i].winch_target_m[1], cmd(r, 1));
    EXPECT_EQ(one.datas[i].cable_rest_length_m[6], cmd(r, 6));
    EXPECT_NE(one.datas[i].cable_rest_length_m[1], cmd(r, 1));
  }
  EXPECT_GT((one.states[0].x - one.states[2].x).norm(), 1e-3);  // the models really differ
}

TEST(Batch, PerRobotModelsRefuseAnotherStructureAndBadArrays) {
  const Robots su(2);
  ts::Batch b = ts::make_batch(su.model, 2);
  ts::Model other = su.model;
  std::swap(other.cables[0].node[0], other.cables[0].node[1]);
  const std::vector<const ts::Model*> bad = {&su.model, &other};
  EXPECT_EQ(error_of([&] { ts::step_batch(bad, b, ts::BatchStepOptions{}); }),
            "batch: robot 1's model has another structure than robot 0's (cable 0 joins other nodes)");
  EXPECT_EQ(error_of([&] { ts::step_batch(std::vector<const ts::Model*>{&su.model}, b, ts::BatchStepOptions{}); }),
            "batch: 1 models for 2 robots (one model per robot)");
  const std::vector<const ts::Model*> good = {&su.model, &su.model};
  EXPECT_EQ(error_of([&] { ts::command_rest_lengths(good, b, Eigen::MatrixXd::Ones(2, 3)); }),
            "batch: commanded rest lengths must be (robots x ncable) = (2 x 9), got (2 x 3)");
  Eigen::MatrixXd f = Eigen::MatrixXd::Zero(2, 18);
  f(1, 4) = std::nan("");
  EXPECT_EQ(error_of([&] { ts::set_external_forces(good, b, f); }), "batch: robot 1: the external forces are not finite");
  Eigen::MatrixXd cmd = su.rest;
  cmd(0, 2) = -1.0;
  const std::string e = error_of([&] { ts::command_rest_lengths(good, b, cmd); });
  EXPECT_NE(e.find("batch: robot 0, cable '" + su.model.cable_ids[2] + "': commanded rest length -1 m"), std::string::npos) << e;
}

}  // namespace
