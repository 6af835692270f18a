// Rods beyond the documents' ideal: points fixed anywhere on a rod's body, end-cap spheres touching
// the ground with their surface, rods with a full inertia tensor and an off-axis centre of mass.
// Oracles: the rigid-body velocity formula, the axisymmetric law written as a general tensor, the
// conservation of energy and angular momentum of a free asymmetric body, a sphere resting on a
// compliant ground, the YAML round trip.
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include "support/tensegrity_fixtures.hpp"

#include <random>

namespace ts = tendyn::tensegrity;

namespace {

// One hollow rod of 0.5 m between a0 (origin) and a1 (along a tilted direction), and a fixed
// anchor, as the documents would write it.
ts::Model one_rod(bool general) {
  ts::Model m;
  m.name = general ? "one-rod-general" : "one-rod";
  ts::Rod r = ts::make_hollow_rod(0.4, 0.5, 0.02, 0.015);
  r.com_ratio = 0.4;
  r.node[0] = 0;
  r.node[1] = 1;
  ts::Node n0, n1;
  n0.rod = n1.rod = 0;
  n0.end = 0;
  n1.end = 1;
  m.nodes = {n0, n1};
  m.node_ids = {"a0", "a1"};
  m.rods = {r};
  m.rod_ids = {"A"};
  m.f_W_ext_node.assign(2, Eigen::Vector3d::Zero());
  if (general) {  // the same rod, written as a general body: diag(It, It, Ia) and the ends' offsets
    m.rods[0].general_inertia = true;
    m.rods[0].inertia_B_kgm2 = Eigen::Vector3d(r.inertia_transverse_kgm2, r.inertia_transverse_kgm2, r.inertia_axial_kgm2).asDiagonal();
    m.nodes[0].p_B_m = Eigen::Vector3d(0, 0, -(1.0 - r.com_ratio) * r.length_m);
    m.nodes[1].p_B_m = Eigen::Vector3d(0, 0, r.com_ratio * r.length_m);
  }
  Eigen::MatrixX3d P(2, 3);
  P.row(0) << 0.1, -0.2, 0.3;
  P.row(1) = P.row(0) + 0.5 * Eigen::RowVector3d(0.48, 0.6, 0.64).normalized();
  m.initial_state = ts::state_from_node_positions(m, P);
  m.initial_state.v_WC(0) = Eigen::Vector3d(0.3, -0.1, 0.2);
  m.initial_state.w_W(0) = Eigen::Vector3d(1.5, -2.0, 0.7);
  return m;
}

ts::Node body_point(int rod, const Eigen::Vector3d& p_B) {
  ts::Node n;
  n.rod = rod;
  n.end = ts::Node::kBodyPoint;
  n.p_B_m = p_B;
  return n;
}

ts::State run_steps(const ts::Model& m, int steps, double h) {
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::compute_derivative(m, s, d);
  ts::StepOptions o;
  for (int k = 0; k < steps; ++k) ts::step(m, d, s, h, o);
  return s;
}

}  // namespace

TEST(BodyGeometry, OffAxisPointMovesAsARigidBodyPoint) {
  ts::Model m = one_rod(true);
  m.nodes.push_back(body_point(0, Eigen::Vector3d(0.03, -0.02, 0.11)));
  m.node_ids.push_back("s");
  m.f_W_ext_node.emplace_back(Eigen::Vector3d::Zero());
  ts::validate(m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    ts::State s = m.initial_state;
    Eigen::Quaterniond q(u(rng), u(rng), u(rng), u(rng));
    q.normalize();
    s.set_q_WB(0, q);
    s.p_WC(0) = Eigen::Vector3d(u(rng), u(rng), u(rng));
    s.v_WC(0) = Eigen::Vector3d(u(rng), u(rng), u(rng));
    s.w_W(0) = 5.0 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    ts::Data d = ts::make_data(m);
    ts::forward_kinematics(m, s, d);
    const Eigen::Vector3d r = q * m.nodes[2].p_B_m;
    const Eigen::Vector3d p = s.p_WC(0) + r, v = s.v_WC(0) + s.w_W(0).cross(r);
    EXPECT_LT((d.p_W_node.col(2) - p).norm(), 1e-15);
    EXPECT_LT((d.v_W_node.col(2) - v).norm(), 1e-14);
  }
}

