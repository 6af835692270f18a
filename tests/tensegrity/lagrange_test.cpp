// Lagrange formulation (document 001 chapter 2) against the Newton-Euler engine, energy and
// finite-difference oracles.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include "support/tensegrity_fixtures.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace ts = tendyn::tensegrity;

namespace {

// The document's 3-bar robot with its drives; no ground (free fall) unless asked.
ts::Model three_bar(ts::Ground::Type ground = ts::Ground::Type::kNone) {
  ts::Model m = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml").model;
  m.ground.type = ground;
  return m;
}

// Document 000's 3-prism with thin rods (I_a = 0) or hollow rods, given rod spins so that the
// axial spin (and the thin-rod regularisation) matters.
ts::Model prism(bool hollow) {
  ts::PrismParams p;
  p.psi_rad = 50.0 * tendyn::test::kDeg;
  p.damping_Nspm = 0.5;
  p.stiffness_Npm = 40.0;
  if (hollow) {
    p.rod_radius_outer_m = 0.02;
    p.rod_radius_inner_m = 0.01;
  }
  ts::Model m = ts::make_prism(p);
  m.gravity_W = Eigen::Vector3d(0.0, 0.0, -9.81);
  for (int j = 0; j < m.nrod(); ++j) {
    const Eigen::Vector3d e = m.initial_state.q_WB(j) * Eigen::Vector3d::UnitZ();
    m.initial_state.w_W(j) = Eigen::Vector3d(0.3 * j, -0.2, 0.1) + 5.0 * e;
    m.initial_state.v_WC(j) = Eigen::Vector3d(0.05, -0.02 * j, 0.1);
  }
  return m;
}

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// Newton-Euler reference: fixed RK4 steps, no slack-event splitting. `slack_steps` counts the
// steps that start with at least one slack cable.
ts::State run_ne(const ts::Model& m, double T, double h, long* slack_steps = nullptr) {
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  ts::normalize_quaternions(m, s);
  const long n = std::lround(T / h);
  if (slack_steps) *slack_steps = 0;
  for (long i = 0; i < n; ++i) {
    ts::compute_derivative(m, s, d);
    bool any = false;
    for (auto f : d.cable_slack) any = any || f != 0;
    if (slack_steps && any) ++*slack_steps;
    ts::step_rk4(m, d, s, h);
  }
  return s;
}

double max_node_distance(const ts::Model& m, const ts::State& a, const ts::State& b) {
  return (tendyn::test::node_positions(m, a) - tendyn::test::node_positions(m, b)).rowwise().norm().maxCoeff();
}

// A random state of the model (seeded): positions near the initial ones, random rotations and velocities.
ts::State random_state(const ts::Model& m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ts::State s = m.initial_state;
  for (int j = 0; j < m.nrod(); ++j) {
    s.p_WC(j) += 0.01 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    const Eigen::Quaterniond dq(Eigen::AngleAxisd(0.2 * u(rng), Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized()));
    s.set_q_WB(j, (dq * s.q_WB(j)).normalized());
    s.v_WC(j) = Eigen::Vector3d(u(rng), u(rng), u(rng));
    s.w_W(j) = 3.0 * Eigen::Vector3d(u(rng), u(rng), u(rng));
  }
  return s;
}

}  // namespace

