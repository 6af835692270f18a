// Anchor design: the score by hand on one pose, and Nelder-Mead improving a deliberately poor
// planar4 design within its frame, deterministically.
#include <gtest/gtest.h>

#include <tendyn/cdpr/design.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>

#include "test_util.hpp"

#include "support/error_of.hpp"

namespace tendyn::cdpr {
namespace {

using tendyn::test::error_of;

Eigen::MatrixXd grid_poses() {
  // 5 x 5 positions in [-0.4, 0.4]^2 at phi = 0
  Eigen::MatrixXd q(25, 3);
  int k = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) q.row(k++) << -0.4 + 0.2 * i, -0.4 + 0.2 * j, 0.0;
  return q;
}

TEST(Design, ScoreIsTheMeanCentredMarginByHand) {
  const Model m = load_model(test::model_path("planar4.yaml")).model;
  Eigen::MatrixXd q(1, 3);
  q << 0.1, -0.2, 0.0;
  TensionProblem p = make_tension_problem(m);
  update_tension_problem(m, pose_from_vector(m, q.row(0).transpose()), p);
  const TensionResult r = solve_tension_problem(Method::kCentred, p);
  ASSERT_EQ(r.status, Status::kOk);
  const double margin = std::min((r.f_N.array() - m.f_min_N).minCoeff(), (m.f_max_N - r.f_N.array()).minCoeff()) / (m.f_max_N - m.f_min_N);
  const DesignScore s = design_score(m, q);
  EXPECT_EQ(s.feasible, 1);
  EXPECT_DOUBLE_EQ(s.score, margin);
  EXPECT_NE(error_of([&] { (void)design_score(m, Eigen::MatrixXd(0, 3)); }).find("no poses"), std::string::npos);
}

TEST(Design, NelderMeadImprovesAPoorStartWithinTheFrameDeterministically) {
  Model m = load_model(test::model_path("planar4.yaml")).model;
  // poor start: the lower anchors pulled in towards the middle of the bottom edge
  m.p_WA(0, 2) = 0.2;
  m.p_WA(0, 3) = -0.2;
  const Eigen::MatrixXd q = grid_poses();
  DesignOptions o;
  o.frame_min_m = Eigen::Vector3d(-1, -1, 0);
  o.frame_max_m = Eigen::Vector3d(1, 1, 0);
  o.initial_step_m = 0.2;
  o.max_evaluations = 200;
  const DesignResult r = optimise_anchors(m, q, o);
  std::printf("start score %.6f feasible %d/%d; best %.6f feasible %d/%d after %d evaluations\n", r.start_score.score,
              r.start_score.feasible, r.start_score.poses, r.best_score.score, r.best_score.feasible, r.best_score.poses, r.evaluations);
  EXPECT_GT(r.best_score.score, r.start_score.score + 0.01);
  EXPECT_GE(r.best_score.feasible, r.start_score.feasible);
  EXPECT_LE(r.evaluations, 200);
  for (int i = 0; i < 4; ++i)
    for (int d = 0; d < 2; ++d) {
      EXPECT_GE(r.best.p_WA(d, i), -1.0);
      EXPECT_LE(r.best.p_WA(d, i), 1.0);
    }
  // the reported score is the best design's score
  EXPECT_DOUBLE_EQ(design_score(r.best, q).score, r.best_score.score);
  // deterministic
  const DesignResult again = optimise_anchors(m, q, o);
  EXPECT_EQ(again.best.p_WA, r.best.p_WA);
  // bad input
  DesignOptions bad = o;
  bad.frame_max_m.x() = -2;
  EXPECT_NE(error_of([&] { (void)optimise_anchors(m, q, bad); }).find("frame box"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::cdpr
