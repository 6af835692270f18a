// Rods beyond the documents' ideal (a full inertia tensor with the centre of mass off the axis,
// cables tied at points off the axis) against MuJoCo 2.2.2 on the exported file: zero gravity, no
// contact, a kick from the keyframe, RK4 at 0.1 ms on both sides; every node (site) is compared.
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <mujoco/mujoco.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "peers/mujoco_support.hpp"
#include "support/peer_models.hpp"

namespace tt = tendyn::tensegrity;

namespace {

// The taut 3-prism, its rods made general rigid bodies (a tube with a motor housing: centre of
// mass 12 mm off the axis, a full tensor with products of inertia), and three springs between
// points 25 mm off the axes of neighbouring rods.
tt::Model off_axis_prism() {
  tt::Model m = tendyn::test::taut_prism(0.05);
  const Eigen::MatrixX3d P = tt::node_positions(m, m.initial_state);
  for (int j = 0; j < m.nrod(); ++j) {
    tt::Rod& r = m.rods[static_cast<std::size_t>(j)];
    r.general_inertia = true;
    r.inertia_B_kgm2 << 0.0080, 0.0004, -0.0002, 0.0004, 0.0068, 0.0003, -0.0002, 0.0003, 0.0018;
    for (int e = 0; e < 2; ++e)
      m.nodes[static_cast<std::size_t>(r.node[e])].p_B_m = Eigen::Vector3d(-0.012, 0.004, (e == 0 ? -0.5 : 0.5) * r.length_m);
  }
  const int n0 = m.nnode();
  for (int j = 0; j < m.nrod(); ++j) {
    tt::Node s;
    s.rod = j;
    s.end = tt::Node::kBodyPoint;
    s.p_B_m = Eigen::Vector3d(0.025, -0.01, 0.1);
    m.nodes.push_back(s);
    m.node_ids.push_back("s" + std::to_string(j));
    m.f_W_ext_node.emplace_back(Eigen::Vector3d::Zero());
  }
  for (int j = 0; j < m.nrod(); ++j) {
    tt::Cable c;
    c.node[0] = n0 + j;
    c.node[1] = n0 + (j + 1) % m.nrod();
    c.stiffness_Npm = 40.0;
    c.damping_Nspm = 0.02;
    c.rest_length_m = 0.1;
    c.tension_only = false;  // MuJoCo's tendon spring pushes too
    m.cables.push_back(c);
    m.cable_ids.push_back("x" + std::to_string(j));
  }
  for (auto& c : m.cables) c.tension_only = false;
  Eigen::MatrixX3d Q(m.nnode(), 3);
  Q.setZero();
  Q.topRows(P.rows()) = P;
  m.initial_state = tt::state_from_node_positions(m, Q);
  for (int j = 0; j < m.nrod(); ++j) {
    m.initial_state.v_WC(j) = Eigen::Vector3d(0.05 * j, -0.02, 0.03);
    m.initial_state.w_W(j) = Eigen::Vector3d(0.8, -0.5 * j, 1.1);
  }
  m.gravity_W.setZero();
  tt::validate(m);
  return m;
}

}  // namespace

TEST(MujocoBodyGeometry, OffAxisPointsAndFullInertiaFollowMujoco) {
  const tt::Model model = off_axis_prism();
  const double h = std::getenv("TENDYN_H") ? std::atof(std::getenv("TENDYN_H")) : 1e-4;
  tt::MjcfOptions o;
  o.timestep_s = h;
  std::string err;
  const auto m = tendyn::test::load_mujoco(model, o, &err);
  ASSERT_TRUE(m) << err;
  ASSERT_EQ(m->nkey, 1);
  tendyn::test::MjDataPtr d(mj_makeData(m.get()));
  mj_resetDataKeyframe(m.get(), d.get(), 0);
  const std::vector<int> site = tendyn::test::node_sites(m.get(), model);

  tt::Data td = tt::make_data(model);
  tt::State s = model.initial_state;
  tt::compute_derivative(model, s, td);
  tt::StepOptions so;
  so.locate_slack_events = false;
  const Eigen::MatrixX3d p0 = tt::node_positions(model, model.initial_state);
  double worst = 0.0, moved = 0.0;
  const int n = static_cast<int>(std::lround(2.0 / h)), every = static_cast<int>(std::lround(0.01 / h));
  for (int k = 1; k <= n; ++k) {  // 2 s
    tt::step(model, td, s, h, so);
    mj_step(m.get(), d.get());
    if (k % every != 0) continue;
    mj_kinematics(m.get(), d.get());
    tt::forward_kinematics(model, s, td);
    for (int i = 0; i < model.nnode(); ++i) {
      if (site[static_cast<std::size_t>(i)] < 0) continue;
      const Eigen::Vector3d p_mj = Eigen::Map<const Eigen::Vector3d>(d->site_xpos + 3 * site[static_cast<std::size_t>(i)]);
      worst = std::max(worst, (p_mj - td.p_W_node.col(i)).norm());
      moved = std::max(moved, (td.p_W_node.col(i) - p0.row(i).transpose()).norm());
    }
  }
  EXPECT_GT(moved, 0.05);  // a real motion, not a standstill
  // the issue asks 1 mm; the engines agree far closer (measured 1e-7 m here). With two nearly equal
  // principal moments MuJoCo's own principal axes of `fullinertia` are off by ~1e-6 rad (its
  // eigen-solver), which alone moved sites by 7.7e-5 m in 2 s: the tensor here keeps them apart.
  EXPECT_LT(worst, 1e-6);
  std::printf("largest site distance over 2 s: %.3g m\n", worst);
}