TEST(BodyGeometry, GeneralTensorReproducesTheAxisymmetricRod) {
  // one formulation against the other: the documents' rod law (closed-form I^-1) and Euler's
  // equations with the same inertia as a full tensor, under a cable to an anchor and gravity
  auto add_cable = [](ts::Model& m) {
    ts::Node anchor;
    anchor.p_W_anchor = Eigen::Vector3d(0.5, 0.5, 1.2);
    m.nodes.push_back(anchor);
    m.node_ids.push_back("hook");
    m.f_W_ext_node.emplace_back(Eigen::Vector3d::Zero());
    ts::Cable c;
    c.node[0] = 1;
    c.node[1] = 2;
    c.stiffness_Npm = 80.0;
    c.damping_Nspm = 0.3;
    c.rest_length_m = 0.4;
    c.tension_only = false;  // a spring: no slack events whose step splits would differ in the last bits
    m.cables = {c};
    m.cable_ids = {"c"};
    m.gravity_W = Eigen::Vector3d(0, 0, -9.81);
  };
  ts::Model a = one_rod(false), b = one_rod(true);
  add_cable(a);
  add_cable(b);
  ts::validate(a);
  ts::validate(b);
  // the right-hand sides at random states agree to round-off
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ts::Data da = ts::make_data(a), db = ts::make_data(b);
  for (int trial = 0; trial < 50; ++trial) {
    ts::State s = a.initial_state;
    Eigen::Quaterniond q(u(rng), u(rng), u(rng), u(rng));
    s.set_q_WB(0, q.normalized());
    s.p_WC(0) = 0.3 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    s.v_WC(0) = Eigen::Vector3d(u(rng), u(rng), u(rng));
    s.w_W(0) = 10.0 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    ts::compute_derivative(a, s, da);
    ts::compute_derivative(b, s, db);
    EXPECT_LT((da.xdot - db.xdot).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + da.xdot.cwiseAbs().maxCoeff())) << trial;
  }
  // and a short run stays together. Not to round-off: inside an RK4 step the quaternion leaves unit
  // length by ~(h |w|)^2, which the documents' kernel (axis of the unit-quaternion formula) and the
  // general path (a true rotation of q / |q|) absorb differently, an O(h^3) local difference.
  const ts::State sa = run_steps(a, 300, 1e-3), sb = run_steps(b, 300, 1e-3);
  EXPECT_LT((sa.x - sb.x).cwiseAbs().maxCoeff(), 1e-7) << (sa.x - sb.x).transpose();
  EXPECT_GT((sa.x - a.initial_state.x).cwiseAbs().maxCoeff(), 0.05);  // it did move
}

TEST(BodyGeometry, FreeAsymmetricBodyConservesEnergyAndAngularMomentum) {
  // intermediate-axis rotation (the tennis-racket flip): a hard test of Euler's equations
  ts::Model m = one_rod(true);
  m.rods[0].inertia_B_kgm2 << 0.008, 0.0005, 0.0, 0.0005, 0.006, 0.0003, 0.0, 0.0003, 0.003;
  m.initial_state.w_W(0) = m.initial_state.q_WB(0) * Eigen::Vector3d(0.3, 8.0, 0.3);
  ts::validate(m);
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::compute_derivative(m, s, d);
  const double E0 = ts::compute_energy(m, s, d).total();
  const Eigen::Vector3d L0 = ts::angular_momentum(m, s);
  double min_spin = 1e9;
  for (int k = 0; k < 10000; ++k) {
    ts::step(m, d, s, 2e-4, ts::StepOptions{});
    min_spin = std::min(min_spin, (s.q_WB(0).conjugate() * s.w_W(0)).y());
  }
  ts::compute_derivative(m, s, d);
  EXPECT_NEAR(ts::compute_energy(m, s, d).total(), E0, 1e-8 * std::abs(E0));
  EXPECT_LT((ts::angular_momentum(m, s) - L0).norm(), 1e-8 * L0.norm());
  EXPECT_LT(min_spin, 0.0);  // the body flipped: the spin about the middle axis reversed
}

TEST(BodyGeometry, OffAxisCableGivesTheLeverTorque) {
  ts::Model m = one_rod(true);
  m.nodes.push_back(body_point(0, Eigen::Vector3d(0.04, 0.0, 0.1)));
  m.node_ids.push_back("s");
  ts::Node anchor;
  anchor.p_W_anchor = Eigen::Vector3d(1, 1, 1);
  m.nodes.push_back(anchor);
  m.node_ids.push_back("hook");
  m.f_W_ext_node.assign(4, Eigen::Vector3d::Zero());
  ts::Cable c;
  c.node[0] = 2;
  c.node[1] = 3;
  c.stiffness_Npm = 100.0;
  c.rest_length_m = 0.5;
  m.cables = {c};
  m.cable_ids = {"c"};
  ts::validate(m);
  ts::Data d = ts::make_data(m);
  ts::compute_derivative(m, m.initial_state, d);
  const Eigen::Vector3d r = m.initial_state.q_WB(0) * m.nodes[2].p_B_m;
  const Eigen::Vector3d p = m.initial_state.p_WC(0) + r;
  const Eigen::Vector3d dir = (anchor.p_W_anchor - p).normalized();
  const double T = 100.0 * ((anchor.p_W_anchor - p).norm() - 0.5);
  ASSERT_GT(T, 1.0);
  EXPECT_LT((d.f_W_rod.col(0) - T * dir).norm(), 1e-12);
  EXPECT_LT((d.tau_W_rod.col(0) - r.cross(T * dir)).norm(), 1e-12);
}

