// Integrators: observed order of convergence on a smooth run, error control, long-run energy.
#include <tendyn/core/error.hpp>
#include <cstdio>
#include <tendyn/tensegrity/integrate.hpp>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;

namespace {
// A smooth run: 3-prism near equilibrium, all cables stay taut (no kinks in the force law).
ts::Model smooth_model() {
  // The stable twisted prism (rods span 150 deg: (L/2) sin(psi) / R = tan 75 deg) prestressed to
  // equilibrium (side force density = sqrt(3) x ring force density, rings stretched 25 %), then
  // perturbed by rod angular velocities small enough that every cable stays taut.
  ts::PrismParams p;
  p.psi_rad = -70 * tendyn::test::kDeg;  // towards the stable twist
  p.pivot = 0.5;
  p.radius_m = 0.15 * std::sin(-p.psi_rad) / std::tan(75 * tendyn::test::kDeg);
  p.rod_radius_outer_m = 0.01;
  p.stiffness_Npm = 50.0;
  p.damping_Nspm = 0.2;
  auto m = ts::make_prism(p);
  auto d = ts::make_data(m);
  ts::forward_kinematics(m, m.initial_state, d);
  for (int k = 0; k < m.ncable(); ++k) {
    const double l = (d.p_W_node.col(m.cables[k].node[1]) - d.p_W_node.col(m.cables[k].node[0])).norm();
    m.cables[k].rest_length_m = k % 3 == 2 ? l * (1.0 - std::sqrt(3.0) * 0.2) : 0.8 * l;
  }
  for (int j = 0; j < m.nrod(); ++j) m.initial_state.w_W(j) += Eigen::Vector3d(0.2 * j, 0.1, -0.3);
  return m;
}

Eigen::VectorXd integrate_fixed(const ts::Model& m, double T, int n, int which) {
  auto d = ts::make_data(m);
  ts::State s = m.initial_state;
  const double h = T / n;
  ts::Tolerance loose;
  loose.rtol = loose.atol = 1e30;  // accept every step: fixed-step DP5
  loose.h_max_s = 1e9;
  for (int i = 0; i < n; ++i) {
    ts::compute_derivative(m, s, d);
    if (which == 0)
      ts::step_rk4(m, d, s, h);
    else if (which == 1)
      EXPECT_TRUE(ts::step_dopri5(m, d, s, h, loose).accepted);
    else
      ts::step_lie_verlet(m, d, s, h);
  }
  return tendyn::test::node_positions(m, s).reshaped();
}

double observed_order(const ts::Model& m, int which, int n0) {
  const double T = 1.0;
  const Eigen::VectorXd ref = integrate_fixed(m, T, 16 * n0, which);
  const double e1 = (integrate_fixed(m, T, n0, which) - ref).norm();
  const double e2 = (integrate_fixed(m, T, 2 * n0, which) - ref).norm();
  std::printf("integrator %d: n = %d error %.3e, n = %d error %.3e\n", which, n0, e1, 2 * n0, e2);
  return std::log2(e1 / e2);
}
}  // namespace

TEST(Integrate, SmoothModelStaysTaut) {
  const auto s = tendyn::test::run(smooth_model(), 1.0, 1e-3);
  EXPECT_GT(s.monitor.min_strain.minCoeff(), 0.05);
}

TEST(Integrate, Rk4IsFourthOrder) {
  const double p = observed_order(smooth_model(), 0, 160);
  EXPECT_NEAR(p, 4.0, 0.3);
}

TEST(Integrate, DormandPrinceIsFifthOrder) {
  const double p = observed_order(smooth_model(), 1, 80);
  EXPECT_NEAR(p, 5.0, 0.4);
}

TEST(Integrate, LieVerletIsSecondOrder) {
  const double p = observed_order(smooth_model(), 2, 100);
  EXPECT_NEAR(p, 2.0, 0.2);
}

TEST(Integrate, AdaptiveDopri5MeetsTolerance) {
  // Adaptive run vs a very fine RK4 reference: the error shrinks with the tolerance.
  const auto m = smooth_model();
  const auto ref = tendyn::test::run(m, 1.0, 1e-5);
  double prev = 1e9;
  for (double tol : {1e-5, 1e-8, 1e-11}) {
    ts::SimulationOptions o;
    o.duration_s = 1.0;
    o.integrator = ts::Integrator::kDormandPrince45;
    o.tolerance.rtol = tol;
    o.tolerance.atol = tol;
    o.dt_s = 1e-2;
    o.output_interval_s = 0.0;
    const auto s = ts::simulate(m, o);
    EXPECT_NEAR(s.final_state.time_s, 1.0, 1e-12);
    const double err = (tendyn::test::node_positions(m, s.final_state) - tendyn::test::node_positions(m, ref.final_state)).norm();
    std::printf("dopri5 tol %.0e: error %.3e after %ld steps\n", tol, err, s.steps);
    EXPECT_LT(err, std::max(1e3 * tol, 1e-10)) << "tol " << tol;
    EXPECT_LT(err, prev);
    prev = err;
  }
}

TEST(Integrate, QuaternionsStayUnit) {
  const auto m = smooth_model();
  for (auto integ : {ts::Integrator::kRK4, ts::Integrator::kDormandPrince45, ts::Integrator::kLieVerlet}) {
    ts::Recorder rec;
    tendyn::test::run(m, 3.0, 2e-3, integ, &rec);
    for (const auto& x : rec.x)
      for (int j = 0; j < m.nrod(); ++j) EXPECT_NEAR(x.segment<4>(13 * j + 3).norm(), 1.0, 1e-14);
  }
}

TEST(Integrate, LieVerletHasNoLongRunEnergyDrift) {
  // Conservative and smooth: the symplectic scheme's energy error stays bounded over 200 s
  // while it is far larger than RK4 per step; no secular drift: the error at the end is not
  // larger than the error band seen in the first 20 s.
  auto m = smooth_model();
  for (auto& c : m.cables) c.damping_Nspm = 0.0;
  ts::Recorder rec;
  tendyn::test::run(m, 200.0, 5e-3, ts::Integrator::kLieVerlet, &rec);
  const double E0 = rec.energy.front().total();
  double band_early = 0.0, band_late = 0.0;
  for (std::size_t i = 0; i < rec.time_s.size(); ++i) {
    const double e = std::abs(rec.energy[i].total() - E0);
    if (rec.time_s[i] < 20.0) band_early = std::max(band_early, e);
    if (rec.time_s[i] > 180.0) band_late = std::max(band_late, e);
  }
  EXPECT_GT(band_early, 0.0);
  EXPECT_LT(band_late, 2.0 * band_early);
  EXPECT_LT(band_late / E0, 1e-3);
}

TEST(Integrate, UnknownIntegratorNameIsAnError) {
  EXPECT_THROW(ts::integrator_from_string("euler"), tendyn::Error);
  EXPECT_EQ(ts::integrator_from_string("dopri5"), ts::Integrator::kDormandPrince45);
}
