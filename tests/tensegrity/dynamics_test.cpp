// Physics checks of the Newton-Euler dynamics: conservation laws, analytic motions, and forces
// against finite differences of the potential energy.
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;
using tendyn::test::doc000_prism;
using tendyn::test::run;

namespace {

// Total potential energy of a model at a state (elastic + gravity + external).
double potential(const ts::Model& m, const ts::State& s) {
  auto d = ts::make_data(m);
  ts::compute_derivative(m, s, d);
  const auto e = ts::compute_energy(m, s, d);
  return e.elastic_J + e.gravitational_J + e.external_J;
}

ts::Model spinning_hollow_prism() {
  ts::PrismParams p;
  p.rod_radius_outer_m = 0.01;
  p.rod_radius_inner_m = 0.005;
  auto m = ts::make_prism(p);
  m.gravity_W.setZero();
  // give every rod a different velocity, tumbling rate and axial spin
  for (int j = 0; j < m.nrod(); ++j) {
    m.initial_state.v_WC(j) = Eigen::Vector3d(0.1 * j, -0.05, 0.02 * (j - 1));
    const Eigen::Vector3d e = m.initial_state.q_WB(j) * Eigen::Vector3d::UnitZ();
    m.initial_state.w_W(j) = Eigen::Vector3d(0.3, -0.2 * j, 0.1) + 5.0 * e;
  }
  return m;
}

}  // namespace

TEST(Dynamics, EnergyConservedWithoutDampingRk4) {
  // 3-prism, zero gravity, no damping: RK4 at dt = 1e-3 s keeps the total energy within 1e-6
  // relative over 10 s. Cables go slack and taut in this run; steps are split at those events
  // (SimulationOptions::locate_slack_events). Without the splitting the kinks of the force law
  // cost RK4 its order: drift 6.6e-6 at 1e-3 s, 1.2e-6 at 2.5e-4 s (see next test).
  const auto m = doc000_prism(50.0, 0.0);
  const auto s = run(m, 10.0, 1e-3);
  EXPECT_GT(s.split_steps, 10);
  EXPECT_LT(s.monitor.min_strain.minCoeff(), 0.0) << "the run should include slack phases";
  const double E0 = s.initial_energy.total();
  EXPECT_LT(s.max_abs_energy_drift_J / E0, 1e-6) << "E0 = " << E0;
}

TEST(Dynamics, SlackEventLocationRestoresAccuracy) {
  const auto m = doc000_prism(50.0, 0.0);
  tendyn::tensegrity::SimulationOptions o;
  o.duration_s = 10.0;
  o.dt_s = 1e-3;
  o.locate_slack_events = false;
  const auto plain = tendyn::tensegrity::simulate(m, o);
  o.locate_slack_events = true;
  const auto split = tendyn::tensegrity::simulate(m, o);
  EXPECT_GT(plain.max_abs_energy_drift_J, 100.0 * split.max_abs_energy_drift_J);
}

TEST(Dynamics, EnergyConservedForSpinningHollowRods) {
  const auto m = spinning_hollow_prism();
  const auto s = run(m, 5.0, 5e-4);
  EXPECT_LT(s.max_abs_energy_drift_J / s.initial_energy.total(), 1e-6);
}

TEST(Dynamics, MomentaConservedAndCentreOfMassDrifts) {
  const auto m = spinning_hollow_prism();
  const auto s = run(m, 5.0, 5e-4);
  EXPECT_LT((s.linear_momentum_final_kgmps - s.linear_momentum_initial_kgmps).norm(), 1e-10);
  EXPECT_LT((s.angular_momentum_final_kgm2ps - s.angular_momentum_initial_kgm2ps).norm(), 1e-8 * s.angular_momentum_initial_kgm2ps.norm());
  // COM moves uniformly: p(t) = p0 + P t / M
  const Eigen::Vector3d expected = s.com_initial_m + 5.0 * s.linear_momentum_initial_kgmps / m.total_mass();
  EXPECT_LT((s.com_final_m - expected).norm(), 1e-10);
}