TEST(LagrangeConversion, RoundTripAndDocumentConvention) {
  const ts::Model m = three_bar();
  const ts::State s = random_state(m, 7);
  const ts::LagrangeState ls = ts::to_lagrange_state(m, s);
  const ts::State back = ts::to_newton_euler_state(m, ls);
  EXPECT_LT((back.x - s.x).cwiseAbs().maxCoeff(), 1e-14);
  for (int j = 0; j < m.nrod(); ++j) {
    const Eigen::Vector4d q = ls.q(j).tail<4>(), qd = ls.qdot(j).tail<4>();
    // the document's axis (2-25) is tendyn's rod axis
    EXPECT_LT((ts::rod_axis(q) - s.q_WB(j) * Eigen::Vector3d::UnitZ()).norm(), 1e-14);
    // C(s) s' = -w_B, and the constraint is kept: s . s' = 0
    const Eigen::Vector3d w_B = s.q_WB(j).conjugate() * Eigen::Vector3d(s.w_W(j));
    EXPECT_LT((ts::quaternion_velocity_matrix(q) * qd + w_B).norm(), 1e-13);
    EXPECT_LT(std::abs(q.dot(qd)), 1e-15);
    // the document's nodes (2-24) are tendyn's nodes
    ts::LagrangeData ld = ts::make_lagrange_data(m);
    ts::lagrange_node_kinematics(m, ls, ld);
    ts::Data d = ts::make_data(m);
    ts::forward_kinematics(m, s, d);
    EXPECT_LT((ld.p_W_node - d.p_W_node).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((ld.v_W_node - d.v_W_node).cwiseAbs().maxCoeff(), 1e-13);
  }
}

TEST(LagrangeMassMatrix, SymmetricPsdAndKineticEnergyMatchesNewtonEuler) {
  for (bool hollow : {false, true}) {
    const ts::Model m = prism(hollow);
    for (unsigned seed = 1; seed <= 5; ++seed) {
      const ts::State s = random_state(m, seed);
      const ts::LagrangeState ls = ts::to_lagrange_state(m, s);
      Eigen::MatrixXd M;
      ts::mass_matrix(m, ls.y.head(7 * m.nrod()), M);
      EXPECT_LT((M - M.transpose()).cwiseAbs().maxCoeff(), 1e-15);
      const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues();
      EXPECT_GT(ev.minCoeff(), -1e-14 * ev.maxCoeff());
      // null space: the s direction of every rod, plus the spin for thin rods
      const int zeros = static_cast<int>((ev.array().abs() < 1e-12 * ev.maxCoeff()).count());
      EXPECT_EQ(zeros, hollow ? m.nrod() : 2 * m.nrod());
      ts::Data d = ts::make_data(m);
      ts::compute_derivative(m, s, d);
      const double T_ne = ts::compute_energy(m, s, d).kinetic_J;
      const double T_l = 0.5 * ls.y.tail(7 * m.nrod()).dot(M * ls.y.tail(7 * m.nrod()));
      EXPECT_NEAR(T_l, T_ne, 1e-13 * T_ne);
      EXPECT_NEAR(ts::kinetic_energy(m, ls), T_ne, 1e-13 * T_ne);
    }
  }
}

TEST(LagrangeVelocityTerm, EqualsMdotQdotMinusDTdqByFiniteDifferences) {
  const ts::Model m = prism(true);
  const ts::LagrangeState ls = ts::to_lagrange_state(m, random_state(m, 3));
  const int n7 = 7 * m.nrod();
  Eigen::VectorXd b;
  ts::velocity_term(m, ls, b);
  const Eigen::VectorXd q = ls.y.head(n7), qd = ls.y.tail(n7);
  const double eps = 1e-6;
  Eigen::MatrixXd Mp, Mm;
  ts::mass_matrix(m, q + eps * qd, Mp);
  ts::mass_matrix(m, q - eps * qd, Mm);
  Eigen::VectorXd ref = (Mp - Mm) / (2 * eps) * qd;  // M' q'
  for (int i = 0; i < n7; ++i) {                     // - dT/dq
    ts::LagrangeState a = ls, c = ls;
    a.y[i] += eps;
    c.y[i] -= eps;
    ref[i] -= (ts::kinetic_energy(m, a) - ts::kinetic_energy(m, c)) / (2 * eps);
  }
  EXPECT_LT((b - ref).norm(), 1e-7 * ref.norm());
  Eigen::VectorXd fg;
  ts::gravity_term(m, fg);
  EXPECT_DOUBLE_EQ(fg[2], m.rods[0].mass_kg * 9.81);
}

TEST(LagrangeCableForce, IsMinusGradientOfElasticEnergyAndEqualsHDf) {
  ts::Model m = three_bar();
  ts::State s = random_state(m, 11);
  for (int j = 0; j < m.nrod(); ++j) {  // static: the damping adds nothing
    s.v_WC(j).setZero();
    s.w_W(j).setZero();
  }
  ts::LagrangeState ls = ts::to_lagrange_state(m, s);
  ts::LagrangeData d = ts::make_lagrange_data(m);
  d.ne.cable_rest_length_m[0] = 0.5;  // one slack cable: it must contribute nothing
  Eigen::VectorXd Qc;
  ts::cable_generalized_forces(m, ls, d, Qc);
  EXPECT_EQ(d.ne.cable_slack[0], 1);
  auto U = [&](const ts::LagrangeState& st) {
    Eigen::VectorXd dummy;
    ts::cable_generalized_forces(m, st, d, dummy);
    double u = 0.0;
    for (int k = 0; k < m.ncable(); ++k) {
      const double x = std::max(0.0, d.ne.cable_length_m[k] - d.ne.cable_rest_length_m[k]);
      u += 0.5 * m.cables[k].stiffness_Npm * x * x;
    }
    return u;
  };
  const int n7 = 7 * m.nrod();
  Eigen::VectorXd grad(n7);
  const double eps = 1e-6;
  for (int i = 0; i < n7; ++i) {
    ts::LagrangeState a = ls, c = ls;
    a.y[i] += eps;
    c.y[i] -= eps;
    grad[i] = (U(a) - U(c)) / (2 * eps);
  }
  EXPECT_LT((Qc + grad).norm(), 1e-7 * grad.norm());
  // the same through the explicit matrices: Q_c = H kron(D, I3) f (2-36)
  ts::cable_generalized_forces(m, ls, d, Qc);
  Eigen::MatrixXd H;
  ts::node_jacobian(m, ls.y.head(n7), H);
  const Eigen::MatrixXd D = ts::incidence_matrix(m);
  Eigen::MatrixXd D3 = Eigen::MatrixXd::Zero(3 * m.nnode(), 3 * m.ncable());
  for (int i = 0; i < m.nnode(); ++i)
    for (int k = 0; k < m.ncable(); ++k) D3.block<3, 3>(3 * i, 3 * k) = D(i, k) * Eigen::Matrix3d::Identity();
  const Eigen::VectorXd f = Eigen::Map<const Eigen::VectorXd>(d.f_W_cable.data(), 3 * m.ncable());
  EXPECT_LT((H * D3 * f - Qc).norm(), 1e-12 * Qc.norm());
  // the document's D (2-34) for its numbering n1..n6 and cables c1..c9
  EXPECT_EQ(D(0, 0), 1.0);
  EXPECT_EQ(D(2, 0), -1.0);
  EXPECT_EQ(D(0, 2), -1.0);
  EXPECT_EQ(D(0, 6), 1.0);
  EXPECT_EQ(D(5, 6), -1.0);
  Eigen::MatrixXd Phi_q;
  ts::constraint_jacobian(m, ls.y.head(n7), Phi_q);
  EXPECT_EQ(Phi_q.rows(), m.nrod());
  EXPECT_DOUBLE_EQ(Phi_q(1, 7 + 3), 2.0 * ls.y[7 + 3]);
}

TEST(LagrangeLinearization, MatchesCentralFiniteDifferences) {
  const ts::Model m = three_bar();
  // a moving, actuated state: 0.3 s into the document's drive (free fall)
  const ts::LagrangeRun run = ts::lagrange_simulate(m, 0.3, 1e-3);
  ts::LagrangeState st = run.final_state;
  ts::LagrangeData d = ts::make_lagrange_data(m);
  Eigen::MatrixXd A, B;
  ts::linearize(m, st, d, A, B);
  const int nx = 14 * m.nrod();
  ASSERT_EQ(A.rows(), nx);
  ASSERT_EQ(B.cols(), 4);
  Eigen::MatrixXd Afd(nx, nx), Bfd(nx, 4);
  for (int i = 0; i < nx; ++i) {
    const double eps = 1e-6 * std::max(1.0, std::abs(st.y[i]));
    ts::LagrangeState a = st, c = st;
    a.y[i] += eps;
    c.y[i] -= eps;
    ts::lagrange_derivative(m, a, d);
    const Eigen::VectorXd fa = d.ydot;
    ts::lagrange_derivative(m, c, d);
    Afd.col(i) = (fa - d.ydot) / (2 * eps);
  }
  for (int c = 0; c < 4; ++c) {
    const int k = m.drives[c].cable;
    double delta = 0.0;
    d.ne.controller = [&](double, const ts::State&, ts::Data& nd) { nd.cable_rest_length_m[k] += delta; };
    const double eps = 1e-7;
    delta = eps;
    ts::lagrange_derivative(m, st, d);
    const Eigen::VectorXd fa = d.ydot;
    delta = -eps;
    ts::lagrange_derivative(m, st, d);
    Bfd.col(c) = (fa - d.ydot) / (2 * eps);
  }
  d.ne.controller = nullptr;
  const double ea = (A - Afd).norm() / A.norm(), eb = (B - Bfd).norm() / B.norm();
  EXPECT_LT(ea, 1e-6);
  EXPECT_LT(eb, 1e-6);
  RecordProperty("relative_error_A", sci(ea));
  RecordProperty("relative_error_B", sci(eb));
  // structure of (2-54): dq'/dq' = I
  EXPECT_LT((A.topRightCorner(nx / 2, nx / 2) - Eigen::MatrixXd::Identity(nx / 2, nx / 2)).norm(), 1e-15);
}

// Acceptance: the two formulations agree on the document's 3-bar robot, free fall with actuation.
TEST(LagrangeVsNewtonEuler, ThreeBarFreeFallWithDrivesOneSecond) {
  const ts::Model m = three_bar();
  const double h = 1e-4;
  long slack_steps = 0;
  const ts::State ne = run_ne(m, 1.0, h, &slack_steps);
  const ts::LagrangeRun lr = ts::lagrange_simulate(m, 1.0, h);
  const ts::State la = ts::to_newton_euler_state(m, lr.final_state);
  const double dist = max_node_distance(m, ne, la);
  RecordProperty("max_node_distance_m", sci(dist));
  RecordProperty("slack_steps", std::to_string(slack_steps));
  EXPECT_LT(dist, 1e-8);
  // the robot really moved (free fall ~4.9 m) and the drives really acted
  EXPECT_GT((ne.p_WC(0) - m.initial_state.p_WC(0)).norm(), 4.0);
}

// The compliant ground (contact.hpp) is a force law: both formulations must agree on a drop onto it.
TEST(LagrangeVsNewtonEuler, ThreeBarOnCompliantGround) {
  const ts::Model m = three_bar(ts::Ground::Type::kCompliant);
  const double h = 2e-5, T = 0.3;
  const ts::State ne = run_ne(m, T, h);
  const ts::LagrangeRun lr = ts::lagrange_simulate(m, T, h);
  const ts::State la = ts::to_newton_euler_state(m, lr.final_state);
  const double dist = max_node_distance(m, ne, la);
  RecordProperty("compliant_ground_max_node_distance_m", sci(dist));
  EXPECT_LT(dist, 1e-8);
  // the ground did hold the robot up (free fall would be 0.44 m down)
  ts::Data d = ts::make_data(m);
  ts::forward_kinematics(m, ne, d);
  EXPECT_GT(d.p_W_node.row(2).minCoeff(), -0.01);
  // and the impulse ground is refused with a clear error
  EXPECT_THROW(ts::lagrange_simulate(three_bar(ts::Ground::Type::kImpulse), 0.1, 1e-3), tendyn::Error);
}

TEST(LagrangeVsNewtonEuler, ThinAndHollowPrismWithSpinAndSlack) {
  for (bool hollow : {false, true}) {
    const ts::Model m = prism(hollow);
    const double h = 1e-4;
    long slack_steps = 0;
    const ts::State ne = run_ne(m, 1.0, h, &slack_steps);
    EXPECT_GT(slack_steps, 100);  // the run does go through tension-only slack events
    const ts::LagrangeRun lr = ts::lagrange_simulate(m, 1.0, h);
    const ts::State la = ts::to_newton_euler_state(m, lr.final_state);
    const double dist = max_node_distance(m, ne, la);
    RecordProperty(hollow ? "hollow_max_node_distance_m" : "thin_max_node_distance_m", sci(dist));
    RecordProperty(hollow ? "hollow_slack_steps" : "thin_slack_steps", std::to_string(slack_steps));
    EXPECT_LT(dist, 1e-8) << (hollow ? "hollow" : "thin");
    // the axial spin is carried identically
    for (int j = 0; j < m.nrod(); ++j) EXPECT_LT((ne.w_W(j) - la.w_W(j)).norm(), 1e-6);
  }
}

// Controller callback (state feedback on rest lengths), external node forces and the relative-
// velocity damping law of document 000 eq. 3 go through the same paths in both formulations.
TEST(LagrangeVsNewtonEuler, ControllerExternalForcesAndRelativeDamping) {
  ts::Model m = prism(true);
  m.damping_law = ts::DampingLaw::kRelativeVelocity;
  m.f_W_ext_node.assign(static_cast<std::size_t>(m.nnode()), Eigen::Vector3d::Zero());
  m.f_W_ext_node[1] = Eigen::Vector3d(0.3, -0.1, 2.0);
  auto controller = [](double t, const ts::State& s, ts::Data& d) {
    d.cable_rest_length_m[2] = 0.2 + 0.01 * std::sin(5.0 * t) + 0.01 * std::tanh(s.w_W(0).x());
  };
  const double h = 1e-4, T = 0.5;
  ts::SimulationOptions o;
  o.duration_s = T;
  o.dt_s = h;
  o.output_interval_s = 0.0;
  o.locate_slack_events = false;
  const ts::SimulationSummary ne = ts::simulate(m, o, nullptr, {}, nullptr, controller);
  const ts::LagrangeRun lr = ts::lagrange_simulate(m, o, {}, nullptr, {}, controller);
  const double dist = max_node_distance(m, ne.final_state, ts::to_newton_euler_state(m, lr.final_state));
  RecordProperty("controller_ext_relative_max_node_distance_m", sci(dist));
  EXPECT_LT(dist, 1e-8);
  // and the controller did matter
  const ts::LagrangeRun open = ts::lagrange_simulate(m, o);
  EXPECT_GT((open.final_state.y - lr.final_state.y).cwiseAbs().maxCoeff(), 1e-4);
}

// The same driver options as simulate(): RK4 with slack-event location, and Dormand-Prince 5(4).
TEST(LagrangeVsNewtonEuler, SimulateDriversRk4WithSlackEventsAndDopri5) {
  const ts::Model m = prism(false);
  ts::SimulationOptions o;
  o.duration_s = 1.0;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.0;
  const ts::SimulationSummary ne = ts::simulate(m, o);
  const ts::LagrangeRun lr = ts::lagrange_simulate(m, o);
  EXPECT_GT(lr.split_steps, 0);
  EXPECT_EQ(lr.split_steps, ne.split_steps);
  const double d_rk4 = max_node_distance(m, ne.final_state, ts::to_newton_euler_state(m, lr.final_state));
  RecordProperty("rk4_located_max_node_distance_m", sci(d_rk4));
  EXPECT_LT(d_rk4, 1e-8);
  o.integrator = ts::Integrator::kDormandPrince45;
  o.tolerance.rtol = 1e-10;
  o.tolerance.atol = 1e-12;
  const ts::SimulationSummary ne5 = ts::simulate(m, o);
  const ts::LagrangeRun l5 = ts::lagrange_simulate(m, o);
  const double d_dp = max_node_distance(m, ne5.final_state, ts::to_newton_euler_state(m, l5.final_state));
  RecordProperty("dopri5_max_node_distance_m", sci(d_dp));
  RecordProperty("dopri5_steps_ne_lagrange", std::to_string(ne5.steps) + " " + std::to_string(l5.steps));
  EXPECT_LT(d_dp, 1e-7);
  EXPECT_NEAR(l5.final_state.time_s, 1.0, 1e-12);
  o.integrator = ts::Integrator::kLieVerlet;
  EXPECT_THROW(ts::lagrange_simulate(m, o), tendyn::Error);
}

TEST(LagrangeThinRod, RegularisationDoesNotChangeTheMotion) {
  const ts::Model m = prism(false);
  ts::LagrangeOptions a, b;
  a.thin_rod_axial_inertia_factor = 1.0;
  b.thin_rod_axial_inertia_factor = 1e-3;
  const ts::LagrangeRun ra = ts::lagrange_simulate(m, 0.5, 1e-4, a);
  const ts::LagrangeRun rb = ts::lagrange_simulate(m, 0.5, 1e-4, b);
  EXPECT_LT((ra.final_state.y - rb.final_state.y).cwiseAbs().maxCoeff(), 1e-9);
}

// Acceptance: | |s| - 1 | < 1e-10 over 10 s (the document's run length and step).
TEST(LagrangeConstraint, UnitQuaternionDriftBelow1e10Over10s) {
  const ts::Model m = three_bar();
  const ts::LagrangeRun r = ts::lagrange_simulate(m, 10.0, 5e-4);
  EXPECT_EQ(r.steps, 20000);
  EXPECT_LT(r.max_constraint_violation, 1e-10);
  RecordProperty("projection_max_violation", sci(r.max_constraint_violation));
  // the velocity constraint s . s' = 0 is kept as well
  for (int j = 0; j < m.nrod(); ++j) EXPECT_LT(std::abs(r.final_state.q(j).tail<4>().dot(r.final_state.qdot(j).tail<4>())), 1e-12);
  // Baumgarte instead of projection also stays below the bound
  ts::LagrangeOptions o;
  o.stabilisation = ts::QuaternionStabilisation::kBaumgarte;
  const ts::LagrangeRun rb = ts::lagrange_simulate(m, 10.0, 5e-4, o);
  RecordProperty("baumgarte_max_violation", sci(rb.max_constraint_violation));
  EXPECT_LT(rb.max_constraint_violation, 1e-10);
}

// The closed-form solution of (2-50) equals a general LU solve of the 8x8 system, for hollow and
// thin rods and off the unit sphere (|s| != 1).
TEST(LagrangeAugmentedSystem, ClosedFormEqualsLuOfTheAugmentedSystem) {
  for (int which = 0; which < 3; ++which) {
    const ts::Model m = which == 0 ? three_bar() : prism(which == 2);
    ts::LagrangeState st = ts::to_lagrange_state(m, random_state(m, 5));
    st.y.segment<4>(3) *= 1.1;
    ts::LagrangeData d = ts::make_lagrange_data(m);
    ts::lagrange_derivative(m, st, d);
    for (int j = 0; j < m.nrod(); ++j) {
      Eigen::Matrix<double, 8, 8> A;
      Eigen::Matrix<double, 8, 1> rhs;
      ts::augmented_system(m, st, d, j, A, rhs);
      const Eigen::Matrix<double, 8, 1> x = A.fullPivLu().solve(rhs);
      EXPECT_LT((x.head<7>() - d.ydot.segment<7>(7 * m.nrod() + 7 * j)).norm(), 1e-10 * x.head<7>().norm());
      EXPECT_NEAR(x[7], d.lambda[j], 1e-10 * std::abs(x[7]) + 1e-12);
    }
  }
}

TEST(LagrangeErrors, BadArgumentsThrow) {
  const ts::Model m = three_bar();
  EXPECT_THROW(ts::lagrange_simulate(m, 1.0, 0.0), tendyn::Error);
  ts::LagrangeOptions o;
  o.thin_rod_axial_inertia_factor = 0.0;
  EXPECT_THROW(ts::make_lagrange_data(m, o), tendyn::Error);
  ts::LagrangeState bad;
  bad.y.setZero(5);
  Eigen::VectorXd b;
  EXPECT_THROW(ts::velocity_term(m, bad, b), tendyn::Error);
}

TEST(LagrangeOptions, StabilisationNamesRoundTripAndUnknownNamesAreErrors) {
  for (auto q : {ts::QuaternionStabilisation::kProjection, ts::QuaternionStabilisation::kBaumgarte, ts::QuaternionStabilisation::kNone})
    EXPECT_EQ(ts::quaternion_stabilisation_from_string(ts::to_string(q)), q);
  EXPECT_STREQ(ts::to_string(ts::QuaternionStabilisation::kBaumgarte), "baumgarte");
  try {
    (void)ts::quaternion_stabilisation_from_string("gram-schmidt");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "unknown quaternion stabilisation 'gram-schmidt' (valid: projection, baumgarte, none)");
  }
}

