// Closed-loop steering of document 001's 3-bar robot toward a target point on the floor: the C++
// twin of examples/python/closed_loop_three_bar.py (same law, same arithmetic, same output lines;
// the law and its limits are described there).
//
//   build/examples/closed_loop_three_bar [--model models/three_bar.yaml] [--target X Y] [--duration S] [--live PORT]
//
// --live PORT streams the run to `tendyn serve --port PORT` (page: the live address it prints, /live?token=...) through
// viz::LiveClient: each controller call's state, posted at most 30 times a second.
//
// A sampled controller (SimulationOptions::control_period_s = 20 ms) reads the measured node
// positions, leans the robot toward the target with the top and bottom cables and makes it hop
// every 0.5 s by a short contraction of the top cables; it prints the distance to the target.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/viz/live.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ts = tendyn::tensegrity;

namespace {

constexpr double kControlPeriodS = 0.02;
constexpr double kLeanM = 0.02;     // lean amplitude
constexpr double kHopM = 0.03;      // top-cable contraction of a hop
constexpr long kHopEvery = 25;      // a hop every 25 control periods (0.5 s) ...
constexpr long kHopFor = 3;         // ... lasting 3 control periods (60 ms)
constexpr double kArrivedM = 0.02;  // no hops within this distance
constexpr double kFacingM = 0.08;   // midpoint offset for full lean

// COM estimate: the mean of the node positions (3 x n); floor coordinates only.
void floor_com(const Eigen::Matrix3Xd& p, double& cx, double& cy) {
  cx = cy = 0.0;
  for (Eigen::Index i = 0; i < p.cols(); ++i) {
    cx += p(0, i);
    cy += p(1, i);
  }
  cx /= static_cast<double>(p.cols());
  cy /= static_cast<double>(p.cols());
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path = "models/three_bar.yaml";
  double tx = 0.3, ty = 0.0, duration = 10.0;
  int live_port = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc)
      model_path = argv[++i];
    else if (a == "--duration" && i + 1 < argc)
      duration = std::atof(argv[++i]);
    else if (a == "--live" && i + 1 < argc)
      live_port = std::atoi(argv[++i]);
    else if (a == "--target" && i + 2 < argc) {
      tx = std::atof(argv[++i]);
      ty = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--model FILE] [--target X Y] [--duration S] [--live PORT]\n", argv[0]);
      return 1;
    }
  }
  try {
    ts::ModelFile mf = ts::load_model_file(model_path);
    ts::Model& model = mf.model;
    model.drives.clear();  // the controller owns the cables
    for (auto& c : model.cables) {
      c.rest_length_min_m = c.rest_length_m - 0.06;
      c.rest_length_max_m = c.rest_length_m + 0.03;
    }
    ts::SimulationOptions options = mf.simulation;  // RK4, 0.5 ms, as in the model file
    options.duration_s = duration;
    options.output_interval_s = 0.5;
    options.control_period_s = kControlPeriodS;

    tendyn::viz::LiveClient live;
    if (live_port != 0) {
      live.connect("127.0.0.1", live_port);
      live.send_scene(model);
      std::fprintf(stderr, "live view: %s\n", live.page_url().c_str());
    }
    long calls = 0;
    auto law = [&](double t_s, const ts::State& state, ts::Data& data) {
      if (live.connected()) live.send_frame(t_s, model, state, data);  // a copy; posted by the client's thread
      const Eigen::Matrix3Xd& p = data.p_W_node;                       // measured node positions [m]
      double cx, cy;
      floor_com(p, cx, cy);
      const double dx = tx - cx, dy = ty - cy;
      const double dist = std::sqrt(dx * dx + dy * dy);
      const double ux = dist > 0.0 ? dx / dist : 0.0, uy = dist > 0.0 ? dy / dist : 0.0;
      const bool hop = dist > kArrivedM && calls % kHopEvery < kHopFor;
      ++calls;
      for (int k = 0; k < 6; ++k) {  // c1..c3 top, c4..c6 bottom
        const ts::Cable& c = model.cables[static_cast<std::size_t>(k)];
        const int a = c.node[0], b = c.node[1];
        const double mx = 0.5 * (p(0, a) + p(0, b)) - cx;
        const double my = 0.5 * (p(1, a) + p(1, b)) - cy;
        const double s = std::min(std::max((mx * ux + my * uy) / kFacingM, -1.0), 1.0);
        double value = k < 3 ? c.rest_length_m - kLeanM * s : c.rest_length_m + kLeanM * s;
        if (hop && k < 3) value -= kHopM;
        data.cable_rest_length_m[k] = std::min(std::max(value, c.rest_length_min_m), c.rest_length_max_m);
      }
    };
    ts::Recorder rec;
    ts::simulate(model, options, &rec, {}, nullptr, law);
    live.close();  // the last frame reaches the page

    std::vector<double> distances;
    for (const auto& p : rec.p_W_node) {
      double cx, cy;
      floor_com(p, cx, cy);
      const double dx = tx - cx, dy = ty - cy;
      distances.push_back(std::sqrt(dx * dx + dy * dy));
    }
    std::printf("target (%.3f, %.3f) m, %g s simulated\n", tx, ty, duration);
    std::printf("distance every 0.5 s [m]:");
    for (const double d : distances) std::printf(" %.3f", d);
    std::printf("\ndistance to target: start %.4f m, end %.4f m\n", distances.front(), distances.back());
  } catch (const tendyn::Error& e) {
    std::fprintf(stderr, "closed_loop_three_bar: %s\n", e.what());
    return 2;
  }
  return 0;
}
