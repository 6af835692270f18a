// The solvers do not allocate after a warm-up call of the same size (the real-time use of
// document 002: a 3 x 4 solve per control step). Counts calls to malloc by interposing it
// (glibc only; skipped under AddressSanitizer, which owns malloc).
#include <gtest/gtest.h>

#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <cstddef>

#include "cdpr/test_util.hpp"

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define TENDYN_COUNT_MALLOC 1
extern "C" void* __libc_malloc(std::size_t);
namespace {
long g_mallocs = 0;
bool g_counting = false;
}  // namespace
extern "C" void* malloc(std::size_t n) {
  if (g_counting) ++g_mallocs;
  return __libc_malloc(n);
}
#endif

namespace tendyn::cdpr {
namespace {

TEST(NoAllocation, SolversAreAllocationFreeAfterWarmUp) {
#ifndef TENDYN_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc without AddressSanitizer";
#else
  for (Method m : {Method::kExhaustive, Method::kLawsonHanson, Method::kExact, Method::kClosedForm, Method::kImprovedClosedForm}) {
    for (auto [rows, cols] : {std::pair{3, 4}, std::pair{6, 12}}) {
      std::vector<RandomProblem> ps;
      for (int k = 0; k < 20; ++k) ps.push_back(random_problem(rows, cols, 100 + k, k % 2 ? WrenchMode::kFeasible : WrenchMode::kUniform));
      Workspace ws(rows, cols);
      TensionResult r;
      SolverOptions o;
      o.f_min_N = 0.01;
      o.f_max_N = 3.0;
      solve_tensions(m, ps[0].J, ps[0].w, o, ws, r);
      g_mallocs = 0;
      g_counting = true;
      for (const auto& p : ps) solve_tensions(m, p.J, p.w, o, ws, r);
      g_counting = false;
      EXPECT_EQ(g_mallocs, 0) << to_string(m) << " " << rows << "x" << cols;
    }
  }
#endif
}

// Issue 6: one closed-loop step of the printer (sensors with seeded noise, controller with and
// without the tension regulator, RK4 step of the dynamics) does not allocate after a warm-up.
TEST(NoAllocation, ClosedLoopPrinterStepIsAllocationFree) {
#ifndef TENDYN_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc without AddressSanitizer";
#else
  const DynamicModel m = make_printer_dynamics(load_model(test::model_path("printer8.yaml")).model, 50.0);
  for (bool tension_control : {false, true}) {
    ExperimentConfig cfg;
    cfg.path = default_layer_path();  // the reference generator then reads it in place
    ControllerConfig cc;
    cc.tension_control = tension_control;
    SensorConfig sc;
    sc.force_sigma_N = 20.0;
    sc.position_sigma_m = 2e-4;
    sc.gyro_sigma = 1e-3;
    sc.seed = 3;
    Controller ctrl(m, cc);
    Sensors sensors(m, sc);
    Measurement meas = make_measurement(m);
    Inputs in = make_inputs(m);
    DynamicData d = make_dynamic_data(m);
    Pose pose0;
    pose0.p_WP = layer_reference(cfg, 0.0).p_W;
    StateVector x = make_state(m, pose0, Eigen::VectorXd::Ones(m.ncable()));
    compute_derivative(m, in, x, d);
    sensors.measure(m, x, d, meas);
    ctrl.update(layer_reference(cfg, 0.0), meas, in);
    x.tail(m.ncable()) = rest_lengths_for_tensions(m, in, pose0, ctrl.optimal_tensions());
    ctrl.reset();  // stage-1 length offsets from the first real cycle
    auto step = [&](int k) {
      const double t = 1e-3 * k;
      compute_derivative(m, in, x, d);
      sensors.measure(m, x, d, meas);
      ctrl.update(layer_reference(cfg, t), meas, in);
      step_rk4(m, in, x, 1e-3, d);
    };
    for (int k = 0; k < 5; ++k) step(k);  // warm-up (solver workspaces sized)
    g_mallocs = 0;
    g_counting = true;
    for (int k = 5; k < 1005; ++k) step(k);
    g_counting = false;
    EXPECT_EQ(g_mallocs, 0) << "tension control " << tension_control;
    EXPECT_LT((x.head<3>() - layer_reference(cfg, 1.005).p_W).norm(), 0.01);  // it did track
  }
#endif
}

}  // namespace
}  // namespace tendyn::cdpr
