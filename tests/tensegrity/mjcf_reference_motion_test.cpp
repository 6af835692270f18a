// Cross-engine motion of the MJCF test robots: tendyn on the imported file against MuJoCo's
// trajectory of the same file (RK4, 0.1 ms, 2 s, no gravity, no contact, the keyframe's actuator
// commands held): every site within 1 mm.
// The references are the committed CSVs of tests/data/mjcf/, written by tests/peers/mjcf_reference
// (MuJoCo 2.2.2: *.mujoco.csv) and mjcf_reference_mujoco3 (MuJoCo 3.12.0: *.mujoco3.csv), so these
// tests need no MuJoCo. MuJoCo 3 refuses three_bar_global.xml (coordinate="global" is gone since
// 2.3.4): its 3.12 reference is that of three_bar_local.xml, the same robot in local coordinates.
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ts = tendyn::tensegrity;
using Eigen::Vector3d;

namespace {

const std::string kData = std::string(TENDYN_SOURCE_DIR) + "/tests/data/mjcf/";

/// A reference CSV: site names (from the .x_m columns) and rows t_s, x, y, z, x, y, z, ...
struct Reference {
  std::vector<std::string> sites;
  std::vector<std::vector<double>> rows;
};

Reference read_reference(const std::string& path) {
  Reference r;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path << ": missing (written by tests/peers/mjcf_reference*)";
  std::string line;
  if (!std::getline(in, line)) return r;
  std::stringstream head(line);
  std::string col;
  std::getline(head, col, ',');
  EXPECT_EQ(col, "t_s") << path;
  int ncol = 0;
  while (std::getline(head, col, ',')) {
    if (ncol++ % 3 != 0) continue;
    EXPECT_TRUE(col.size() > 4 && col.substr(col.size() - 4) == ".x_m") << path << ": column " << col;
    r.sites.push_back(col.substr(0, col.size() - 4));
  }
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<double> row;
    while (std::getline(ss, cell, ',')) row.push_back(std::stod(cell));
    EXPECT_EQ(row.size(), 1 + 3 * r.sites.size()) << path << ": row " << r.rows.size();
    r.rows.push_back(std::move(row));
  }
  return r;
}

/// Largest distance [m] of any site from the reference over the run: tendyn imports `xml`, steps
/// RK4 at 0.1 ms and is compared every 10 ms (100 steps) with the rows of `csv`.
double largest_site_distance(const std::string& xml, const std::string& csv) {
  const ts::ModelFile f = ts::load_mjcf_file(kData + xml);
  ts::Model model = f.model;
  model.gravity_W.setZero();
  model.ground.type = ts::Ground::Type::kNone;
  const Reference ref = read_reference(kData + csv);
  EXPECT_EQ(ref.rows.size(), 201u) << csv << ": 2 s every 10 ms";
  std::vector<int> node;
  for (const auto& site : ref.sites) {
    const auto it = std::find(model.node_ids.begin(), model.node_ids.end(), site);
    EXPECT_NE(it, model.node_ids.end()) << csv << ": site " << site << " has no node in " << xml;
    if (it == model.node_ids.end()) return 1e300;
    node.push_back(static_cast<int>(it - model.node_ids.begin()));
  }
  EXPECT_FALSE(node.empty()) << csv << ": no site column";
  ts::State s = model.initial_state;
  s.time_s = 0.0;
  auto d = ts::make_data(model);
  double worst = 0.0;
  for (std::size_t row = 0; row < ref.rows.size(); ++row) {
    if (row > 0)
      for (int k = 0; k < 100; ++k) ts::step_rk4(model, d, s, 1e-4);
    const Eigen::MatrixX3d P = ts::node_positions(model, s);
    for (std::size_t j = 0; j < node.size(); ++j) {
      const Vector3d r(ref.rows[row][1 + 3 * j], ref.rows[row][2 + 3 * j], ref.rows[row][3 + 3 * j]);
      worst = std::max(worst, (Vector3d(P.row(node[j]).transpose()) - r).norm());
    }
  }
  std::printf("%s against %s: largest site distance over 2 s: %.3g m\n", xml.c_str(), csv.c_str(), worst);
  return worst;
}

/// Largest distance [m] between the same site in two reference CSVs (same columns, same rows).
double reference_distance(const std::string& csv_a, const std::string& csv_b) {
  const Reference a = read_reference(kData + csv_a), b = read_reference(kData + csv_b);
  EXPECT_EQ(a.sites, b.sites);
  EXPECT_EQ(a.rows.size(), b.rows.size());
  if (a.sites != b.sites || a.rows.size() != b.rows.size() || a.rows.empty()) return 1e300;
  double worst = 0.0;
  for (std::size_t row = 0; row < a.rows.size(); ++row)
    for (std::size_t j = 0; j < a.sites.size(); ++j) {
      Vector3d d;
      for (int c = 0; c < 3; ++c) d[c] = a.rows[row][1 + 3 * j + c] - b.rows[row][1 + 3 * j + c];
      worst = std::max(worst, d.norm());
    }
  return worst;
}

}  // namespace