TEST(Dynamics, CentreOfMassStillInDocumentExperiment) {
  // Document 000's own check: zero gravity, at rest, the centre of mass does not move.
  const auto m = doc000_prism(40.0, 0.5);
  const auto s = run(m, 5.0, 1e-3);
  EXPECT_LT(s.max_com_displacement_m, 1e-12);
  EXPECT_LT(s.angular_momentum_final_kgm2ps.norm(), 1e-12);
}

TEST(Dynamics, ElasticForcesAreMinusGradientOfPotential) {
  // Generalised force on each rod's translation equals -dU/dp_C (central differences); torque
  // equals -dU/dphi for a small world-frame rotation phi about the COM.
  auto m = doc000_prism(55.0, 0.0);
  m.gravity_W = Eigen::Vector3d(0.3, -0.2, -9.81);
  m.f_W_ext_node[0] = Eigen::Vector3d(0.5, 0.1, -0.2);
  auto d = ts::make_data(m);
  const ts::State s0 = m.initial_state;
  ts::compute_derivative(m, s0, d);
  const double h = 1e-6;
  for (int j = 0; j < m.nrod(); ++j) {
    for (int c = 0; c < 3; ++c) {
      ts::State sp = s0, sm = s0;
      sp.p_WC(j)[c] += h;
      sm.p_WC(j)[c] -= h;
      const double fd = -(potential(m, sp) - potential(m, sm)) / (2 * h);
      EXPECT_NEAR(d.f_W_rod(c, j), fd, 1e-6) << "rod " << j << " axis " << c;
      Eigen::Vector3d phi = Eigen::Vector3d::Zero();
      phi[c] = h;
      sp = s0;
      sm = s0;
      sp.set_q_WB(j, tendyn::quat_exp(phi) * s0.q_WB(j));
      sm.set_q_WB(j, tendyn::quat_exp(-phi) * s0.q_WB(j));
      const double fd_tau = -(potential(m, sp) - potential(m, sm)) / (2 * h);
      EXPECT_NEAR(d.tau_W_rod(c, j), fd_tau, 1e-6) << "rod " << j << " axis " << c;
    }
  }
}

TEST(Dynamics, FreeFallIsExactParabola) {
  // One rod, no cables, gravity and an initial velocity: p(t) = p0 + v0 t + g t^2 / 2 exactly
  // (RK4 integrates quadratics exactly), and the rod's tumbling is a uniform rotation.
  ts::Model m;
  auto rod = ts::make_thin_rod(0.3, 0.311);
  rod.node[0] = 0;
  rod.node[1] = 1;
  m.rods = {rod};
  m.nodes = {ts::Node{0, 0, Eigen::Vector3d::Zero()}, ts::Node{0, 1, Eigen::Vector3d::Zero()}};
  m.rod_ids = {"r"};
  m.node_ids = {"a", "b"};
  m.gravity_W = Eigen::Vector3d(0, 0, -9.81);
  Eigen::MatrixX3d P(2, 3);
  P << 0, 0, 0, 0.311 * std::sin(0.7), 0, 0.311 * std::cos(0.7);
  m.initial_state = ts::state_from_node_positions(m, P);
  const Eigen::Vector3d v0(0.4, -0.3, 2.0), w0(0.0, 3.0, 0.0);  // w0 perpendicular to the rod axis (in xz plane)
  m.initial_state.v_WC(0) = v0;
  m.initial_state.w_W(0) = w0;
  ts::validate(m);
  const double T = 1.3;
  const auto s = run(m, T, 1e-3);
  const Eigen::Vector3d p_expected = m.initial_state.p_WC(0) + v0 * T + 0.5 * m.gravity_W * T * T;
  EXPECT_LT((s.final_state.p_WC(0) - p_expected).norm(), 1e-12);
  const Eigen::Quaterniond q_expected = tendyn::quat_exp(w0 * T) * m.initial_state.q_WB(0);
  EXPECT_LT(tendyn::rotation_angle_between(s.final_state.q_WB(0), q_expected), 1e-9);
}

