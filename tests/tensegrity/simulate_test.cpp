// The simulation driver's step() (simulate() is a loop over it) and sampled controllers.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include "support/error_of.hpp"
#include "support/tensegrity_fixtures.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <string>
#include <vector>

namespace ts = tendyn::tensegrity;
using tendyn::test::error_of;

// step() must not allocate: malloc is interposed in this test binary (glibc: forwards to
// __libc_malloc) and counts calls while armed, as in tests/tree/alloc_test.cpp.
namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_allocs{0};
}  // namespace
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TENDYN_TS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define TENDYN_TS_SANITIZED 1
#endif
#endif
#if defined(__GLIBC__) && !defined(TENDYN_TS_SANITIZED)
#define TENDYN_TS_COUNT_MALLOC 1
extern "C" void* __libc_malloc(std::size_t n);
extern "C" void* malloc(std::size_t n) noexcept {
  if (g_armed.load(std::memory_order_relaxed)) g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
#endif

namespace {

ts::Model model_file(const std::string& name) { return ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/" + name).model; }
// Document 001's 3-bar robot standing on its impulse ground, with its four sinusoidal drives.
ts::Model three_bar() { return model_file("three_bar.yaml"); }
// The same robot lying on the ground in the document's printed pose (4-1), which is not at rest
// (slack cables, impacts), with the standing robot's drives: slack events, impacts and
// time-dependent rest lengths, everything a step can do. (models/three_bar_lying.yaml is that
// pose settled on the ground, which no longer has them.)
ts::Model three_bar_lying_driven() {
  ts::Model m = model_file("gen/three_bar_lying_4-1.yaml");
  m.drives = three_bar().drives;
  return m;
}

// n steps by hand, the way simulate() steps (fixed grid t0 + (k + 1) h).
ts::State step_by_hand(const ts::Model& m, const ts::SimulationOptions& o, long n, long* splits = nullptr) {
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::normalize_quaternions(m, s);
  ts::compute_derivative(m, s, d);
  const double h = o.duration_s / static_cast<double>(n);
  for (long k = 0; k < n; ++k) {
    const ts::StepResult r = ts::step(m, d, s, h, ts::step_options(o), static_cast<double>(k + 1) * h);
    EXPECT_EQ(r.h_s, h);
    EXPECT_EQ(r.rejected, 0);
    if (splits) *splits += r.splits > 0 ? 1 : 0;
  }
  return s;
}

void expect_same_bits(const ts::State& a, const ts::State& b) {
  EXPECT_EQ(a.time_s, b.time_s);
  ASSERT_EQ(a.x.size(), b.x.size());
  for (Eigen::Index i = 0; i < a.x.size(); ++i) EXPECT_EQ(a.x[i], b.x[i]) << "entry " << i;
}

}  // namespace

TEST(Step, ByHandEqualsSimulateBitForBitWithSlackImpactsAndDrives) {
  const ts::Model m = three_bar_lying_driven();
  for (const auto integ : {ts::Integrator::kRK4, ts::Integrator::kLieVerlet}) {
    ts::SimulationOptions o;
    o.integrator = integ;
    o.duration_s = 0.6;
    o.dt_s = 5e-4;
    const long n = 1200;
    long splits = 0;
    const ts::State by_hand = step_by_hand(m, o, n, &splits);
    const ts::SimulationSummary sum = ts::simulate(m, o);
    SCOPED_TRACE(ts::to_string(integ));
    EXPECT_EQ(sum.steps, n);
    EXPECT_EQ(sum.split_steps, splits);
    EXPECT_GT(splits, 0);  // the run really has slack events / impacts
    EXPECT_LT(sum.monitor.first_slack_time_s, 0.6);
    EXPECT_GE(sum.monitor.first_slack_time_s, 0.0);
    expect_same_bits(by_hand, sum.final_state);
  }
}

TEST(Step, Dopri5ByHandEqualsSimulateIncludingRejections) {
  ts::Model m = three_bar();
  m.ground.type = ts::Ground::Type::kCompliant;
  ts::SimulationOptions o;
  o.integrator = ts::Integrator::kDormandPrince45;
  o.duration_s = 0.3;
  o.dt_s = 0.05;  // too large a first trial: the error control rejects it
  o.output_interval_s = 0.0;
  const ts::SimulationSummary sum = ts::simulate(m, o);

  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::compute_derivative(m, s, d);
  double h = o.dt_s;
  long steps = 0, rejected = 0;
  const double t_end = o.duration_s;
  while (s.time_s < t_end - 1e-12) {
    const double h_try = std::min(h, t_end - s.time_s);
    const ts::StepResult r = ts::step(m, d, s, h_try, ts::step_options(o));
    EXPECT_GT(r.h_s, 0.0);
    EXPECT_LE(r.h_s, h_try);
    rejected += r.rejected;
    if (r.rejected > 0 || !(h_try < h)) h = r.h_next_s;
    ++steps;
  }
  EXPECT_GT(sum.rejected_steps, 0);
  EXPECT_EQ(rejected, sum.rejected_steps);
  EXPECT_EQ(steps, sum.steps);
  expect_same_bits(s, sum.final_state);
}

TEST(Step, LeavesDataEvaluatedAtTheNewState) {
  const ts::Model m = three_bar();
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::compute_derivative(m, s, d);
  for (int k = 0; k < 20; ++k) ts::step(m, d, s, 1e-3, {});
  const Eigen::VectorXd xdot = d.xdot;
  ts::Data fresh = ts::make_data(m);
  ts::compute_derivative(m, s, fresh);
  EXPECT_EQ((xdot - fresh.xdot).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_NEAR(s.time_s, 0.02, 1e-15);  // accumulated without t_end_s
}

// No preparatory call: a step on a fresh Data (make_data only) gives the bits of a step after
// compute_derivative, and so does a state or an input changed by hand between steps.
TEST(Step, NeedsNoPreparatoryCall) {
  const ts::Model m = three_bar_lying_driven();
  ts::State s0 = m.initial_state;
  ts::normalize_quaternions(m, s0);
  ts::Data prepared = ts::make_data(m), bare = ts::make_data(m);
  ts::State a = s0, b = s0;
  ts::compute_derivative(m, a, prepared);
  ts::step(m, prepared, a, 1e-3, {});
  ts::step(m, bare, b, 1e-3, {});  // no compute_derivative before
  expect_same_bits(a, b);

  // state replaced by hand: the step evaluates it (the stale derivative was the old state's)
  ts::State c = s0, d = s0;
  ts::Data dc = ts::make_data(m), dd = ts::make_data(m);
  ts::step(m, dc, c, 1e-3, {});
  c = s0;  // back to the start: dc.xdot is f(state after one step), not f(s0)
  ts::step(m, dc, c, 1e-3, {});
  ts::step(m, dd, d, 1e-3, {});
  expect_same_bits(c, d);

  // an input changed by hand (a rest length, an external force) between steps
  for (int which = 0; which < 2; ++which) {
    ts::State e = s0, f = s0;
    ts::Data de = ts::make_data(m), df = ts::make_data(m);
    ts::step(m, de, e, 1e-3, {});
    ts::step(m, df, f, 1e-3, {});
    for (ts::Data* x : {&de, &df}) {
      if (which == 0)
        x->cable_rest_length_m[4] *= 0.97;  // cable 4 has no drive
      else
        x->f_W_ext_node[1] += Eigen::Vector3d(0.0, 0.0, 3.0);
    }
    ts::compute_derivative(m, f, df);  // the old protocol
    ts::step(m, de, e, 1e-3, {});
    ts::step(m, df, f, 1e-3, {});
    expect_same_bits(e, f);
  }
}

// Re-evaluation happens only when something changed: a chain of steps evaluates 4 times per rk4
// step, as before (a continuous controller counts the evaluations).
TEST(Step, ChainedStepsEvaluateNoMoreThanBefore) {
  const ts::Model m = tendyn::test::doc000_prism(50.0, 0.5);
  ts::Data d = ts::make_data(m);
  long calls = 0;
  d.controller = [&](double, const ts::State&, ts::Data&) { ++calls; };
  ts::State s = m.initial_state;
  ts::StepOptions o;
  o.locate_slack_events = false;
  ts::step(m, d, s, 1e-3, o);
  const long first = calls;  // the first step evaluates its start too
  for (int k = 0; k < 10; ++k) ts::step(m, d, s, 1e-3, o);
  EXPECT_EQ(first, 5);
  EXPECT_EQ(calls - first, 40);
}

TEST(Step, DoesNotAllocate) {
#ifndef TENDYN_TS_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc and no address/thread/memory sanitizer";
#endif
  {  // the counter works
    g_allocs = 0;
    g_armed = true;
    auto* probe = new Eigen::VectorXd(Eigen::VectorXd::Ones(100));
    g_armed = false;
    EXPECT_GE(g_allocs.load(), 1);
    delete probe;
  }
  ts::Model impulse = three_bar_lying_driven(), compliant = three_bar_lying_driven();
  compliant.ground.type = ts::Ground::Type::kCompliant;
  long splits = 0, rejected = 0;
  for (const auto integ : {ts::Integrator::kRK4, ts::Integrator::kLieVerlet, ts::Integrator::kDormandPrince45}) {
    const ts::Model& m = integ == ts::Integrator::kDormandPrince45 ? compliant : impulse;
    ts::Data d = ts::make_data(m);
    d.controller = [](double t, const ts::State&, ts::Data& data) { data.cable_rest_length_m[8] = 0.2 + 0.001 * t; };
    ts::State s = m.initial_state;
    ts::compute_derivative(m, s, d);
    ts::StepOptions o;
    o.integrator = integ;
    g_allocs = 0;
    g_armed = true;
    for (int k = 0; k < 400; ++k) {
      const ts::StepResult r = ts::step(m, d, s, integ == ts::Integrator::kDormandPrince45 ? 0.01 : 5e-4, o);
      splits += r.splits;
      rejected += r.rejected;
    }
    g_armed = false;
    EXPECT_EQ(g_allocs.load(), 0) << ts::to_string(integ);
  }
  EXPECT_GT(splits, 0);    // slack events and impacts were located
  EXPECT_GT(rejected, 0);  // and dopri5 retried
}

// The general-body path (end-caps, off-axis cable points, full inertia tensors) and the winches'
// motor equations allocate nothing either: the motorised 3-bar with RK4 and Dormand-Prince.
TEST(Step, GeneralBodyPathDoesNotAllocate) {
#ifndef TENDYN_TS_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc and no address/thread/memory sanitizer";
#endif
  const ts::Model m = model_file("three_bar_motorised.yaml");
  ASSERT_TRUE(m.has_body_geometry());
  ASSERT_GT(m.nwinch(), 0);
  for (const auto integ : {ts::Integrator::kRK4, ts::Integrator::kDormandPrince45}) {
    ts::Data d = ts::make_data(m);
    ts::State s = m.initial_state;
    ts::StepOptions o;
    o.integrator = integ;
    ts::step(m, d, s, 2e-4, o);  // warm-up
    g_allocs = 0;
    g_armed = true;
    for (int k = 0; k < 200; ++k) ts::step(m, d, s, 2e-4, o);
    g_armed = false;
    EXPECT_EQ(g_allocs.load(), 0) << ts::to_string(integ);
    EXPECT_GT(s.time_s, 0.0);
  }
}

// step() keeps no copy of the external forces while they are all +0 (Data::Evaluated::f_W_ext_zero)
// and does not look at them after a step without a controller: forces set by hand between steps
// (zero to nonzero, back to +0, a -0) and forces a controller changed during a step are still
// evaluated: the motorised 3-bar (general path, winches) stepped on one Data gives the bits of each
// step taken on a fresh Data.
TEST(Step, ExternalForcesChangedBetweenStepsOnTheGeneralPathAreEvaluated) {
  const ts::Model m = model_file("three_bar_motorised.yaml");
  ts::Data reused = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::StepOptions o;
  o.locate_slack_events = false;
  // the same step on a fresh Data with reused's inputs (nothing held: it evaluates the state)
  auto fresh_step = [&](const ts::State& from) {
    ts::Data d = ts::make_data(m);
    d.f_W_ext_node = reused.f_W_ext_node;
    d.winch_target_m = reused.winch_target_m;
    ts::State x = from;
    ts::step(m, d, x, 2e-4, o);
    return x;
  };
  auto check_step = [&](const char* what) {
    SCOPED_TRACE(what);
    const ts::State expected = fresh_step(s);
    ts::step(m, reused, s, 2e-4, o);
    expect_same_bits(s, expected);
  };
  for (int k = 0; k < 5; ++k) ts::step(m, reused, s, 2e-4, o);
  check_step("all forces +0");
  reused.f_W_ext_node[7] = Eigen::Vector3d(0.0, 0.0, 3.0);
  check_step("a force set on a cable point");
  check_step("held");
  reused.f_W_ext_node[7].setZero();
  check_step("back to +0");
  reused.f_W_ext_node[2].x() = -0.0;  // bitwise a change (re-evaluated), numerically none
  check_step("a -0");
  reused.f_W_ext_node[2].setZero();
  check_step("+0 again");
  // a controller that sets a force during the step, then removed with the force zeroed by hand:
  // what the step recorded is the controller's force, so the next step must evaluate again
  reused.controller = [](double t, const ts::State&, ts::Data& d) { d.f_W_ext_node[5] = Eigen::Vector3d(0.0, 50.0 * t, -2.0); };
  ts::step(m, reused, s, 2e-4, o);
  reused.controller = nullptr;
  reused.f_W_ext_node[5].setZero();
  check_step("after a controller's force, zeroed by hand");
  // the force left on: the controller's last value held without the controller
  reused.controller = [](double t, const ts::State&, ts::Data& d) { d.f_W_ext_node[5] = Eigen::Vector3d(0.0, 50.0 * t, -2.0); };
  ts::step(m, reused, s, 2e-4, o);
  reused.controller = nullptr;
  check_step("the controller's last force held");
}

TEST(Step, RejectsBadArguments) {
  ts::Model m = three_bar();
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::compute_derivative(m, s, d);
  EXPECT_NE(error_of([&] { ts::step(m, d, s, 0.0, {}); }).find("step h must be > 0"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::step(m, d, s, NAN, {}); }).find("step h must be > 0"), std::string::npos);
  ts::StepOptions dp;
  dp.integrator = ts::Integrator::kDormandPrince45;
  EXPECT_NE(error_of([&] { ts::step(m, d, s, 1e-3, dp); }).find("impulse ground model needs a fixed-step"), std::string::npos);
  m.ground.type = ts::Ground::Type::kNone;
  EXPECT_NE(error_of([&] { ts::step(m, d, s, 1e-3, dp, 1e-3); }).find("t_end_s is for the fixed-step"), std::string::npos);
  EXPECT_EQ(s.time_s, 0.0);  // nothing was stepped
}

TEST(Step, NonFiniteStateIsASimulationErrorWithTheTime) {
  ts::Model m = tendyn::test::doc000_prism();
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::prepare_step(m, s, d);  // recorded as evaluated: the step reuses xdot
  d.xdot[0] = INFINITY;       // a poisoned first stage
  try {
    ts::step(m, d, s, 1e-3, {});
    FAIL() << "no error";
  } catch (const tendyn::SimulationError& e) {
    EXPECT_EQ(e.time(), 1e-3);
    EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
  }
}

TEST(SampledController, CalledEveryPeriodAtStepBoundariesWithTheStepState) {
  const ts::Model m = tendyn::test::doc000_prism(50.0, 0.5);
  for (const auto integ : {ts::Integrator::kRK4, ts::Integrator::kDormandPrince45}) {
    ts::SimulationOptions o;
    o.integrator = integ;
    o.duration_s = 0.5;
    o.dt_s = 1e-3;
    o.control_period_s = 0.05;
    std::vector<double> t_calls;
    std::vector<ts::State> states;
    const auto sum = ts::simulate(m, o, nullptr, {}, nullptr, [&](double t, const ts::State& s, ts::Data&) {
      t_calls.push_back(t);
      states.push_back(s);
    });
    SCOPED_TRACE(ts::to_string(integ));
    ASSERT_EQ(t_calls.size(), 10u);  // 0, 0.05, ..., 0.45 (not at the end)
    for (std::size_t k = 0; k < t_calls.size(); ++k) EXPECT_NEAR(t_calls[k], 0.05 * static_cast<double>(k), 1e-12);
    EXPECT_EQ(states[0].x, m.initial_state.x);
    EXPECT_NEAR(sum.final_state.time_s, 0.5, 1e-12);
  }
}

TEST(SampledController, HeldInputsEqualAModelWithThoseInputs) {
  // rest lengths and external forces set once at t = 0 and held equal the model carrying them
  ts::Model m = tendyn::test::doc000_prism(50.0, 0.5);
  ts::SimulationOptions o;
  o.duration_s = 0.4;
  o.control_period_s = 0.1;
  int calls = 0;
  const auto sum = ts::simulate(m, o, nullptr, {}, nullptr, [&](double t, const ts::State&, ts::Data& d) {
    ++calls;
    if (t == 0.0) {
      d.cable_rest_length_m[3] = 0.19;
      d.f_W_ext_node[1] = Eigen::Vector3d(0.0, 0.0, 0.5);
    }
  });
  EXPECT_EQ(calls, 4);
  ts::Model same = m;
  same.cables[3].rest_length_m = 0.19;
  same.f_W_ext_node[1] = Eigen::Vector3d(0.0, 0.0, 0.5);
  const auto ref = ts::simulate(same, o);
  expect_same_bits(sum.final_state, ref.final_state);
  // and differs from the model without them
  EXPECT_GT((ts::simulate(m, o).final_state.x - ref.final_state.x).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(SampledController, ZeroOrderHoldApproachesTheContinuousLawAsThePeriodShrinks) {
  const ts::Model m = tendyn::test::doc000_prism(50.0, 0.5);
  auto law = [](double t, const ts::State&, ts::Data& d) { d.cable_rest_length_m[4] = 0.2 + 0.02 * std::sin(6.0 * t); };
  ts::SimulationOptions o;
  o.duration_s = 1.0;
  const auto cont = ts::simulate(m, o, nullptr, {}, nullptr, law);
  double prev = HUGE_VAL;
  for (const double period : {0.1, 0.01, 0.001}) {
    o.control_period_s = period;
    const auto zoh = ts::simulate(m, o, nullptr, {}, nullptr, law);
    const double err = (zoh.final_state.x - cont.final_state.x).cwiseAbs().maxCoeff();
    EXPECT_GT(err, 0.0);
    EXPECT_LT(err, prev / 3.0) << "period " << period;  // first order in the period
    prev = err;
  }
}

TEST(SampledController, RejectsDrivenCablesBadPeriodsAndLimits) {
  ts::Model m = three_bar();  // drives on c1..c4
  ts::SimulationOptions o;
  o.duration_s = 0.1;
  o.dt_s = 5e-4;
  o.control_period_s = 0.01;
  auto on_c1 = [](double, const ts::State&, ts::Data& d) { d.cable_rest_length_m[0] += 0.001; };
  std::string msg = error_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, on_c1); });
  EXPECT_NE(msg.find("cable 'c1' at t = 0 s, but the cable has a drive"), std::string::npos) << msg;
  auto on_c9 = [](double, const ts::State&, ts::Data& d) { d.cable_rest_length_m[8] = 0.21; };
  EXPECT_EQ(error_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, on_c9); }), "");
  o.control_period_s = 0.0105;  // 21 steps: fine
  EXPECT_EQ(error_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, on_c9); }), "");
  o.control_period_s = 0.0102;
  msg = error_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, on_c9); });
  EXPECT_NE(msg.find("control period (0.0102 s) must be a whole number of steps dt (0.0005 s)"), std::string::npos) << msg;
  o.control_period_s = -1.0;
  EXPECT_NE(error_of([&] { ts::simulate(m, o); }).find("control period must be >= 0"), std::string::npos);
  o.control_period_s = 0.01;
  m.cables[8].rest_length_max_m = 0.205;
  msg = error_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, on_c9); });
  EXPECT_NE(msg.find("rest length of cable 'c9' to 0.21"), std::string::npos) << msg;
  m.cables[8].rest_length_max_m = 1.0;
  m.cables[8].rest_rate_max_mps = 1.0;  // the 0.01 m jump in one 0.5 ms step is 20 m/s
  msg = error_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, on_c9); });
  EXPECT_NE(msg.find("cable 'c9' at 20"), std::string::npos) << msg;
}