// Against MuJoCo 2.2.2 (Debian).
TEST(MjcfReferenceMotion, ThreeBarGlobalFollowsMujoco222) {
  EXPECT_LE(largest_site_distance("three_bar_global.xml", "three_bar_global.mujoco.csv"), 1e-3);
}
TEST(MjcfReferenceMotion, ThreeBarLocalFollowsMujoco222) {
  EXPECT_LE(largest_site_distance("three_bar_local.xml", "three_bar_local.mujoco.csv"), 1e-3);
}
TEST(MjcfReferenceMotion, SixBarFollowsMujoco222) { EXPECT_LE(largest_site_distance("six_bar.xml", "six_bar.mujoco.csv"), 1e-3); }
TEST(MjcfReferenceMotion, DefaultsIncludeFollowsMujoco222) {
  EXPECT_LE(largest_site_distance("defaults_include.xml", "defaults_include.mujoco.csv"), 1e-3);
}

// Tendon actuators of every supported kind (position, motor with a clamping ctrl range, general
// with an affine bias and a clamping force range, velocity, general with a filter and with an
// integrator), their commands and activations from the keyframe.
TEST(MjcfReferenceMotion, ActuatedThreeBarFollowsMujoco222) {
  const ts::Model m = ts::load_mjcf_file(kData + "three_bar_actuated.xml").model;
  ts::Data d = ts::make_data(m);
  ts::compute_derivative(m, m.initial_state, d);
  ASSERT_EQ(m.nactuator(), 6);
  ASSERT_EQ(m.nactivation(), 2);
  EXPECT_EQ(d.actuator_force_N[1], -1.0);  // the motor's ctrl -2.5 clamped to -1
  EXPECT_EQ(d.actuator_force_N[2], -4.0);  // the affine servo's force clamped to -4 N
  EXPECT_LE(largest_site_distance("three_bar_actuated.xml", "three_bar_actuated.mujoco.csv"), 1e-3);
}

// Against MuJoCo 3.12.0, for the files it loads.
TEST(MjcfReferenceMotion, ActuatedThreeBarFollowsMujoco312) {
  EXPECT_LE(largest_site_distance("three_bar_actuated.xml", "three_bar_actuated.mujoco3.csv"), 1e-3);
}
TEST(MjcfReferenceMotion, ThreeBarLocalFollowsMujoco312) {
  EXPECT_LE(largest_site_distance("three_bar_local.xml", "three_bar_local.mujoco3.csv"), 1e-3);
}
TEST(MjcfReferenceMotion, SixBarFollowsMujoco312) { EXPECT_LE(largest_site_distance("six_bar.xml", "six_bar.mujoco3.csv"), 1e-3); }
TEST(MjcfReferenceMotion, DefaultsIncludeFollowsMujoco312) {
  EXPECT_LE(largest_site_distance("defaults_include.xml", "defaults_include.mujoco3.csv"), 1e-3);
}

// MuJoCo 3 refuses three_bar_global.xml ("global coordinates no longer supported"), so it has no
// *.mujoco3.csv; tendyn's import of the global file follows 3.12 on its local twin.
TEST(MjcfReferenceMotion, ThreeBarGlobalFollowsMujoco312OnItsLocalTwin) {
  EXPECT_FALSE(std::filesystem::exists(kData + "three_bar_global.mujoco3.csv")) << "MuJoCo 3 cannot load the global file";
  EXPECT_LE(largest_site_distance("three_bar_global.xml", "three_bar_local.mujoco3.csv"), 1e-3);
}

// The two MuJoCo versions give the same trajectories: at the CSVs' 10 significant digits they are
// equal or one unit of the last digit apart (1e-10 m; unrounded, 2.5e-15 to 3.2e-13 m over 2 s).
// The global file and its local twin are the same robot in MuJoCo 2.2.2 too.
TEST(MjcfReferenceMotion, Mujoco222And312ReferencesAgree) {
  for (const char* stem : {"three_bar_local", "six_bar", "defaults_include", "three_bar_actuated"}) {
    const std::string s = stem;
    EXPECT_LE(reference_distance(s + ".mujoco.csv", s + ".mujoco3.csv"), 2e-10) << stem;
  }
  EXPECT_LE(reference_distance("three_bar_global.mujoco.csv", "three_bar_local.mujoco.csv"), 2e-10);
}
