// Workspace evaluation on the 8-cable printer (models/cdpr/printer8.yaml), results in
// docs/BENCHMARKS.md. Not a timed test.
//  * BM_Pose*: poses per second of one evaluator (one thread), the wrench-feasible test with the
//    weight (static), with a box of external wrenches (64 vertices: fx, fy, fz, mx, my, mz), with
//    and without the capacity margin; poses cycle through a 20^3 grid of the frame.
//  * BM_Grid/N/T: an N^3 grid of the frame on T threads (N = 100: the target of a 100^3
//    grid in under 10 s on 2 cores), margin off and on.
//  * BM_Rays vs BM_GridBall: evaluations, time and the volume inside a ball of radius 9.5 m about the
//    frame's centre, by ray casting (rays clipped at the ball) and by a grid (points in the ball).
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/workspace.hpp>

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

using namespace tendyn::cdpr;

const Model& printer() {
  static const Model m = load_model(std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/printer8.yaml").model;
  return m;
}

WorkspaceGrid frame_grid(int n) {
  WorkspaceGrid g;
  g.lo_m = Eigen::Vector3d(-10.0, -10.0, 0.0);
  g.hi_m = Eigen::Vector3d(10.0, 10.0, 15.0);
  g.count = {n, n, n};
  return g;
}

std::vector<Pose> frame_poses() {
  std::vector<Pose> poses;
  const int n = 20;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        Pose p;
        p.p_WP = Eigen::Vector3d(-10.0 + 20.0 * (i + 0.5) / n, -10.0 + 20.0 * (j + 0.5) / n, 15.0 * (k + 0.5) / n);
        poses.push_back(p);
      }
  return poses;
}

void run_pose(benchmark::State& state, bool box, bool margin) {
  WorkspaceOptions o;
  o.margin = margin;
  if (box) {
    o.wrench_lo = (Eigen::VectorXd(6) << -100, -100, -100, -20, -20, -20).finished();
    o.wrench_hi = -o.wrench_lo;
  }
  WorkspaceEvaluator e(printer(), o);
  const auto poses = frame_poses();
  std::size_t i = 0;
  int inside = 0;
  for (auto _ : state) {
    const PoseVerdict v = e.evaluate(poses[i]);
    inside += v.inside();
    benchmark::DoNotOptimize(v);
    if (++i == poses.size()) i = 0;
  }
  state.counters["poses_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["inside_fraction"] = static_cast<double>(inside) / static_cast<double>(state.iterations());
}

void BM_PoseStatic(benchmark::State& s) { run_pose(s, false, false); }
void BM_PoseStaticMargin(benchmark::State& s) { run_pose(s, false, true); }
void BM_PoseBox64(benchmark::State& s) { run_pose(s, true, false); }
void BM_PoseBox64Margin(benchmark::State& s) { run_pose(s, true, true); }

void BM_Grid(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  WorkspaceOptions o;
  o.threads = static_cast<int>(state.range(1));
  o.margin = state.range(2) != 0;
  double volume = 0.0;
  for (auto _ : state) {
    const auto r = evaluate_grid(printer(), o, frame_grid(n));
    volume = r.measure;
  }
  state.counters["poses_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()) * n * n * n, benchmark::Counter::kIsRate);
  state.counters["volume_m3"] = volume;
}

// rays and grid compared inside the ball of radius 9.5 m about (0, 0, 7.5) m (within the frame)
constexpr double kBallRadius = 9.5;

void BM_GridBall(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  WorkspaceOptions o;
  o.threads = 1;
  o.margin = false;
  WorkspaceGrid g;
  g.lo_m = Eigen::Vector3d(-kBallRadius, -kBallRadius, 7.5 - kBallRadius);
  g.hi_m = Eigen::Vector3d(kBallRadius, kBallRadius, 7.5 + kBallRadius);
  g.count = {n, n, n};
  double volume = 0.0;
  for (auto _ : state) {
    const auto r = evaluate_grid(printer(), o, g);
    int in_ball = 0;
    for (int i = 0; i < r.p_WP.cols(); ++i)
      if (r.verdicts[static_cast<std::size_t>(i)].inside() && (r.p_WP.col(i) - Eigen::Vector3d(0, 0, 7.5)).norm() <= kBallRadius) ++in_ball;
    volume = in_ball * r.cell_measure;
  }
  state.counters["evaluations"] = static_cast<double>(n) * n * n;
  state.counters["volume_m3_in_ball"] = volume;
}

void BM_Rays(benchmark::State& state) {
  WorkspaceOptions o;
  o.threads = 1;
  o.margin = false;
  RaySpec spec;
  spec.start_m = Eigen::Vector3d(0.0, 0.0, 7.5);
  spec.count = static_cast<int>(state.range(0));
  spec.max_length_m = kBallRadius;
  spec.step_m = 0.5;
  spec.tol_m = 0.01;
  RayResult r;
  for (auto _ : state) r = cast_rays(printer(), o, spec);
  state.counters["evaluations"] = r.evaluations;
  state.counters["volume_m3_if_star_shaped"] = r.measure;
  int clipped = 0;
  for (bool c : r.clipped) clipped += c;
  state.counters["clipped"] = clipped;
}

}  // namespace

BENCHMARK(BM_PoseStatic);
BENCHMARK(BM_PoseStaticMargin);
BENCHMARK(BM_PoseBox64);
BENCHMARK(BM_PoseBox64Margin);
BENCHMARK(BM_Grid)
    ->Args({40, 1, 0})
    ->Args({40, 2, 0})
    ->Args({40, 1, 1})
    ->Args({40, 2, 1})
    ->Args({100, 2, 0})
    ->Args({100, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK(BM_Rays)->Arg(500)->Arg(2000)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_GridBall)->Arg(40)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