TEST(SampledController, LagrangeSimulateRefusesIt) {
  ts::Model m = three_bar();
  m.ground.type = ts::Ground::Type::kNone;
  ts::SimulationOptions o;
  o.duration_s = 0.01;
  o.control_period_s = 0.005;
  auto law = [](double, const ts::State&, ts::Data&) {};
  EXPECT_NE(error_of([&] { ts::lagrange_simulate(m, o, {}, nullptr, {}, law); }).find("sampled controller"), std::string::npos);
}

TEST(NodePositions, AreTheKinematicsOfData) {
  const ts::Model m = three_bar();
  const ts::SimulationSummary sum = [&] {
    ts::SimulationOptions o;
    o.duration_s = 0.2;
    return ts::simulate(m, o);
  }();
  ts::Data d = ts::make_data(m);
  ts::forward_kinematics(m, sum.final_state, d);
  const Eigen::MatrixX3d P = ts::node_positions(m, sum.final_state);
  ASSERT_EQ(P.rows(), m.nnode());
  EXPECT_EQ((P - d.p_W_node.transpose()).cwiseAbs().maxCoeff(), 0.0);
  // rod length between a rod's two nodes
  const ts::Rod& r = m.rods[0];
  EXPECT_NEAR((P.row(r.node[1]) - P.row(r.node[0])).norm(), r.length_m, 1e-12);
  ts::State bad;
  bad.x.setZero(5);
  EXPECT_NE(error_of([&] { ts::node_positions(m, bad); }).find("13 * nrod = 39"), std::string::npos);
}

