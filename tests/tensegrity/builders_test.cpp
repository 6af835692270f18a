// Analytic equilibrium oracles for the builders' structures, reached by damped simulation.
#include <tendyn/tensegrity/builders.hpp>

#include <numbers>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;
using tendyn::test::kDeg;

namespace {

ts::SimulationSummary settle(const ts::Model& m, double T) {
  ts::SimulationOptions o;
  o.duration_s = T;
  o.dt_s = 2e-3;
  o.output_interval_s = 1.0;
  return ts::simulate(m, o);
}

// Twist of each rod about the prism axis (angle from its bottom node to its top node, seen around
// the axis through the ring centroids), in degrees.
std::vector<double> rod_spans_deg(const ts::Model& m, const ts::State& s) {
  const auto P = tendyn::test::node_positions(m, s);
  const int n = m.nrod();
  Eigen::Vector3d ct = Eigen::Vector3d::Zero(), cb = Eigen::Vector3d::Zero();
  for (int k = 0; k < n; ++k) {
    ct += P.row(k).transpose() / n;
    cb += P.row(n + k).transpose() / n;
  }
  const Eigen::Vector3d axis = (ct - cb).normalized();
  std::vector<double> spans;
  for (int k = 0; k < n; ++k) {
    Eigen::Vector3d a = P.row(n + k).transpose() - cb, b = P.row(k).transpose() - ct;
    a -= a.dot(axis) * axis;
    b -= b.dot(axis) * axis;
    double ang = std::atan2(axis.dot(a.cross(b)), a.dot(b)) / kDeg;
    if (ang < 0) ang += 360.0;
    spans.push_back(ang);
  }
  return spans;
}

struct PrismCase {
  double k_ring, k_side, l0_ring, l0_side, psi_deg, radius;
  friend void PrintTo(const PrismCase& c, std::ostream* os) {
    *os << "k_ring " << c.k_ring << " k_side " << c.k_side << " l0_ring " << c.l0_ring << " l0_side " << c.l0_side
        << " psi " << c.psi_deg << " radius " << c.radius;
  }
};

}  // namespace

class PrismEquilibrium : public ::testing::TestWithParam<PrismCase> {};