TEST(BodyGeometry, EndCapRestsOnTheGroundAtItsRadius) {
  // a horizontal rod with sphere end-caps of radius 3 cm on a compliant ground settles with its
  // end nodes at r - (m g / 2) / k (each cap carries half the weight)
  ts::Model m = one_rod(false);
  m.rods[0].com_ratio = 0.5;
  Eigen::MatrixX3d P(2, 3);
  P.row(0) << 0, 0, 0.05;
  P.row(1) << 0.5, 0, 0.05;
  m.initial_state = ts::state_from_node_positions(m, P);
  for (auto& n : m.nodes) n.radius_m = 0.03;
  m.gravity_W = Eigen::Vector3d(0, 0, -9.81);
  m.ground.type = ts::Ground::Type::kCompliant;
  m.ground.stiffness_Npm = 2e4;
  m.ground.damping_Nspm = 40.0;
  ts::validate(m);
  const ts::State s = run_steps(m, 3000, 5e-4);
  const Eigen::MatrixX3d p = ts::node_positions(m, s);
  const double expected = 0.03 - 0.5 * 0.4 * 9.81 / 2e4;
  EXPECT_NEAR(p(0, 2), expected, 1e-7);
  EXPECT_NEAR(p(1, 2), expected, 1e-7);
  // the same rod without end-caps rests on its end points
  for (auto& n : m.nodes) n.radius_m = 0.0;
  const Eigen::MatrixX3d p0 = ts::node_positions(m, run_steps(m, 3000, 5e-4));
  EXPECT_NEAR(p0(0, 2), expected - 0.03, 1e-7);
}

TEST(BodyGeometry, RollingEndCapSlipsAtItsContactPointNotAtItsCentre) {
  // a sphere end-cap spinning about x on the ground, centre at rest: the contact point slips at
  // w r, so friction pushes the centre along +y (a rolling start), and the lever torque opposes w
  ts::Model m = one_rod(false);
  Eigen::MatrixX3d P(2, 3);
  P.row(0) << 0, 0, 0.0299;
  P.row(1) << 0, 0, 0.5299;  // vertical rod on its end-cap
  m.initial_state = ts::state_from_node_positions(m, P);
  m.nodes[0].radius_m = 0.03;
  m.initial_state.w_W(0) = Eigen::Vector3d(10.0, 0, 0);
  m.ground.type = ts::Ground::Type::kCompliant;
  m.ground.stiffness_Npm = 1e4;
  m.ground.damping_Nspm = 0.0;
  m.ground.friction = 0.8;
  ts::validate(m);
  ts::Data d = ts::make_data(m);
  ts::compute_derivative(m, m.initial_state, d);
  // contact point velocity: v_node + w x (0, 0, -r); v_node = w x (p_node - p_C)
  const Eigen::Vector3d w = m.initial_state.w_W(0);
  const Eigen::Vector3d v_node = w.cross(P.row(0).transpose() - m.initial_state.p_WC(0));
  const Eigen::Vector3d v_c = v_node + w.cross(Eigen::Vector3d(0, 0, -0.03));
  const double Fn = 1e4 * 1e-4;
  const double den = std::sqrt(v_c.head<2>().squaredNorm() + 1e-6);
  const Eigen::Vector3d f(-0.8 * Fn * v_c.x() / den, -0.8 * Fn * v_c.y() / den, Fn);
  EXPECT_LT((d.f_W_node.col(0) - f).norm(), 1e-12);
  // the torque about C: from the node's lever plus the sphere's (0, 0, -r) x f
  const Eigen::Vector3d r_node = P.row(0).transpose() - m.initial_state.p_WC(0);
  const Eigen::Vector3d tau = r_node.cross(f) + Eigen::Vector3d(0, 0, -0.03).cross(f);
  EXPECT_LT((d.tau_W_rod.col(0) - tau).norm(), 1e-12);
}

TEST(BodyGeometry, ImpulseGroundTakesEndCapsBodyPointsAndGeneralInertia) {
  // (their impacts: tests/tensegrity/contact_test.cpp, ContactEndCaps)
  ts::Model m = one_rod(true);
  m.nodes[0].radius_m = 0.02;
  ts::Node cap = body_point(0, Eigen::Vector3d(0.02, 0.01, 0.1));
  cap.contact = true;
  cap.radius_m = 0.01;
  m.nodes.push_back(cap);
  m.node_ids.push_back("cap");
  m.f_W_ext_node.emplace_back(Eigen::Vector3d::Zero());
  m.ground.type = ts::Ground::Type::kImpulse;
  EXPECT_NO_THROW(ts::validate(m));
}