TEST(LagrangeForces, CableForceSignAsInNewtonEuler) {
  // Random fast states of the prism with strong damping: some taut cables' damped force pushes.
  // The Lagrange form clamps (or keeps) it exactly as compute_element_forces does.
  for (auto law : {ts::DampingLaw::kRelativeVelocity, ts::DampingLaw::kAxial}) {
    for (auto sign : {ts::CableForceSign::kClampTension, ts::CableForceSign::kPaperLaw}) {
      ts::Model m = prism(false);
      for (auto& c : m.cables) c.damping_Nspm = 5.0;
      m.damping_law = law;
      m.cable_force_sign = sign;
      int pushing = 0;
      for (unsigned seed = 1; seed <= 5; ++seed) {
        const ts::State s = random_state(m, seed);
        ts::Data d = ts::make_data(m);
        ts::compute_derivative(m, s, d);
        ts::LagrangeData ld = ts::make_lagrange_data(m);
        const ts::LagrangeState ls = ts::to_lagrange_state(m, s);
        Eigen::VectorXd Q;
        ts::cable_generalized_forces(m, ls, ld, Q);
        for (int k = 0; k < m.ncable(); ++k) {
          EXPECT_NEAR(ld.ne.cable_tension_N[k], d.cable_tension_N[k], 1e-12);
          EXPECT_EQ(ld.ne.cable_slack[static_cast<std::size_t>(k)], d.cable_slack[static_cast<std::size_t>(k)]);
          const bool taut = d.cable_length_m[k] > d.cable_rest_length_m[k];
          if (sign == ts::CableForceSign::kPaperLaw && d.cable_tension_N[k] < 0.0) ++pushing;
          if (sign == ts::CableForceSign::kClampTension && taut && d.cable_slack[static_cast<std::size_t>(k)]) ++pushing;
          if (sign == ts::CableForceSign::kClampTension) {
            EXPECT_GE(d.cable_tension_N[k], 0.0);
          }
        }
      }
      EXPECT_GT(pushing, 0) << "the states should include a pushing damped cable";
    }
  }
}