TEST_P(PrismEquilibrium, SettlesToTwist150AndForceDensityRatioSqrt3) {
  const auto c = GetParam();
  ts::PrismParams p;
  p.stiffness_top_Npm = p.stiffness_bottom_Npm = c.k_ring;
  p.stiffness_side_Npm = c.k_side;
  p.rest_top_m = p.rest_bottom_m = c.l0_ring;
  p.rest_side_m = c.l0_side;
  p.psi_rad = c.psi_deg * kDeg;
  p.radius_m = c.radius;
  p.damping_Nspm = 2.0;
  p.damping_law = ts::DampingLaw::kRelativeVelocity;
  const auto m = ts::make_prism(p);
  const auto s = settle(m, 200.0);
  EXPECT_LT(s.final_energy.kinetic_J, 1e-20);
  for (double span : rod_spans_deg(m, s.final_state)) EXPECT_NEAR(span, 150.0, 0.1);
  const double q_ring = s.final_tension_N[0] / s.final_length_m[0];
  const double q_bottom = s.final_tension_N[1] / s.final_length_m[1];
  const double q_side = s.final_tension_N[2] / s.final_length_m[2];
  EXPECT_GT(q_ring, 0.0) << "the rings must be in tension";
  EXPECT_NEAR(q_side / q_ring, std::sqrt(3.0), 1e-6);
  EXPECT_NEAR(q_side / q_bottom, std::sqrt(3.0), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(StiffnessAndRestLengths, PrismEquilibrium,
                         ::testing::Values(PrismCase{10, 10, 0.2, 0.2, 50, 0.1},      // document 000
                                           PrismCase{100, 100, 0.1, 0.1, 60, 0.08},   // stiffer, shorter
                                           PrismCase{50, 20, 0.15, 0.12, 40, 0.12},   // classes differ
                                           PrismCase{300, 30, 0.18, 0.05, 70, 0.05}));

TEST(Builders, PrismTwistIs150EvenWithUnequalRings) {
  ts::PrismParams p;
  p.rest_top_m = 0.12;
  p.rest_bottom_m = 0.2;
  p.damping_Nspm = 2.0;
  p.damping_law = ts::DampingLaw::kRelativeVelocity;
  const auto m = ts::make_prism(p);
  const auto s = settle(m, 60.0);
  for (double span : rod_spans_deg(m, s.final_state)) EXPECT_NEAR(span, 150.0, 0.1);
}

TEST(Builders, DocumentPrismTopology) {
  // R = [[1,4],[2,6],[3,5]] with the document's node numbers 1..6 = t1 t2 t3 b1 b3 b2, and its
  // cable triples 0,3,6 top; 1,4,7 bottom; 2,5,8 side.
  const auto m = tendyn::test::doc000_prism();
  const std::vector<std::string> doc_node = {"t1", "t2", "t3", "b1", "b3", "b2"};
  auto doc = [&](int i) { return doc_node[static_cast<std::size_t>(i - 1)]; };
  const int R[3][2] = {{1, 4}, {2, 6}, {3, 5}};
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(m.node_ids[m.rods[j].node[1]], doc(R[j][0]));
    EXPECT_EQ(m.node_ids[m.rods[j].node[0]], doc(R[j][1]));
  }
  for (int k = 0; k < 9; ++k) {
    const std::string a = m.node_ids[m.cables[k].node[0]], b = m.node_ids[m.cables[k].node[1]];
    const std::string expected = k % 3 == 0 ? "tt" : k % 3 == 1 ? "bb" : "tb";
    EXPECT_EQ(std::string() + a[0] + b[0], expected) << m.cable_ids[k];
  }
  // each rod holds two cables of each triple
  for (int j = 0; j < 3; ++j)
    for (int triple = 0; triple < 3; ++triple) {
      int count = 0;
      for (int k = triple; k < 9; k += 3)
        for (int e = 0; e < 2; ++e) count += m.nodes[m.cables[k].node[e]].rod == j ? 1 : 0;
      EXPECT_EQ(count, 2) << "rod " << j << " triple " << triple;
    }
}

TEST(Builders, ExpandedOctahedronSettlesToSymmetricShape) {
  ts::OctahedronParams p;
  p.rod_length_m = 1.0;
  p.stiffness_Npm = 100.0;
  p.rest_length_m = 0.45;
  p.spacing_scale = 1.15;
  p.perturbation_m = 0.03;
  p.damping_Nspm = 3.0;
  p.damping_law = ts::DampingLaw::kRelativeVelocity;
  const auto m = ts::make_expanded_octahedron(p);
  ASSERT_EQ(m.ncable(), 24);
  const auto s = settle(m, 40.0);
  const double L = p.rod_length_m;
  for (int k = 0; k < 24; ++k) EXPECT_NEAR(s.final_length_m[k], std::sqrt(6.0) / 4.0 * L, 1e-7) << m.cable_ids[k];
  const auto P = tendyn::test::node_positions(m, s.final_state);
  for (int pair = 0; pair < 3; ++pair) {
    const auto& r0 = m.rods[2 * pair];
    const auto& r1 = m.rods[2 * pair + 1];
    const Eigen::Vector3d a0 = P.row(r0.node[0]).transpose(), a1 = P.row(r0.node[1]).transpose();
    const Eigen::Vector3d b0 = P.row(r1.node[0]).transpose(), b1 = P.row(r1.node[1]).transpose();
    const Eigen::Vector3d u = (a1 - a0).normalized(), v = (b1 - b0).normalized();
    EXPECT_NEAR(std::abs(u.dot(v)), 1.0, 1e-12) << "pair " << pair << " not parallel";
    Eigen::Vector3d gap = 0.5 * (b0 + b1) - 0.5 * (a0 + a1);
    EXPECT_NEAR(gap.norm(), L / 2, 1e-7) << "pair " << pair;
    EXPECT_NEAR(gap.dot(u), 0.0, 1e-7) << "midpoints side by side";
  }
}

TEST(Builders, ModelFromDocumentMatricesEqualsBuilder) {
  // Document 000's R and E (1-based) with S, Gamma, P built from c = 10 N/m, l0 = 0.2 m.
  const auto b = tendyn::test::doc000_prism(50.0, 0.0);
  const std::vector<std::string> doc_node = {"t1", "t2", "t3", "b1", "b3", "b2"};
  Eigen::MatrixX3d pos(6, 3);
  const auto Pb = tendyn::test::node_positions(b, b.initial_state);
  for (int i = 0; i < 6; ++i) {
    int bi = 0;
    while (b.node_ids[bi] != doc_node[i]) ++bi;
    pos.row(i) = Pb.row(bi);
  }
  Eigen::MatrixX2i R(3, 2), E(9, 2);
  R << 0, 3, 1, 5, 2, 4;
  E << 0, 1, 0, 2, 0, 5, 1, 2, 1, 4, 2, 3, 3, 4, 3, 5, 4, 5;
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(6, 6), G = S, P = S;
  for (int k = 0; k < 9; ++k) {
    S(E(k, 0), E(k, 1)) = S(E(k, 1), E(k, 0)) = 10.0;
    P(E(k, 0), E(k, 1)) = P(E(k, 1), E(k, 0)) = 0.2;
  }
  std::vector<ts::Rod> rods(3, ts::make_thin_rod(1.0, 0.3));
  // R lists (end 0, end 1) = (top, bottom) here, the reverse of the builder; motion is the same.
  const auto m = ts::model_from_matrices(R, S, G, P, pos, rods, E);
  EXPECT_EQ(m.ncable(), 9);
  const auto sa = tendyn::test::run(m, 1.0, 1e-3), sb = tendyn::test::run(b, 1.0, 1e-3);
  EXPECT_NEAR(sa.final_energy.total(), sb.final_energy.total(), 1e-9);
  EXPECT_NEAR(sa.final_energy.elastic_J, sb.final_energy.elastic_J, 1e-10);
  // E that disagrees with S is rejected
  Eigen::MatrixX2i bad = E;
  bad(0, 1) = 3;  // 1-4 is a rod, not a cable
  EXPECT_THROW(ts::model_from_matrices(R, S, G, P, pos, rods, bad), tendyn::Error);
  // a compression ("relaxation") element pushes
  Eigen::MatrixXd S2 = S, P2 = P;
  S2(0, 3) = S2(3, 0) = 1000.0;
  P2(0, 3) = P2(3, 0) = 0.35;
  const auto mr = ts::model_from_matrices(R, S2, G, P2, pos, rods, Eigen::MatrixX2i(0, 2), {{0, 3}});
  EXPECT_EQ(mr.ncable(), 10);
  int relax = 0;
  for (const auto& c : mr.cables) relax += c.tension_only ? 0 : 1;
  EXPECT_EQ(relax, 1);
}
