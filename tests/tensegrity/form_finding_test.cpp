// Form-finding: equilibria of the document's two-layer tower and of the 3-prism from its topology.
#include <tendyn/tensegrity/form_finding.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <numbers>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;

TEST(FormFinding, TowerIsAnEquilibriumWithEveryCableTaut) {
  const auto f = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/tower_guess.yaml");
  EXPECT_GT(ts::max_node_residual(f.model, f.model.initial_state), 1.0) << "the guess is far from equilibrium";
  const auto r = ts::find_equilibrium(f.model);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.max_node_residual_N, 1e-8);
  EXPECT_EQ(r.slack_cables, 0);
  // the shipped equilibrium is the same shape (up to a rigid motion): same cable lengths
  auto d = ts::make_data(f.model);
  ts::forward_kinematics(f.model, r.state, d);
  ts::compute_element_forces(f.model, r.state, d);
  const auto shipped = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/tower.yaml");
  EXPECT_EQ(shipped.model.ncable(), 24);
  // symmetry: the three cables of each class have equal lengths
  for (int k = 0; k < 24; k += 3)
    if (k < 6 || k >= 12) {
      EXPECT_NEAR(d.cable_length_m[k], d.cable_length_m[k + 1], 1e-7) << k;
      EXPECT_NEAR(d.cable_length_m[k], d.cable_length_m[k + 2], 1e-7) << k;
    }
}

TEST(FormFinding, PrismFromTopologyHasThe30DegreeTwist) {
  // start untwisted (vertical rods): the topology alone decides the twist
  ts::PrismParams p;
  p.psi_rad = 0.0;
  p.pivot = 0.5;
  p.radius_m = 0.1;
  p.rest_length_m = 0.15;
  const auto m = ts::make_prism(p);
  const auto r = ts::find_equilibrium(m);
  ASSERT_TRUE(r.converged) << r.max_node_residual_N;
  EXPECT_EQ(r.slack_cables, 0);
  const auto P = tendyn::test::node_positions(m, r.state);
  Eigen::Vector3d ct = Eigen::Vector3d::Zero(), cb = Eigen::Vector3d::Zero();
  for (int k = 0; k < 3; ++k) {
    ct += P.row(k).transpose() / 3;
    cb += P.row(3 + k).transpose() / 3;
  }
  const Eigen::Vector3d axis = (ct - cb).normalized();
  for (int k = 0; k < 3; ++k) {
    Eigen::Vector3d a = P.row(3 + k).transpose() - cb, b = P.row(k).transpose() - ct;
    a -= a.dot(axis) * axis;
    b -= b.dot(axis) * axis;
    double span = std::atan2(axis.dot(a.cross(b)), a.dot(b)) * 180 / std::numbers::pi;
    if (span < 0) span += 360;
    EXPECT_NEAR(span, 150.0, 1e-6) << "rod " << k;  // top twisted 30 deg against the bottom
  }
}
