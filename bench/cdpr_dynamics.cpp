// CDPR dynamics speed (issue 6): simulated seconds per wall second of the 8-cable printer
// (RK4, h = 1 ms, 500 Hz controller in the loop and without it) and the tension controller's
// cycle time (exact solver on 6 x 8 + upper 6 x 4 solve + winch commands).
// Counter "sim_x_realtime" = simulated seconds / wall seconds. Results: docs/CDPR_DYNAMICS.md.
#include <benchmark/benchmark.h>

#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/cdpr/model_io.hpp>

#include <string>

namespace {

using namespace tendyn::cdpr;

DynamicModel printer() {
  return make_printer_dynamics(load_model(std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/printer8.yaml").model, 50.0);
}

void BM_PrinterOpenLoop(benchmark::State& state) {
  const DynamicModel m = printer();
  const Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(1, -1, 3), Eigen::Vector3d::Zero());
  StateVector x = make_state(m, pose, rest_lengths_for_tensions(m, in, pose, Eigen::VectorXd::Constant(8, 3000.0)));
  const double h = 1e-3;
  for (auto _ : state) {
    step_rk4(m, in, x, h, d);
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["sim_x_realtime"] = benchmark::Counter(h * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_PrinterClosedLoop(benchmark::State& state) {
  const DynamicModel m = printer();
  Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  ExperimentConfig cfg;
  const Reference r0 = layer_reference(cfg, 0.0);
  Pose pose;
  pose.p_WP = r0.p_W;
  StateVector x = make_state(m, pose, rest_lengths_for_tensions(m, in, pose, Eigen::VectorXd::Constant(8, 3000.0)));
  Controller c(m, cfg.controller);
  Sensors s(m, cfg.sensors);
  Measurement meas = make_measurement(m);
  const double h = 1e-3;
  long k = 0;
  for (auto _ : state) {
    if (k % 2 == 0) {
      compute_derivative(m, in, x, d);
      s.measure(m, x, d, meas);
      c.update(layer_reference(cfg, static_cast<double>(k) * h), meas, in);
    }
    step_rk4(m, in, x, h, d);
    ++k;
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["sim_x_realtime"] = benchmark::Counter(h * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ControllerCycle(benchmark::State& state) {
  const DynamicModel m = printer();
  Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(1, -1, 3), Eigen::Vector3d(0.0, 0.0, 0.01));
  const StateVector x = make_state(m, pose, rest_lengths_for_tensions(m, in, pose, Eigen::VectorXd::Constant(8, 3000.0)));
  compute_derivative(m, in, x, d);
  ControllerConfig cc;
  cc.tension_control = state.range(0) != 0;
  Controller c(m, cc);
  Sensors s(m, SensorConfig{});
  Measurement meas = make_measurement(m);
  s.measure(m, x, d, meas);
  Reference ref;
  ref.p_W = Eigen::Vector3d(1.01, -1.0, 3.0);
  for (auto _ : state) {
    c.update(ref, meas, in);
    benchmark::DoNotOptimize(in.winch_rate_m_s.data());
  }
  state.SetLabel(cc.tension_control ? "with tension control" : "without tension control");
}

BENCHMARK(BM_PrinterOpenLoop)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PrinterClosedLoop)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ControllerCycle)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