// Issue 15: the step count was lround(duration / dt), 0 for duration < dt / 2 and undefined above
// LONG_MAX; an output interval above the run overflowed the stride (every step was written).
TEST(StepCount, RefusesNoStepAndTooManyStepsWithTheNumbers) {
  ts::SimulationOptions o;
  o.dt_s = 3.0;
  o.duration_s = 1.0;
  EXPECT_EQ(error_of([&] { ts::validate(o); }), "simulation option duration (1 s) is shorter than half a step dt (3 s): no step would run");
  o.dt_s = 1e-300;
  EXPECT_EQ(error_of([&] { ts::validate(o); }), "simulation option duration / dt = 1 / 1e-300 = 1e+300 steps is above the limit 1e+09");
  o.dt_s = 0.4;  // 2.5 steps: rounded half away from zero (the step becomes duration / 3)
  EXPECT_EQ(ts::fixed_step_count(o), 3);
  o.duration_s = 0.0;
  EXPECT_EQ(ts::fixed_step_count(o), 0);  // a zero-length run is allowed (t = 0 only)
}

TEST(StepCount, OutputIntervalLongerThanTheRunGivesStartAndEnd) {
  ts::SimulationOptions o;
  o.dt_s = 1e-3;
  o.duration_s = 0.05;
  o.output_interval_s = 1e300;
  EXPECT_EQ(ts::output_stride(o, 50), 50);
  o.output_interval_s = 0.01;
  EXPECT_EQ(ts::output_stride(o, 50), 10);
  o.output_interval_s = 0.0;
  EXPECT_EQ(ts::output_stride(o, 50), 1);
}

