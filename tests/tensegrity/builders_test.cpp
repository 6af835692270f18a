// Analytic equilibrium oracles for the builders' structures, reached by damped simulation.
#include <tendyn/tensegrity/builders.hpp>

#include <cmath>
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
    *os << "k_ring " << c.k_ring << " k_side " << c.k_side << " l0_ring " << c.l0_ring << " l0_side " << c.l0_side << " psi " << c.psi_deg
        << " radius " << c.radius;
  }
};

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
                         ::testing::Values(PrismCase{10, 10, 0.2, 0.2, 50, 0.1},     // document 000
                                           PrismCase{100, 100, 0.1, 0.1, 60, 0.08},  // stiffer, shorter
                                           PrismCase{50, 20, 0.15, 0.12, 40, 0.12},  // classes differ
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

// The authors' n-prism (vkurenkov/tensegrity, configurations/n_prism.py), rewritten here from their
// formulas and independently of the builder: scipy's Rotation.from_euler("xyz", [0, a, 0]) is R_y(a)
// (extrinsic), A * B applies B first; rod 0: R_y(-psi) * R_y(90 deg), rod i: R_z(360/n) * rod i-1;
// centre i: offset (cos(2 pi i/n + pi/n), sin(...), 0); EndPoint a: r + q [-L/2, 0, 0], b: + L/2.
struct AuthorsPrism {
  std::vector<Eigen::Vector3d> a, b;
};
AuthorsPrism authors_prism(int n, double psi_deg, double offset, double L) {
  const auto Ry = [](double deg) { return Eigen::AngleAxisd(deg * kDeg, Eigen::Vector3d::UnitY()).toRotationMatrix(); };
  const Eigen::Matrix3d Rz = Eigen::AngleAxisd(360.0 / n * kDeg, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  Eigen::Matrix3d rot = Ry(-psi_deg) * Ry(90.0);
  AuthorsPrism out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) rot = Rz * rot;
    const double ang = i * 2.0 * std::numbers::pi / n + std::numbers::pi / n;
    const Eigen::Vector3d r(offset * std::cos(ang), offset * std::sin(ang), 0.0);
    out.a.push_back(r + rot * Eigen::Vector3d(-L / 2, 0, 0));
    out.b.push_back(r + rot * Eigen::Vector3d(L / 2, 0, 0));
  }
  return out;
}

TEST(Builders, CentredLayoutIsTheAuthorsConstruction) {
  for (int n : {3, 4})
    for (double psi : {30.0, 55.0}) {
      SCOPED_TRACE("n " + std::to_string(n) + " psi " + std::to_string(psi));
      ts::PrismParams p;
      p.n = n;
      p.layout = ts::PrismLayout::kCentred;
      p.psi_rad = psi * kDeg;
      const auto m = ts::make_prism(p);  // radius: the layout's default L/8 (their Offset 0.3/8)
      EXPECT_DOUBLE_EQ(ts::prism_radius_m(p), 0.3 / 8.0);
      const auto ref = authors_prism(n, psi, 0.3 / 8.0, 0.3);
      const auto P = tendyn::test::node_positions(m, m.initial_state);
      // our t<k+1> is their rod k's end a, our b<k+1> their end b
      for (int k = 0; k < n; ++k) {
        EXPECT_LT((P.row(k).transpose() - ref.a[k]).norm(), 1e-12) << "t" << k + 1;
        EXPECT_LT((P.row(n + k).transpose() - ref.b[k]).norm(), 1e-12) << "b" << k + 1;
      }
      // their cables (top a_i - a_(i-1), bottom b_i - b_(i+1), side a_i - b_(i+1)) as node pairs are
      // ours, triple by triple (our cable k is in triple k % 3: top, bottom, side)
      const auto same_pair = [&](int cable, const Eigen::Vector3d& x, const Eigen::Vector3d& y) {
        const Eigen::Vector3d u = P.row(m.cables[cable].node[0]).transpose(), v = P.row(m.cables[cable].node[1]).transpose();
        return std::min((u - x).norm() + (v - y).norm(), (u - y).norm() + (v - x).norm()) < 1e-12;
      };
      for (int i = 0; i < n; ++i) {
        const int prev = (i + n - 1) % n, next = (i + 1) % n;
        const std::pair<Eigen::Vector3d, Eigen::Vector3d> theirs[3] = {
            {ref.a[i], ref.a[prev]}, {ref.b[i], ref.b[next]}, {ref.a[i], ref.b[next]}};
        for (int triple = 0; triple < 3; ++triple) {
          int found = 0;
          for (int k = triple; k < m.ncable(); k += 3) found += same_pair(k, theirs[triple].first, theirs[triple].second) ? 1 : 0;
          EXPECT_EQ(found, 1) << "their cable of rod " << i << ", triple " << triple;
        }
      }
      // their psi = 30 deg rod 0 axis (end a to end b) is (sin 30, 0, -cos 30) = (0.5, 0, -0.866)
      if (psi == 30.0) {
        EXPECT_LT(((ref.b[0] - ref.a[0]) / 0.3 - Eigen::Vector3d(0.5, 0, -std::sqrt(3.0) / 2)).norm(), 1e-15);
      }
    }
  // an explicit radius and height: centres on that circle, in that plane
  ts::PrismParams p;
  p.layout = ts::PrismLayout::kCentred;
  p.radius_m = 0.1;
  p.height_m = 0.25;
  p.psi_rad = 40 * kDeg;
  const auto m = ts::make_prism(p);
  const auto ref = authors_prism(3, 40.0, 0.1, 0.3);
  const auto P = tendyn::test::node_positions(m, m.initial_state);
  for (int k = 0; k < 3; ++k) {
    EXPECT_LT((P.row(k).transpose() - ref.a[k] - Eigen::Vector3d(0, 0, 0.25)).norm(), 1e-12);
    EXPECT_LT((P.row(3 + k).transpose() - ref.b[k] - Eigen::Vector3d(0, 0, 0.25)).norm(), 1e-12);
  }
}

