// Anchor design: the score by hand on one pose, and Nelder-Mead improving a deliberately poor
// planar4 design within its frame, deterministically.
#include <gtest/gtest.h>

#include <cmath>

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

Model poor_planar4() {
  Model m = load_model(test::model_path("planar4.yaml")).model;
  m.p_WA(0, 2) = 0.2;  // the lower anchors pulled in towards the middle of the bottom edge
  m.p_WA(0, 3) = -0.2;
  return m;
}

Eigen::MatrixXd region_poses(int count, double half) {
  Eigen::MatrixXd q(count * count, 3);
  int k = 0;
  for (int j = 0; j < count; ++j)
    for (int i = 0; i < count; ++i) q.row(k++) << -half + 2.0 * half * (i + 0.5) / count, -half + 2.0 * half * (j + 0.5) / count, 0.0;
  return q;
}

DesignOptions frame_options(DesignObjective objective) {
  DesignOptions o;
  o.frame_min_m = Eigen::Vector3d(-1, -1, 0);
  o.frame_max_m = Eigen::Vector3d(1, 1, 0);
  o.initial_step_m = 0.2;
  o.max_evaluations = 150;
  o.objective = objective;
  return o;
}

// capacity margin: the worst margin over the region; volume: the fraction of the region inside.
TEST(Design, BoxChecksNameTheAxisTheCableAndTheValue) {
  const Model m = load_model(test::model_path("planar4.yaml")).model;  // anchors at x, y = +-1, attachments at +-0.1
  DesignOptions o;
  o.frame_min_m = Eigen::Vector3d(-1, -1, 0);
  o.frame_max_m = Eigen::Vector3d(1, 1, 0);  // planar: z is not checked (no width there)
  EXPECT_NO_THROW(check_frame_box(m, o));
  DesignOptions bad = o;
  bad.frame_max_m.y() = -1;
  EXPECT_EQ(error_of([&] { check_frame_box(m, bad); }), "frame box y: lower -1 is not below upper -1 (no width)");
  bad = o;
  bad.frame_min_m.x() = std::nan("");
  EXPECT_EQ(error_of([&] { check_frame_box(m, bad); }), "frame box x: lower nan, upper 1: not finite");
  bad = o;
  bad.frame_max_m.x() = 0.5;
  EXPECT_EQ(error_of([&] { check_frame_box(m, bad); }), "the anchor of cable c2 lies outside the frame box (x = 1 m)");
  // the attachment box: both corners 0 give the attachments' bounding box
  const auto [lo, hi] = attachment_box(m, o);
  EXPECT_EQ(lo, Eigen::Vector3d(m.p_PB.row(0).minCoeff(), m.p_PB.row(1).minCoeff(), m.p_PB.row(2).minCoeff()));
  EXPECT_EQ(hi, Eigen::Vector3d(m.p_PB.row(0).maxCoeff(), m.p_PB.row(1).maxCoeff(), m.p_PB.row(2).maxCoeff()));
  bad = o;
  bad.attachment_min_m = Eigen::Vector3d(0.2, -1, 0);
  bad.attachment_max_m = Eigen::Vector3d(0.1, 1, 0);
  EXPECT_EQ(error_of([&] { (void)attachment_box(m, bad); }), "attachment box x: lower 0.2 is above upper 0.1");
}