TEST(BodyGeometry, YamlBodyPointsEndCapsAndInertiaRoundTrip) {
  const std::string yaml = R"(
name: caps
gravity: [0, 0, -9.81]
nodes:
  - {id: a0, position: [0, 0, 0.05], radius: 0.03}
  - {id: a1, position: [0.6, 0, 0.05], radius: 0.03}
  - {id: s0, on: A, position: [0.02, 0.025, 0.06]}
  - {id: s1, on: A, offset: [0, -0.025, 0.55], contact: true, radius: 0.01}
  - {id: hook, position: [0.3, 0.2, 1.0], fixed: true}
rods:
  - id: A
    mass: 0.7
    length: 0.6
    nodes: [a0, a1]
    inertia: {com: [0.33, 0.004, 0.052], tensor: [[0.0004, 0, 0], [0, 0.021, 0.0001], [0, 0.0001, 0.021]]}
cables:
  - {id: c, nodes: [s0, hook], stiffness: 50, rest_length: 0.8}
ground: {type: compliant}
)";
  const auto f = ts::load_model_string(yaml, "caps.yaml");
  const ts::Model& m = f.model;
  ASSERT_EQ(m.nnode(), 5);
  EXPECT_TRUE(m.rods[0].general_inertia);
  EXPECT_TRUE(m.nodes[2].is_body_point());
  EXPECT_TRUE(m.nodes[3].contact);
  EXPECT_DOUBLE_EQ(m.nodes[0].radius_m, 0.03);
  EXPECT_LT((m.initial_state.p_WC(0) - Eigen::Vector3d(0.33, 0.004, 0.052)).norm(), 1e-15);
  const Eigen::MatrixX3d p = ts::node_positions(m, m.initial_state);
  EXPECT_LT((p.row(2) - Eigen::RowVector3d(0.02, 0.025, 0.06)).norm(), 1e-14);
  EXPECT_LT((p.row(3) - Eigen::RowVector3d(0.55, -0.025, 0.05)).norm(), 1e-14);  // offset from end 0, rod frame = world here
  const Eigen::Matrix3d R = m.initial_state.q_WB(0).toRotationMatrix();
  Eigen::Matrix3d I_W;
  I_W << 0.0004, 0, 0, 0, 0.021, 0.0001, 0, 0.0001, 0.021;
  EXPECT_LT((R * m.rods[0].inertia_B_kgm2 * R.transpose() - I_W).norm(), 1e-15);
  // round trip through the writer
  const auto g = ts::load_model_string(ts::to_yaml(m), "again.yaml");
  EXPECT_LT((g.model.initial_state.x - m.initial_state.x).cwiseAbs().maxCoeff(), 1e-12);
  for (int i = 0; i < m.nnode(); ++i) {
    EXPECT_LT((g.model.nodes[static_cast<std::size_t>(i)].p_B_m - m.nodes[static_cast<std::size_t>(i)].p_B_m).norm(), 1e-12) << i;
    EXPECT_EQ(g.model.nodes[static_cast<std::size_t>(i)].radius_m, m.nodes[static_cast<std::size_t>(i)].radius_m);
  }
  EXPECT_LT((g.model.rods[0].inertia_B_kgm2 - m.rods[0].inertia_B_kgm2).norm(), 1e-15);
}

TEST(BodyGeometry, YamlErrorsNameThePlace) {
  const auto err = [](const std::string& y) {
    try {
      ts::load_model_string(y, "bad.yaml");
    } catch (const tendyn::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "nodes:\n  - {id: a0, position: [0, 0, 0]}\n  - {id: a1, position: [1, 0, 0]}\n";
  const std::string rod = "rods:\n  - {id: A, mass: 1, length: 1, nodes: [a0, a1]}\n";
  EXPECT_NE(err(head + "  - {id: s, on: B, position: [0, 0, 0]}\n" + rod).find("bad.yaml:4"), std::string::npos);
  EXPECT_NE(err(head + "  - {id: s, on: A}\n" + rod).find("exactly one of 'position'"), std::string::npos);
  EXPECT_NE(err(head + "  - {id: s, offset: [0, 0, 0], position: [0, 0, 0]}\n" + rod).find("needs 'on: ROD'"), std::string::npos);
  EXPECT_NE(err("nodes:\n  - {id: a0, position: [0, 0, 0], radius: -1}\n  - {id: a1, position: [1, 0, 0]}\n" + rod).find("must be >= 0"),
            std::string::npos);
  EXPECT_NE(
      err(head +
          "rods:\n  - {id: A, mass: 1, length: 1, nodes: [a0, a1], inertia: {com: [0.5, 0, 0], tensor: [[1, 0, 0], [0, 1, 0], [0, 0, 3]]}}\n")
          .find("triangle inequality"),
      std::string::npos);
}
