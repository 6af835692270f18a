// tendyn against MuJoCo 2.2.2 on the same rods and cables (tendyn::tensegrity::to_mjcf), on runs
// where every cable stays taut (2.2.2 tendon springs also push). Both engines integrate 1 s with
// RK4 at h = 1e-4 s; their node positions must agree to 1e-7 m (measured: ~1e-12 m; each
// engine's own discretisation error at this step is < 1e-9 m, see docs/BENCHMARKS.md). A
// slack-cable run is checked to differ, so the test can tell the engines apart.
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "peers/mujoco_support.hpp"
#include "support/peer_models.hpp"

namespace tt = tendyn::tensegrity;

namespace {

constexpr long kSteps = 10000;  // h = 1e-4 s over 1 s

tt::Model prism(double damping, double rest_side_m) { return tendyn::test::taut_prism(damping, rest_side_m); }
tt::Model six_bar(double damping) { return tendyn::test::taut_six_bar(damping); }

Eigen::Matrix3Xd run_tendyn(const tt::Model& m, double* min_strain) {
  tt::SimulationOptions o;
  o.duration_s = 1.0;
  o.dt_s = 1.0 / kSteps;
  o.output_interval_s = 1.0;
  const auto sum = tt::simulate(m, o);
  *min_strain = sum.monitor.min_strain.minCoeff();
  tt::Data d = tt::make_data(m);
  tt::forward_kinematics(m, sum.final_state, d);
  return d.p_W_node;
}

Eigen::Matrix3Xd run_mujoco(const tt::Model& model) {
  tt::MjcfOptions mo;
  mo.integrator = tt::MjcfIntegrator::kRK4;
  mo.timestep_s = 1.0 / kSteps;
  std::string err;
  const auto m = tendyn::test::load_mujoco(model, mo, &err);
  EXPECT_NE(m, nullptr) << err;
  Eigen::Matrix3Xd p = Eigen::Matrix3Xd::Constant(3, model.nnode(), NAN);
  if (!m) return p;
  const tendyn::test::MjDataPtr d(mj_makeData(m.get()));
  for (long i = 0; i < kSteps; ++i) mj_step(m.get(), d.get());
  mj_kinematics(m.get(), d.get());
  const std::vector<int> sites = tendyn::test::node_sites(m.get(), model);
  for (int i = 0; i < model.nnode(); ++i) {
    const int s = sites[static_cast<std::size_t>(i)];
    EXPECT_GE(s, 0) << model.node_ids[static_cast<std::size_t>(i)];
    if (s >= 0) p.col(i) = Eigen::Map<const Eigen::Vector3d>(d->site_xpos + 3 * s);
  }
  return p;
}

double max_distance(const Eigen::Matrix3Xd& a, const Eigen::Matrix3Xd& b) { return (a - b).colwise().norm().maxCoeff(); }

void expect_agreement(const tt::Model& m) {
  double min_strain = 0.0;
  const Eigen::Matrix3Xd pt = run_tendyn(m, &min_strain);
  ASSERT_GT(min_strain, 0.0) << "a cable went slack: the comparison needs taut cables";
  const Eigen::Matrix3Xd pm = run_mujoco(m);
  ASSERT_TRUE(pm.allFinite());
  EXPECT_LT(max_distance(pt, pm), 1e-7);
  // the run must move the nodes by much more than the tolerance, or agreement says nothing
  tt::Data d = tt::make_data(m);
  tt::forward_kinematics(m, m.initial_state, d);
  EXPECT_GT(max_distance(pt, d.p_W_node), 1e-3);
}

}  // namespace

TEST(MujocoCrosscheck, PrismUndamped) { expect_agreement(prism(0.0, 0.132)); }
TEST(MujocoCrosscheck, PrismAxialDamping) { expect_agreement(prism(1.0, 0.132)); }
TEST(MujocoCrosscheck, SixBarUndamped) { expect_agreement(six_bar(0.0)); }
TEST(MujocoCrosscheck, SixBarAxialDamping) { expect_agreement(six_bar(5.0)); }

// With a cable that goes slack, tendyn's tension-only cable and MuJoCo's two-sided spring differ.
TEST(MujocoCrosscheck, SlackCableDiffers) {
  const tt::Model m = prism(0.0, 0.3);  // side rest length longer than the side cables
  double min_strain = 0.0;
  const Eigen::Matrix3Xd pt = run_tendyn(m, &min_strain);
  ASSERT_LT(min_strain, 0.0);
  EXPECT_GT(max_distance(pt, run_mujoco(m)), 1e-3);
}