TEST(Dynamics, ThinRodIsLimitOfHollowRod) {
  // A hollow rod with tiny radii must behave like the thin rod (no singular solve in the latter).
  ts::PrismParams p;
  p.psi_rad = 45 * tendyn::test::kDeg;
  const auto thin = ts::make_prism(p);
  p.rod_radius_outer_m = 1e-5;
  const auto hollow = ts::make_prism(p);
  const auto a = run(thin, 2.0, 1e-3), b = run(hollow, 2.0, 1e-3);
  const auto pa = tendyn::test::node_positions(thin, a.final_state), pb = tendyn::test::node_positions(hollow, b.final_state);
  EXPECT_LT((pa - pb).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Dynamics, TensionOnlyCablesNeverPush) {
  tendyn::tensegrity::PrismParams p;
  p.rest_top_m = 0.3;  // longer than the top ring: slack at the start
  p.damping_Nspm = 0.5;
  const auto m = tendyn::tensegrity::make_prism(p);
  ts::Recorder rec;
  run(m, 3.0, 1e-3, ts::Integrator::kRK4, &rec);
  bool saw_slack = false;
  for (std::size_t i = 0; i < rec.time_s.size(); ++i)
    for (int k = 0; k < m.ncable(); ++k) {
      EXPECT_GE(rec.tension_N[i][k], 0.0);
      if (rec.strain[i][k] < 0) {
        EXPECT_EQ(rec.tension_N[i][k], 0.0);
        saw_slack = true;
      }
    }
  EXPECT_TRUE(saw_slack);
}

TEST(Dynamics, CompressionElementPushes) {
  // Two anchors and one rod end joined by a spring that pushes: compressed, it pushes the node away.
  ts::Model m;
  auto rod = ts::make_thin_rod(1.0, 1.0);
  rod.node[0] = 0;
  rod.node[1] = 1;
  m.rods = {rod};
  m.nodes = {ts::Node{0, 0, Eigen::Vector3d::Zero()}, ts::Node{0, 1, Eigen::Vector3d::Zero()},
             ts::Node{-1, 0, Eigen::Vector3d(0, 0, -0.5)}};
  m.rod_ids = {"r"};
  m.node_ids = {"a", "b", "anchor"};
  ts::Cable c;
  c.node[0] = 2;
  c.node[1] = 0;
  c.stiffness_Npm = 100;
  c.rest_length_m = 1.0;  // current length 0.5: compressed by 0.5 m
  c.tension_only = false;
  m.cables = {c};
  m.cable_ids = {"spring"};
  Eigen::MatrixX3d P(3, 3);
  P << 0, 0, 0, 0, 0, 1, 0, 0, -0.5;
  m.initial_state = ts::state_from_node_positions(m, P);
  ts::validate(m);
  auto d = ts::make_data(m);
  ts::compute_derivative(m, m.initial_state, d);
  EXPECT_NEAR(d.cable_tension_N[0], -50.0, 1e-12);
  EXPECT_NEAR(d.f_W_rod(2, 0), 50.0, 1e-12);  // pushes the rod up
  c.tension_only = true;
  m.cables = {c};
  ts::compute_derivative(m, m.initial_state, d);
  EXPECT_EQ(d.f_W_rod(2, 0), 0.0);
}

namespace {
// A rod moving at 1 m/s towards a world anchor, tied to it by a taut tension-only cable
// (k = 10 N/m, gamma = 5 N s/m, stretch 0.05 m): k s = 0.5 N, damping -5 N along the cable.
ts::Model closing_cable(ts::DampingLaw law, ts::CableForceSign sign) {
  ts::Model m;
  auto rod = ts::make_thin_rod(1.0, 0.3);
  rod.node[0] = 1;
  rod.node[1] = 2;
  m.rods = {rod};
  m.nodes = {ts::Node{-1, 0, Eigen::Vector3d::Zero()}, ts::Node{0, 0, Eigen::Vector3d::Zero()}, ts::Node{0, 1, Eigen::Vector3d::Zero()}};
  m.rod_ids = {"r"};
  m.node_ids = {"o", "a", "b"};
  ts::Cable c;
  c.node[0] = 0;
  c.node[1] = 1;
  c.stiffness_Npm = 10.0;
  c.damping_Nspm = 5.0;
  c.rest_length_m = 0.2;
  m.cables = {c};
  m.cable_ids = {"c"};
  m.f_W_ext_node.assign(3, Eigen::Vector3d::Zero());
  m.damping_law = law;
  m.cable_force_sign = sign;
  Eigen::MatrixX3d P(3, 3);
  P << 0, 0, 0, 0.25, 0, 0, 0.55, 0, 0;
  m.initial_state = ts::state_from_node_positions(m, P);
  m.initial_state.v_WC(0) = Eigen::Vector3d(-1.0, 0, 0);
  ts::validate(m);
  return m;
}
}  // namespace

TEST(Dynamics, CableForceSignUnderFastClosingMotion) {
  for (auto law : {ts::DampingLaw::kRelativeVelocity, ts::DampingLaw::kAxial}) {
    SCOPED_TRACE(ts::to_string(law));
    // paper law: k s + gamma (v_b - v_a) . u = 0.5 - 5 = -4.5 N, the cable pushes the rod away
    const auto paper = closing_cable(law, ts::CableForceSign::kPaperLaw);
    auto d = ts::make_data(paper);
    ts::compute_derivative(paper, paper.initial_state, d);
    EXPECT_NEAR(d.cable_tension_N[0], -4.5, 1e-12);
    EXPECT_EQ(d.cable_slack[0], 0);
    EXPECT_NEAR(d.f_W_rod(0, 0), 4.5, 1e-12);  // pushed along +x, away from the anchor
    // clamp (the default): exactly no force, flagged slack
    const auto clamp = closing_cable(law, ts::CableForceSign::kClampTension);
    EXPECT_EQ(ts::Model().cable_force_sign, ts::CableForceSign::kClampTension);
    auto dc = ts::make_data(clamp);
    ts::compute_derivative(clamp, clamp.initial_state, dc);
    EXPECT_EQ(dc.cable_tension_N[0], 0.0);
    EXPECT_EQ(dc.cable_slack[0], 1);
    EXPECT_EQ(dc.f_W_rod.col(0).norm(), 0.0);
    // the stored energy is the length's: still 1/2 k s^2 while unloaded by the clamp
    EXPECT_NEAR(ts::compute_energy(clamp, clamp.initial_state, dc).elastic_J, 0.5 * 10.0 * 0.05 * 0.05, 1e-15);
    // the monitor reports the clamp as slack; under the paper law the cable is not slack
    ts::SimulationOptions o;
    o.duration_s = 0.01;
    o.dt_s = 1e-3;
    const auto sc = ts::simulate(clamp, o);
    EXPECT_EQ(sc.monitor.first_slack_cable, 0);
    EXPECT_EQ(sc.monitor.first_slack_time_s, 0.0);
    EXPECT_FALSE(sc.monitor.normal_mode);
    const auto sp = ts::simulate(paper, o);
    EXPECT_EQ(sp.monitor.first_slack_cable, -1);
    EXPECT_LT(sp.final_tension_N[0], -1.0);
    // slow motion (0.05 m/s: damping -0.25 N): both give the same force, bit for bit
    auto slow_p = paper, slow_c = clamp;
    slow_p.initial_state.v_WC(0).x() = slow_c.initial_state.v_WC(0).x() = -0.05;
    ts::compute_derivative(slow_p, slow_p.initial_state, d);
    ts::compute_derivative(slow_c, slow_c.initial_state, dc);
    EXPECT_NEAR(d.cable_tension_N[0], 0.25, 1e-12);
    EXPECT_EQ(d.cable_tension_N[0], dc.cable_tension_N[0]);
    EXPECT_EQ(d.xdot, dc.xdot);
  }
  EXPECT_EQ(ts::cable_force_sign_from_string("paper_law"), ts::CableForceSign::kPaperLaw);
  try {
    ts::cable_force_sign_from_string("signed");
    ADD_FAILURE();
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "unknown cable force sign 'signed' (valid: clamp_tension, paper_law)");
  }
}
