// Tree scenes: the recorded points are the links' frame origins and centres of mass from forward
// kinematics, the COM track and the energies are the tree algorithms' values, and the document's
// fictitious floating-base chain is not drawn.
#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/viz/tree_scene.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cmath>

#include "tree/tree_fixtures.hpp"

namespace tendyn::viz {
namespace {

TEST(TreeScene, FramesAreForwardKinematicsAndTheTreeEnergies) {
  const tree::Model m = tree::load_model(tree::testing::model_path("arm6.yaml"));
  const int n = m.nlinks();
  const Eigen::VectorXd q0 = m.neutral();
  Scene s = make_scene(m, q0);
  EXPECT_EQ(s.kind, "tree");
  ASSERT_EQ(s.npoint(), 2 * n);
  tree::Data d(m);
  const Eigen::VectorXd q = m.random_configuration(7);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(m.nv, -1.0, 1.0);
  const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(m.nv, 2.0, -3.0);
  add_tree_frame(s, m, d, 0.25, q0, Eigen::VectorXd::Zero(m.nv), Eigen::VectorXd::Zero(m.nv));
  add_tree_frame(s, m, d, 0.5, q, v, tau);
  ASSERT_EQ(s.nframe(), 2);
  tree::Data ref(m);
  tree::forward_kinematics(m, ref, q);
  const double* p = s.positions_m.data() + 3 * 2 * n;  // frame 1
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(p[3 * i + k], ref.X_WL[static_cast<std::size_t>(i)].p[k]) << i;
  // a link's centre of mass keeps its distance from the link origin in every configuration
  for (int i = 0; i < n; ++i) {
    const Eigen::Map<const Eigen::Vector3d> o0(s.positions_m.data() + 3 * i), c0(s.positions_m.data() + 3 * (n + i));
    const Eigen::Map<const Eigen::Vector3d> o1(p + 3 * i), c1(p + 3 * (n + i));
    EXPECT_NEAR((c1 - o1).norm(), (c0 - o0).norm(), 1e-12) << i;
  }
  const Eigen::Vector3d com = tree::center_of_mass(m, ref, q);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.com_m[3 + static_cast<std::size_t>(k)], com[k], 1e-14);
  const double T = tree::kinetic_energy(m, ref, q, v), U = tree::potential_energy(m, ref, q);
  EXPECT_NEAR(s.kinetic_J[1], T, 1e-12 * (1.0 + T));
  EXPECT_GT(s.kinetic_J[1], 0.0);
  EXPECT_EQ(s.kinetic_J[0], 0.0);  // at rest
  EXPECT_NEAR(s.gravitational_J[1], U, 1e-12 * (1.0 + std::abs(U)));
  EXPECT_EQ(s.elastic_J[1], 0.0);  // a tree has no springs
  EXPECT_EQ(s.total_J[1], s.kinetic_J[1] + s.gravitational_J[1]);
  EXPECT_NO_THROW(validate(s));
}

// The joint plots hold q, v, tau of every frame; the joint axes are the joint's axis rotated into
// the world by its link's orientation; the floor is at 0 or under the initial pose.
TEST(TreeScene, JointPlotsAxesAndFloor) {
  const tree::Model m = tree::load_model(tree::testing::model_path("arm6.yaml"));
  const Eigen::VectorXd q0 = m.neutral();
  Scene s = make_scene(m, q0);
  ASSERT_TRUE(s.ground_z_m.has_value());
  EXPECT_LE(*s.ground_z_m, 0.0);
  ASSERT_EQ(s.plots.size(), 3u);
  EXPECT_EQ(s.plots[0].id, "q");
  EXPECT_EQ(s.plots[1].id, "qd");
  EXPECT_EQ(s.plots[2].id, "tau");
  EXPECT_EQ(s.plots[0].title, kJointPositionPlotTitle);
  ASSERT_EQ(static_cast<int>(s.plots[0].series.size()), m.nq);
  ASSERT_EQ(static_cast<int>(s.plots[2].series.size()), m.nv);
  int one_dof = 0;
  for (const auto& j : m.joints)
    one_dof += (j.type == tree::JointType::kRevolute || j.type == tree::JointType::kPrismatic) && !j.fictitious;
  ASSERT_EQ(static_cast<int>(s.joints.size()), one_dof);
  ASSERT_GT(one_dof, 0);
  tree::Data d(m);
  const Eigen::VectorXd q = m.random_configuration(3);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(m.nv, -1.0, 1.0), tau = Eigen::VectorXd::LinSpaced(m.nv, 5.0, -5.0);
  add_tree_frame(s, m, d, 0.0, q0, Eigen::VectorXd::Zero(m.nv), Eigen::VectorXd::Zero(m.nv));
  add_tree_frame(s, m, d, 0.01, q, v, tau);
  for (const auto& j : s.joints) {
    EXPECT_EQ(s.plots[0].series[static_cast<std::size_t>(j.q_index)].first, j.name);
    EXPECT_EQ(s.plots[0].series[static_cast<std::size_t>(j.q_index)].second[1], q[j.q_index]);
    EXPECT_EQ(s.plots[2].series[static_cast<std::size_t>(j.v_index)].second[1], tau[j.v_index]);
    EXPECT_EQ(s.plots[1].series[static_cast<std::size_t>(j.v_index)].second[0], 0.0);
  }
  ASSERT_EQ(s.joint_axes_W.size(), 2 * 3 * s.joints.size());
  tree::Data ref(m);
  tree::forward_kinematics(m, ref, q);
  for (std::size_t k = 0; k < s.joints.size(); ++k) {
    const int i = s.joints[k].point;
    const Eigen::Vector3d want = ref.X_WL[static_cast<std::size_t>(i)].R * m.joints[static_cast<std::size_t>(i)].axis;
    const Eigen::Map<const Eigen::Vector3d> got(s.joint_axes_W.data() + 3 * (s.joints.size() + k));
    EXPECT_NEAR((got - want).norm(), 0.0, 1e-14) << s.joints[k].name;
    EXPECT_NEAR(got.norm(), 1.0, 1e-12);
  }
  EXPECT_NO_THROW(validate(s));
  const auto j = nlohmann::json::parse(scene_json(s));
  EXPECT_EQ(j["joints"].size(), s.joints.size());
  EXPECT_EQ(j["frames"]["joint_axes_W"].size(), 2u);
  EXPECT_EQ(j["plots"][2]["id"], "tau");
  // a torque of the wrong size or not finite is refused, nothing is appended
  EXPECT_THROW(add_tree_frame(s, m, d, 0.02, q, v, Eigen::VectorXd::Zero(m.nv + 1)), Error);
  Eigen::VectorXd bad = tau;
  bad[0] = std::nan("");
  EXPECT_THROW(add_tree_frame(s, m, d, 0.02, q, v, bad), Error);
  EXPECT_EQ(s.nframe(), 2);
  EXPECT_NO_THROW(validate(s));
}

TEST(TreeScene, TheFictitiousBaseChainIsNotDrawn) {
  const tree::Model m = tree::load_model(tree::testing::model_path("biped.yaml"));
  const Scene s = make_scene(m, m.neutral());
  int drawn_joints = 0, fictitious = 0;
  for (int i = 0; i < m.nlinks(); ++i)
    for (int c : m.children[static_cast<std::size_t>(i)]) (m.joints[static_cast<std::size_t>(c)].fictitious ? fictitious : drawn_joints)++;
  EXPECT_GT(fictitious, 0);  // the document's biped stands on the 6-joint chain
  int link_rods = 0;
  for (const auto& r : s.rods) link_rods += r.b < m.nlinks() ? 1 : 0;  // origin-to-origin capsules
  EXPECT_EQ(link_rods, drawn_joints);
  // the trunk (carried by the chain) is a body of its own: a capsule from its origin to its COM
  const auto trunk = std::find(s.points.begin(), s.points.end(), "trunk") - s.points.begin();
  ASSERT_LT(trunk, m.nlinks());
  const auto body =
      std::find_if(s.rods.begin(), s.rods.end(), [&](const SceneRod& r) { return r.a == trunk && r.b == m.nlinks() + trunk; });
  ASSERT_NE(body, s.rods.end());
  EXPECT_EQ(body->name, "trunk");
  EXPECT_TRUE(body->capsule);
  // no capsule on the massless links of the chain
  for (const auto& r : s.rods)
    EXPECT_FALSE(m.joints[static_cast<std::size_t>(r.a)].fictitious && m.links[static_cast<std::size_t>(r.a)].mass_kg == 0.0) << r.name;
}

}  // namespace
}  // namespace tendyn::viz