// The summary separates the time spent in the observer (writing outputs) from the run's wall time,
// so `tendyn simulate` can report steps/s without the output cost (issue 19 item 1).
TEST(Simulate, ObserverTimeIsPartOfTheWallTime) {
  struct Slow : ts::Observer {
    int calls = 0;
    void on_output(const ts::Model&, const ts::State&, const ts::Data&, const ts::Energy&) override {
      ++calls;
      const auto t0 = std::chrono::steady_clock::now();
      while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2)) {}
    }
  } slow;
  const ts::Model m = tendyn::test::doc000_prism(50.0, 0.5);
  ts::SimulationOptions o;
  o.duration_s = 0.05;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.01;
  const auto with = ts::simulate(m, o, &slow);
  EXPECT_EQ(slow.calls, 6);
  EXPECT_GE(with.observer_time_s, 6 * 0.002);
  EXPECT_LE(with.observer_time_s, with.wall_time_s);
  EXPECT_EQ(ts::simulate(m, o).observer_time_s, 0.0);
}

TEST(Simulate, MonitorFromExtremeLengthsEqualsPerStepStrains) {
  // Without drives or a controller the monitor keeps each cable's extreme lengths and turns them
  // into strains at the end (issue 19 item 2); a controller that changes nothing makes it compute
  // the strain of every cable at every step instead. Same run, so the reports must be identical:
  // extremes, first slack and first over-strain (limit 2 %: reached in this run) with their times.
  const auto m = tendyn::test::doc000_prism(50.0, 0.0);
  ts::SimulationOptions o;
  o.duration_s = 3.0;
  o.dt_s = 1e-3;
  o.strain_limit = 0.02;
  o.slack_tolerance = 1e-3;
  const auto fast = ts::simulate(m, o);
  const auto exact = ts::simulate(m, o, nullptr, {}, nullptr, [](double, const ts::State&, ts::Data&) {});
  ASSERT_EQ(fast.steps, exact.steps);
  EXPECT_EQ(fast.final_state.x, exact.final_state.x);
  EXPECT_EQ(fast.monitor.max_strain, exact.monitor.max_strain);
  EXPECT_EQ(fast.monitor.min_strain, exact.monitor.min_strain);
  EXPECT_EQ(fast.monitor.slack_first_time_s, exact.monitor.slack_first_time_s);
  EXPECT_EQ(fast.monitor.first_slack_cable, exact.monitor.first_slack_cable);
  EXPECT_EQ(fast.monitor.first_slack_time_s, exact.monitor.first_slack_time_s);
  EXPECT_EQ(fast.monitor.first_overstrain_cable, exact.monitor.first_overstrain_cable);
  EXPECT_EQ(fast.monitor.first_overstrain_time_s, exact.monitor.first_overstrain_time_s);
  EXPECT_EQ(fast.monitor.normal_mode, exact.monitor.normal_mode);
  // the run exercises both events and both signs of strain
  EXPECT_GE(exact.monitor.first_slack_cable, 0);
  EXPECT_GE(exact.monitor.first_overstrain_cable, 0);
  EXPECT_LT(exact.monitor.min_strain.minCoeff(), -1e-3);
  EXPECT_GT(exact.monitor.max_strain.maxCoeff(), 0.02);
}
