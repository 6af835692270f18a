// The worked example of docs/REAL_ROBOTS.md: the motorised 3-bar (a published robot's numbers)
// rolls under its gait table from the command line, with its winches in the loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::kModels;
using tendyn::test::run;
using tendyn::test::slurp;

/// results.csv as columns by header name.
std::map<std::string, std::vector<double>> read_columns(const fs::path& csv) {
  std::istringstream in(slurp(csv));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  {
    std::istringstream h(line);
    std::string cell;
    while (std::getline(h, cell, ',')) names.push_back(cell);
  }
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    std::istringstream r(line);
    std::string cell;
    for (std::size_t k = 0; k < names.size() && std::getline(r, cell, ','); ++k) cols[names[k]].push_back(std::stod(cell));
  }
  return cols;
}

/// The sets of end-caps on the ground (cap centre within `radius + 3 mm` of the floor), in the order
/// they occur, each counted once it has lasted `hold_s` (a brief touch while tipping is not a face).
std::vector<std::set<int>> faces(const std::map<std::string, std::vector<double>>& c, double radius_m, double hold_s) {
  const auto& t = c.at("t_s");
  std::vector<std::set<int>> seq;
  std::set<int> current;
  double since = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::set<int> s;
    for (int n = 1; n <= 6; ++n)
      if (c.at("n" + std::to_string(n) + ".z_m")[i] < radius_m + 0.003) s.insert(n);
    if (i == 0 || s != current) {
      current = s;
      since = t[i];
    }
    if (t[i] - since >= hold_s - 1e-9 && s.size() >= 3 && (seq.empty() || seq.back() != s)) seq.push_back(s);
  }
  return seq;
}

// models/three_bar_motorised_roll.yaml is models/three_bar_motorised.yaml with its six winches'
// targets from the gait table models/three_bar_motorised_roll.csv. Rolling: the robot stands on one
// triangle of end-caps and tips over edges onto others (at least two changes of the set of end-caps
// on the ground), and its centre of mass moves at least 0.3 m along the gait's direction (-y) in the
// 20 s run. The motors are in the loop: the rest lengths lag their targets and are never reeled in
// faster than the motor's no-load speed allows (spool radius x no-load speed / gear).
TEST(RealRobotCli, MotorisedThreeBarRollsOverItsEdgesUnderTheGaitTable) {
  const auto d = fresh_dir("motorised_roll");
  const auto r = run("simulate -q -o " + d.string() + " " + kModels + "three_bar_motorised_roll.yaml");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto c = read_columns(d / "results.csv");
  const auto& t = c.at("t_s");
  ASSERT_GT(t.size(), 100u);
  EXPECT_NEAR(t.back(), 20.0, 1e-9);

  const auto seq = faces(c, 0.0175, 0.2);
  ASSERT_FALSE(seq.empty());
  EXPECT_EQ(seq.front(), (std::set<int>{2, 4, 6}));  // standing on the bottom triangle
  EXPECT_GE(seq.size(), 3u) << "fewer than two face changes";

  const double dx = c.at("com_x_m").back() - c.at("com_x_m").front();
  const double dy = c.at("com_y_m").back() - c.at("com_y_m").front();
  EXPECT_GE(-dy, 0.3) << "dx " << dx << " dy " << dy;
  EXPECT_LT(c.at("com_z_m").back(), 0.10);  // lying on a side, not standing

  const double max_rate = 0.0035 * (450.0 * 2.0 * M_PI / 60.0 * 75.81) / 75.81;  // 0.165 m/s
  double max_lag = 0.0;
  double fastest_in = 0.0;
  for (int w = 1; w <= 6; ++w) {
    const auto& target = c.at("c" + std::to_string(w) + ".target_m");
    const auto& rest = c.at("c" + std::to_string(w) + ".rest_length_m");
    for (std::size_t i = 0; i < t.size(); ++i) max_lag = std::max(max_lag, std::abs(target[i] - rest[i]));
    for (std::size_t i = 1; i < t.size(); ++i) fastest_in = std::max(fastest_in, -(rest[i] - rest[i - 1]) / (t[i] - t[i - 1]));
  }
  EXPECT_GT(max_lag, 0.002);              // the motors lag their ramps by millimetres
  EXPECT_LT(max_lag, 0.02);               // ... but follow them
  EXPECT_GT(fastest_in, 0.5 * max_rate);  // they work near their speed limit
  EXPECT_LE(fastest_in, max_rate);
}

}  // namespace
