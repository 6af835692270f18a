// Shared helper of the CDPR dynamics and identification tests.
#pragma once
#include <gtest/gtest.h>

#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/tension.hpp>

namespace tendyn::cdpr::test {

/// Tensions [N] from the exact solver (bounds f_min_N .. 30 kN) that hold the platform of `m` at
/// `pose` against gravity, with the dynamic model's total mass and centre of mass; a failed solve
/// is a test failure.
inline Eigen::VectorXd holding_tensions(const DynamicModel& m, const Pose& pose, double f_min_N = 200.0) {
  Model g = m.geometry;
  g.platform_mass_kg = m.mass_kg;
  g.p_PC = m.com_P;
  Data d = make_data(g);
  update_geometry(g, pose, d);
  SolverOptions opt;
  opt.f_min_N = f_min_N;
  opt.f_max_N = 30000.0;
  const TensionResult r = solve_tensions(Method::kExact, d.J, gravity_compensation_wrench(g, pose), opt);
  EXPECT_EQ(r.status, Status::kOk);
  return r.f_N;
}

}  // namespace tendyn::cdpr::test
