// CDPR dynamics acceptance (issue 6): statics with the exact solver's tensions, energy
// conservation without damping, carriage/winch kinematics, mass properties, bad input.
#include <gtest/gtest.h>

#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/error.hpp>

#include <cmath>
#include <sstream>
#include <string>

#include "cdpr/dynamics_support.hpp"
#include "cdpr/test_util.hpp"

namespace tendyn::cdpr {
namespace {

DynamicModel printer(double load_kg = 50.0) {
  const auto mf = load_model(test::model_path("printer8.yaml"));
  return make_printer_dynamics(mf.model, load_kg);
}

TEST(CdprDynamics, MassPropertiesCombineLoad) {
  const DynamicModel m = printer(50.0);
  EXPECT_DOUBLE_EQ(m.mass_kg, 350.0);
  EXPECT_NEAR(m.com_P.z(), -0.2 * 50.0 / 350.0, 1e-15);
  // parallel axis: Ixx = platform + 300 d1^2 + 50 d2^2
  const double d1 = 0.2 * 50.0 / 350.0, d2 = 0.2 - d1;
  EXPECT_NEAR(m.inertia_C(0, 0), 300.0 * (1.0 + 0.64) / 12.0 + 300.0 * d1 * d1 + 50.0 * d2 * d2, 1e-12);
}

TEST(CdprDynamics, StaticsWithSolverTensionsHasZeroAcceleration) {
  const DynamicModel m = printer();
  const Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  // poses inside printer8's wrench-feasible workspace (tensions in [200, 30000] N), the last one
  // a corner of the experiment's layer path
  for (const auto& q :
       {Eigen::Vector3d(0, 0, 3.0), Eigen::Vector3d(1.0, -1.0, 3.0), Eigen::Vector3d(-1.2, 2.0, 3.5), Eigen::Vector3d(3.0, -4.0, 3.0)}) {
    const Pose pose = pose_from_xyz_rpy(q, Eigen::Vector3d(0.0, 0.0, 0.02));
    const Eigen::VectorXd f = test::holding_tensions(m, pose);
    const StateVector x = make_state(m, pose, rest_lengths_for_tensions(m, in, pose, f));
    compute_derivative(m, in, x, d);
    EXPECT_LT((d.tension_N - f).norm(), 1e-7 * f.norm());
    EXPECT_LT(d.a_P_W.norm(), 1e-9) << "pose " << q.transpose();
    EXPECT_LT(d.alpha_P.norm(), 1e-9);
  }
}

TEST(CdprDynamics, EnergyConservedWithoutDampingOver10s) {
  DynamicModel m = printer();
  m.damping_Nspm.setZero();
  const Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.3, -0.2, 3.0), Eigen::Vector3d::Zero());
  StateVector x = make_state(m, pose, rest_lengths_for_tensions(m, in, pose, test::holding_tensions(m, pose, 1000.0)));
  // Perturb: 0.1 mm / 5 mm/s / 1 mrad/s; with >= 1 kN pretension all cables stay taut.
  x[0] += 1e-4;
  x.segment<3>(7) = Eigen::Vector3d(0.005, -0.003, 0.002);
  x.segment<3>(10) = Eigen::Vector3d(0.001, -0.0005, 0.0008);
  const DynamicEnergy e0 = compute_energy(m, in, x, d);
  const double scale = e0.kinetic_J + std::abs(e0.gravity_J) + e0.elastic_J;
  const double h = 2e-4;
  double worst = 0.0;
  for (int k = 0; k < static_cast<int>(std::lround(10.0 / h)); ++k) {
    step_rk4(m, in, x, h, d);
    ASSERT_GT(d.tension_N.minCoeff(), 0.0);
    if (k % 100 == 0) worst = std::max(worst, std::abs(compute_energy(m, in, x, d).total() - e0.total()));
  }
  worst = std::max(worst, std::abs(compute_energy(m, in, x, d).total() - e0.total()));
  EXPECT_LT(worst / scale, 1e-6) << "drift " << worst << " J of " << scale << " J";
  // stricter: relative to the kinetic + elastic energy alone (no gravity datum)
  const double mech = e0.kinetic_J + e0.elastic_J;
  EXPECT_LT(worst / mech, 1e-6) << "drift " << worst << " J of " << mech << " J";
  std::ostringstream o;
  o << worst / scale << " (total scale), " << worst / mech << " (kinetic + elastic)";
  RecordProperty("energy_drift_rel", o.str());
}