TEST(Builders, PivotLayoutUnchanged) {
  // the default layout and radius are today's: pivot 0.7 on the circle of 0.12 m (formula of the
  // builder before the centred layout, written out here)
  ts::PrismParams p;
  EXPECT_EQ(p.layout, ts::PrismLayout::kPivot);
  EXPECT_EQ(ts::prism_radius_m(p), 0.12);
  for (int n : {3, 5}) {
    p.n = n;
    const auto m = ts::make_prism(p);
    ts::PrismParams q = p;
    q.radius_m = 0.12;
    const auto m2 = ts::make_prism(q);
    const auto P = tendyn::test::node_positions(m, m.initial_state);
    for (int k = 0; k < n; ++k) {
      const double th = std::numbers::pi / 2 + 2.0 * std::numbers::pi * k / n;
      const Eigen::Vector3d radial(std::cos(th), std::sin(th), 0.0), tangent(-std::sin(th), std::cos(th), 0.0);
      const Eigen::Vector3d d = std::cos(p.psi_rad) * Eigen::Vector3d::UnitZ() - std::sin(p.psi_rad) * tangent;
      EXPECT_LT((P.row(n + k).transpose() - (0.12 * radial - 0.7 * 0.3 * d)).norm(), 1e-12);
      EXPECT_LT((P.row(k).transpose() - (0.12 * radial + 0.3 * 0.3 * d)).norm(), 1e-12);
    }
    EXPECT_TRUE(m.initial_state.x == m2.initial_state.x);  // bit for bit the same as an explicit radius of 0.12 m
  }
}

TEST(Builders, PrismLayoutNames) {
  EXPECT_EQ(ts::prism_layout_from_string("pivot"), ts::PrismLayout::kPivot);
  EXPECT_EQ(ts::prism_layout_from_string("centred"), ts::PrismLayout::kCentred);
  EXPECT_STREQ(ts::to_string(ts::PrismLayout::kCentred), "centred");
  EXPECT_STREQ(ts::to_string(ts::PrismLayout::kPivot), "pivot");
  try {
    ts::prism_layout_from_string("centered");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "unknown prism layout 'centered' (valid: pivot, centred)");
  }
  ts::PrismParams p;
  p.radius_m = 0.0;
  EXPECT_THROW(ts::make_prism(p), tendyn::Error);
  p.radius_m = std::nan("");
  EXPECT_THROW(ts::make_prism(p), tendyn::Error);
  p.radius_m = -1.0;
  p.layout = ts::PrismLayout::kCentred;
  p.pivot = 2.0;  // not used by the centred layout
  EXPECT_NO_THROW(ts::make_prism(p));
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

}  // namespace