TEST(Design, CapacityMarginAndVolumeObjectivesImproveAPoorStart) {
  const Model m = poor_planar4();
  const Eigen::MatrixXd q = region_poses(6, 0.6);
  for (const DesignObjective obj : {DesignObjective::kCapacityMargin, DesignObjective::kVolume}) {
    DesignOptions o = frame_options(obj);
    o.workspace.wrench_centre = Eigen::Vector3d::Zero();
    o.workspace.wrench_shape = Eigen::Vector3d(2.0, 2.0, 0.05).asDiagonal();
    const DesignResult r = optimise_anchors(m, q, o);
    std::printf("%s: start %.6f (%d/%d inside) -> best %.6f (%d/%d) after %d evaluations\n", to_string(obj), r.start_score.score,
                r.start_score.feasible, r.start_score.poses, r.best_score.score, r.best_score.feasible, r.best_score.poses, r.evaluations);
    EXPECT_GT(r.best_score.score, r.start_score.score + (obj == DesignObjective::kVolume ? 0.1 : 1.0)) << to_string(obj);
    EXPECT_EQ(design_score(r.best, q, o).score, r.best_score.score);
    EXPECT_EQ(design_score(r.start, q, o).score, r.start_score.score);
    EXPECT_EQ(r.best.p_PB, m.p_PB);  // attachments not moved
    // the score by hand: the worst margin / the inside fraction of evaluate_poses
    WorkspaceOptions wo = o.workspace;
    std::vector<Pose> poses;
    for (Eigen::Index k = 0; k < q.rows(); ++k) poses.push_back(pose_from_vector(r.best, q.row(k).transpose()));
    const auto v = evaluate_poses(r.best, wo, poses);
    double worst = std::numeric_limits<double>::infinity();
    int inside = 0;
    for (const auto& pv : v) {
      worst = std::min(worst, pv.margin);
      inside += pv.inside();
    }
    EXPECT_EQ(r.best_score.feasible, inside);
    EXPECT_DOUBLE_EQ(r.best_score.score, obj == DesignObjective::kVolume ? inside / 36.0 : worst);
    EXPECT_EQ(optimise_anchors(m, q, o).best.p_WA, r.best.p_WA);  // deterministic
  }
}

// the attachments as design variables, within the platform's bounding box
TEST(Design, AttachmentPointsMoveWithinThePlatformAndImproveTheCapacityMargin) {
  Model m = load_model(test::model_path("planar4.yaml")).model;
  // poor start: the upper cables' attachments pulled to the platform's lower edge (their moments
  // about the centre shrink) with the box given explicitly: the 0.2 x 0.2 m platform
  m.p_PB(1, 0) = -0.1;
  m.p_PB(1, 1) = -0.1;
  const Eigen::MatrixXd q = region_poses(5, 0.5);
  DesignOptions o = frame_options(DesignObjective::kCapacityMargin);
  o.frame_min_m = Eigen::Vector3d(-1, -1, 0);  // anchors free too
  o.move_attachments = true;
  o.attachment_min_m = Eigen::Vector3d(-0.1, -0.1, 0);
  o.attachment_max_m = Eigen::Vector3d(0.1, 0.1, 0);
  o.max_evaluations = 300;
  DesignOptions anchors_only = o;
  anchors_only.move_attachments = false;
  const DesignResult r = optimise_anchors(m, q, o), a = optimise_anchors(m, q, anchors_only);
  std::printf("attachments: start %.6f -> %.6f (anchors only: %.6f)\n", r.start_score.score, r.best_score.score, a.best_score.score);
  EXPECT_GT(r.best_score.score, r.start_score.score + 0.5);
  EXPECT_NE(r.best.p_PB, m.p_PB);
  EXPECT_EQ(design_score(r.best, q, o).score, r.best_score.score);
  for (int i = 0; i < 4; ++i)
    for (int d = 0; d < 2; ++d) {
      EXPECT_GE(r.best.p_PB(d, i), -0.1);
      EXPECT_LE(r.best.p_PB(d, i), 0.1);
    }
  // the default box is the attachments' bounding box; a start outside an explicit box is refused
  DesignOptions bad = o;
  bad.attachment_max_m = Eigen::Vector3d(0.05, 0.1, 0);
  EXPECT_NE(error_of([&] { (void)optimise_anchors(m, q, bad); }).find("attachment of cable c1 lies outside the attachment box (x = 0.1 m)"),
            std::string::npos);
  bad = o;
  bad.workspace.kind = WorkspaceKind::kClosure;
  EXPECT_NE(error_of([&] { (void)optimise_anchors(m, q, bad); }).find("needs workspace kind feasible or static"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::cdpr