TEST(CdprDynamics, Dopri5AgreesWithFineRk4AndConservesEnergy) {
  DynamicModel m = printer();
  m.damping_Nspm.setZero();
  const Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.3, -0.2, 3.0), Eigen::Vector3d::Zero());
  StateVector x0 = make_state(m, pose, rest_lengths_for_tensions(m, in, pose, test::holding_tensions(m, pose, 1000.0)));
  x0.segment<3>(7) = Eigen::Vector3d(0.005, -0.003, 0.002);
  x0.segment<3>(10) = Eigen::Vector3d(0.001, -0.0005, 0.0008);
  StateVector xa = x0, xb = x0;
  const double T = 1.0;
  double t = 0.0, h = 1e-4;
  int rejected = 0;
  while (t < T - 1e-15) {
    const AdaptiveStep s = step_dopri5(m, in, xa, std::min(h, T - t), d, 1e-10, 1e-12);
    if (s.accepted)
      t += s.h_used;
    else
      ++rejected;
    h = s.h_next;
  }
  for (int k = 0; k < 10000; ++k) step_rk4(m, in, xb, 1e-4, d);
  EXPECT_LT((xa.head<13>() - xb.head<13>()).norm(), 1e-8);
  const double e0 = compute_energy(m, in, x0, d).total();
  EXPECT_LT(std::abs(compute_energy(m, in, xa, d).total() - e0), 1e-6 * std::abs(e0));
  StateVector xc = x0;
  const AdaptiveStep big = step_dopri5(m, in, xc, 0.5, d, 1e-10, 1e-12);
  EXPECT_FALSE(big.accepted);
  EXPECT_EQ(xc, x0);
  EXPECT_LT(big.h_next, 0.5);
}

TEST(CdprDynamics, WinchRateIsClampedAndCarriageMovesAnchor) {
  const DynamicModel m = printer();
  Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0, 0, 3.0), Eigen::Vector3d::Zero());
  const StateVector x = make_state(m, pose, Eigen::VectorXd::Constant(8, 10.0));
  in.winch_rate_m_s.setConstant(5.0);
  in.carriage_z_m[4] = 0.3;
  in.carriage_vz_m_s[4] = 0.1;
  compute_derivative(m, in, x, d);
  EXPECT_DOUBLE_EQ(d.xdot[13], 0.5);
  EXPECT_DOUBLE_EQ(d.anchors_W(2, 4), 2.5);
  EXPECT_DOUBLE_EQ(d.anchors_W(2, 0), 15.0);
  EXPECT_NEAR(d.length_rate[4], d.geo.u_W(2, 4) * 0.1, 1e-15);
}

TEST(CdprDynamics, SlackCableHasNoTension) {
  const DynamicModel m = printer();
  const Inputs in = make_inputs(m);
  DynamicData d = make_dynamic_data(m);
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0, 0, 3.0), Eigen::Vector3d::Zero());
  const StateVector x = make_state(m, pose, Eigen::VectorXd::Constant(8, 100.0));
  compute_derivative(m, in, x, d);
  EXPECT_EQ(d.tension_N.norm(), 0.0);
  EXPECT_NEAR(d.a_P_W.z(), -9.81, 1e-12);
}

TEST(CdprDynamics, BadInputIsRejected) {
  DynamicModel m = printer();
  m.EA_N[2] = -1.0;
  EXPECT_THROW(finalize_dynamic_model(m), Error);
  m = printer();
  m.damping_Nspm.resize(3);
  EXPECT_THROW(finalize_dynamic_model(m), Error);
  m = printer();
  EXPECT_THROW(make_state(m, Pose{}, Eigen::VectorXd::Ones(3)), Error);
}

}  // namespace
}  // namespace tendyn::cdpr
