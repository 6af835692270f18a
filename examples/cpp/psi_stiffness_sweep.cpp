// A psi x stiffness sweep of document 000's 3-prism (40 tilt angles x 25 stiffnesses): the C++
// twin of examples/python/psi_stiffness_sweep.py (same grid, same point order, same output lines).
//
//   build/examples/psi_stiffness_sweep [--points N] [--duration S] [--threads T]
//
// Each point simulates the prism (relative-velocity damping 5 N s/m, zero gravity, RK4 1 ms) and
// records whether it stays in the normal mode; the program prints, per stiffness, the longest run
// of normal tilt angles. Points run on T threads, written by index: same output for any T.
#include <tendyn/core/parallel.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

namespace ts = tendyn::tensegrity;

int main(int argc, char** argv) {
  int points = 0, threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double duration = 15.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--points")
      points = std::atoi(argv[i + 1]);
    else if (a == "--duration")
      duration = std::atof(argv[i + 1]);
    else if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--points N] [--duration S] [--threads T]\n", argv[0]);
      return 1;
    }
  }
  // the grid in the Python example's order: psi outer, stiffness inner
  std::vector<std::pair<double, double>> grid;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 25; ++j) grid.emplace_back(20.0 + 1.5 * i, 5.0 + 0.5 * j);
  if (points > 0 && points < static_cast<int>(grid.size())) grid.resize(static_cast<std::size_t>(points));
  const int n = static_cast<int>(grid.size());
  std::vector<char> normal(static_cast<std::size_t>(n), 0);
  // the library's pool: indices handed out in order, results written by index (core/parallel.hpp)
  tendyn::parallel_for(n, threads, [&](int i) {
    ts::PrismParams p;
    p.rod_mass_kg = 1.0;
    p.rod_length_m = 0.3;
    p.rest_length_m = 0.2;
    p.damping_Nspm = 5.0;
    p.damping_law = ts::DampingLaw::kRelativeVelocity;
    p.psi_rad = grid[static_cast<std::size_t>(i)].first * std::numbers::pi / 180.0;
    p.stiffness_Npm = grid[static_cast<std::size_t>(i)].second;
    ts::SimulationOptions o;
    o.duration_s = duration;
    o.dt_s = 1e-3;
    o.strain_limit = 1.0;
    normal[static_cast<std::size_t>(i)] = ts::simulate(ts::make_prism(p), o).monitor.normal_mode ? 1 : 0;
  });

  int count = 0;
  for (char c : normal) count += c;
  std::printf("%d points (%d in the normal mode)\n", n, count);
  std::map<double, std::vector<std::pair<double, bool>>> by_k;
  for (int i = 0; i < n; ++i)
    by_k[grid[static_cast<std::size_t>(i)].second].emplace_back(grid[static_cast<std::size_t>(i)].first,
                                                                normal[static_cast<std::size_t>(i)] != 0);
  for (auto& [k, rows] : by_k) {
    std::vector<double> best, run;
    rows.emplace_back(0.0, false);
    for (const auto& [psi, ok] : rows) {
      if (ok) {
        run.push_back(psi);
      } else {
        if (run.size() > best.size()) best = run;
        run.clear();
      }
    }
    if (best.empty())
      std::printf("  stiffness %5.1f N/m: normal-mode psi range none\n", k);
    else
      std::printf("  stiffness %5.1f N/m: normal-mode psi range [%.1f, %.1f] deg\n", k, best.front(), best.back());
  }
  return 0;
}
