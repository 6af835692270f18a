// Cross-check against DART 6 (an independent implementation): M and inverse dynamics within 1e-8.
// Skipped with a message when DART was not found at configure time.
#include <gtest/gtest.h>

#include "tree/tree_fixtures.hpp"

#ifdef TENDYN_HAVE_DART
#include <tendyn/tree/algorithms.hpp>

#include <algorithm>
#include <cstdio>

#include "tree/dart_bridge.hpp"
#endif

namespace tendyn::tree {
namespace {

#ifdef TENDYN_HAVE_DART
void crosscheck(const Model& m, const char* label) {
  SCOPED_TRACE(label);
  auto skel = testing::to_dart(m);
  ASSERT_TRUE(testing::same_dof_order(m, skel));
  Data d(m);
  double worst[3] = {0.0, 0.0, 0.0};
  auto rel = [](const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) {
    return (x - y).cwiseAbs().maxCoeff() / std::max(1.0, x.cwiseAbs().maxCoeff());
  };
  for (unsigned s = 0; s < 20; ++s) {
    const Eigen::VectorXd q = m.random_configuration(500 + s);
    const Eigen::VectorXd v = testing::random_vector(m.nv, 600 + s, 2.0);
    const Eigen::VectorXd a = testing::random_vector(m.nv, 700 + s, 3.0);
    skel->setPositions(q);
    skel->setVelocities(v);
    skel->setAccelerations(a);
    EXPECT_TRUE(testing::near(skel->getMassMatrix(), crba(m, d, q), 1e-8)) << "M, seed " << s;
    EXPECT_TRUE(testing::near(skel->getCoriolisAndGravityForces(), nonlinear_effects(m, d, q, v), 1e-8)) << "bias, seed " << s;
    skel->computeInverseDynamics();
    EXPECT_TRUE(testing::near(skel->getForces(), rnea(m, d, q, v, a), 1e-8)) << "tau, seed " << s;
    worst[0] = std::max(worst[0], rel(crba(m, d, q), skel->getMassMatrix()));
    worst[1] = std::max(worst[1], rel(nonlinear_effects(m, d, q, v), skel->getCoriolisAndGravityForces()));
    worst[2] = std::max(worst[2], rel(rnea(m, d, q, v, a), skel->getForces()));
  }
  std::printf("[tree] DART cross-check, %s, 20 states: max rel err M %.1e C+g %.1e tau %.1e\n", label, worst[0], worst[1], worst[2]);
}

TEST(TreeDart, MassMatrixAndInverseDynamics) {
  crosscheck(load_model(testing::model_path("arm6.yaml")), "arm6");
  crosscheck(load_model(testing::model_path("biped.urdf"), BaseMode::kFictitious), "biped18");
  crosscheck(load_model(testing::model_path("humanoid35.urdf"), BaseMode::kFictitious), "humanoid35");
  crosscheck(testing::random_tree(30, 2026), "random30");
}

// The free-base mapping of dart_bridge.hpp (used by the benchmarks): DART's FreeJoint has other
// base coordinates (exponential coordinates, body-frame twist) than tendyn's quaternion, but the
// joint-joint block of M depends on the joint angles only, so it must agree whatever the base
// pose: this checks that the benchmark's free-base skeleton is the same mechanism.
TEST(TreeDart, FreeBaseJointBlockOfTheMassMatrix) {
  const Model m = load_model(testing::model_path("humanoid35.urdf"), BaseMode::kFree);
  ASSERT_EQ(m.joints[0].type, JointType::kFree);
  ASSERT_EQ(m.nq, m.nv + 1);  // quaternion base: q = (base 7, joint angles), v = (base 6, joint rates)
  auto skel = testing::to_dart(m);
  ASSERT_TRUE(testing::same_dof_order(m, skel));
  Data d(m);
  const int nj = m.nv - 6;
  for (unsigned s = 0; s < 5; ++s) {
    const Eigen::VectorXd q = m.random_configuration(800 + s);
    Eigen::VectorXd q_dart = testing::random_vector(m.nv, 900 + s, 1.0);  // any base pose
    q_dart.tail(nj) = q.tail(nj);
    skel->setPositions(q_dart);
    EXPECT_TRUE(testing::near(skel->getMassMatrix().bottomRightCorner(nj, nj), crba(m, d, q).bottomRightCorner(nj, nj), 1e-8))
        << "joint block of M, seed " << s;
  }
}
#else
TEST(TreeDart, MassMatrixAndInverseDynamics) {
#ifdef TENDYN_DART_SKIPPED_FOR_MARCH
  GTEST_SKIP() << "x86-64-v3 build (TENDYN_MARCH_X86_64_V3): Debian's DART is built without AVX, cross-check skipped";
#else
  GTEST_SKIP() << "DART not found at configure time (install libdart-dev): cross-check skipped";
#endif
}
#endif

}  // namespace
}  // namespace tendyn::tree
