// Identification of the 3-bar robot from 10 s of 30 Hz marker data (issue 16's bench row,
// docs/BENCHMARKS.md): truth = models/identify/three_bar_truth.yaml run by simulate() (RK4, 1 ms),
// 1 mm noise, 10 % missing markers (seed 7), start = models/identify/three_bar_nominal.yaml (off by
// 30-60 %), grouped fit (3 stiffness, 1 damping, 3 rest-length groups, friction), 2 threads.
// Prints the wall and CPU time, Ceres' full report (evaluation counts and times) and the recovered values. Usage: bench_identify [threads] [duration_s]
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace ts = tendyn::tensegrity;

namespace {
struct Recorder : ts::Observer {
  std::vector<double> t;
  std::vector<Eigen::MatrixX3d> p;
  void on_output(const ts::Model&, const ts::State& s, const ts::Data& d, const ts::Energy&) override {
    t.push_back(s.time_s);
    p.emplace_back(d.p_W_node.transpose());
  }
};
}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double duration = argc > 2 ? std::atof(argv[2]) : 10.0;
  const std::string dir = std::string(TENDYN_SOURCE_DIR) + "/models/identify/";
  const ts::Model truth = ts::load_model_file(dir + "three_bar_truth.yaml").model;
  const ts::Model start = ts::load_model_file(dir + "three_bar_nominal.yaml").model;
  ts::SimulationOptions so;
  so.duration_s = duration;
  so.dt_s = 1e-3;
  so.output_interval_s = 1e-3;
  so.locate_slack_events = false;
  Recorder rec;
  ts::simulate(truth, so, &rec);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 1e-3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ts::MotionData d;
  for (int i = 0; i < truth.nnode(); ++i) d.marker_nodes.push_back(i);
  std::vector<std::size_t> rows;
  for (int k = 0;; ++k) {
    const auto step = static_cast<std::size_t>(std::lround(k * 1000.0 / 30.0));
    if (step >= rec.t.size()) break;
    rows.push_back(step);
  }
  d.p_W_marker_m.resize(static_cast<int>(rows.size()), 3 * truth.nnode());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    d.t_s.push_back(rec.t[rows[r]]);
    for (int i = 0; i < truth.nnode(); ++i) {
      const bool miss = u(rng) < 0.1;
      for (int c = 0; c < 3; ++c) {
        const double n = noise(rng);
        d.p_W_marker_m(static_cast<int>(r), 3 * i + c) = miss ? std::nan("") : rec.p[rows[r]](i, c) + n;
      }
    }
  }
  ts::IdentifyOptions o;
  o.segment_s = 0.5;
  o.threads = threads;
  const auto groups = ts::parse_fit_spec(start,
                                         "stiffness:c1+c2+c3,stiffness:c4+c5+c6,stiffness:c7+c8+c9,damping:c1+c2+c3+c4+c5+c6+c7+c8+c9,"
                                         "rest_length:c1+c2+c3,rest_length:c4+c5+c6,rest_length:c7+c8+c9,friction");
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();  // CPU of all threads of the process
  const auto r = ts::identify(start, d, groups, o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("identify: %zu samples (%.1f s of data), %d segments, %d residuals, %d unknowns, %d threads: %.2f s wall, %.2f s CPU\n%s\n",
              d.t_s.size(), duration, r.nsegment, r.nresidual, r.nunknown, threads, wall, cpu, r.solver_brief.c_str());
  for (const auto& p : r.parameters) {
    const auto e = p.elements.empty() ? std::size_t{0} : static_cast<std::size_t>(p.elements[0]);
    const double tv = p.kind == ts::ParameterKind::kFriction    ? truth.ground.friction
                      : p.kind == ts::ParameterKind::kStiffness ? truth.cables[e].stiffness_Npm
                      : p.kind == ts::ParameterKind::kDamping   ? truth.cables[e].damping_Nspm
                                                                : truth.cables[e].rest_length_m;
    std::printf("  %-36s nominal %9.5g fitted %9.5g truth %9.5g std %9.3g error %7.3g%%\n", p.name.c_str(), p.nominal, p.fitted, tv, p.std,
                100 * (p.fitted - tv) / tv);
  }
  std::printf("%s\n", r.solver_report.c_str());  // Ceres' times and evaluation counts
  std::printf(
      "marker RMS fit %.4g m, free run fitted %.4g m, nominal %.4g m; variance factor %.3g, %d fit(s) (restarts), won by start %d\n",
      r.marker_rms_m, r.marker_rms_free_fitted_m, r.marker_rms_free_nominal_m, r.variance_factor, r.starts, r.winning_start);
  return 0;
}
