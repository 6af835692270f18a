// Combination-selection planner (document 001, chapter 3) and the coordinate-search planner.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;

namespace {
ts::ModelFile three_bar() {
  auto f = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  f.model.drives.clear();
  return f;
}
ts::PlannerOptions options(const ts::ModelFile& f, int threads, double duration = 0.5) {
  ts::PlannerOptions o;
  o.drive_cables = {0, 1, 2, 3};
  o.duration_s = duration;
  o.rollout = f.simulation;
  o.threads = threads;
  return o;
}
}  // namespace

TEST(Planner, PathCostsAreTheDocumentsConstraints) {
  ts::PathTracker straight(ts::PlanPath::straight_x());
  const Eigen::Vector2d C(0.03, -0.004);
  EXPECT_NEAR(straight.cost(C), 5 * 0.004 - 0.03, 1e-15);  // (3-3)
  ts::PathTracker turn(ts::PlanPath::right_angle(0.01));
  EXPECT_NEAR(turn.cost(Eigen::Vector2d(0.005, 0.002)), 5 * 0.002 - 0.005, 1e-15);  // (3-4) before the corner
  turn.advance(Eigen::Vector2d(0.0101, 0.001));
  EXPECT_EQ(turn.segment, 1);
  EXPECT_NEAR(turn.cost(Eigen::Vector2d(0.012, 0.02)), 5 * 0.002 - 0.02, 1e-15);  // (3-5) after it
  EXPECT_NEAR(turn.distance(Eigen::Vector2d(0.012, 0.02)), 0.002, 1e-15);
  EXPECT_NEAR(turn.arc_length(Eigen::Vector2d(0.012, 0.02)), 0.03, 1e-15);
}

TEST(Planner, ParallelAndSerialSchedulesAreBitIdentical) {
  const auto f = three_bar();
  const auto a = ts::plan(f.model, options(f, 1));
  const auto b = ts::plan(f.model, options(f, 2));
  const auto c = ts::plan(f.model, options(f, 7));
  ASSERT_EQ(a.offset_m.size(), b.offset_m.size());
  for (std::size_t i = 0; i < a.offset_m.size(); ++i) {
    EXPECT_EQ(a.offset_m[i], b.offset_m[i]);
    EXPECT_EQ(a.offset_m[i], c.offset_m[i]);
    EXPECT_EQ(a.centroid_m[i], b.centroid_m[i]);
  }
  EXPECT_EQ(a.final_state.x, c.final_state.x);
  EXPECT_EQ(a.rollouts, 5 * 81);
}

TEST(Planner, ExecutedScheduleReplaysInSimulate) {
  const auto f = three_bar();
  const auto o = options(f, 0);
  const auto r = ts::plan(f.model, o);
  EXPECT_GT(r.progress_m, 0.0) << "the robot should move along +x";
  auto m = f.model;
  m.drives = r.as_drives(o.drive_cables);
  auto sim = f.simulation;
  sim.duration_s = o.duration_s;
  const auto s = ts::simulate(m, sim);
  Eigen::Vector2d C = Eigen::Vector2d::Zero();
  for (int j = 0; j < m.nrod(); ++j) C += s.final_state.p_WC(j).head<2>() / 3.0;
  EXPECT_LT((C - r.centroid_m.back()).norm(), 1e-9);
}

TEST(Planner, CoordinateSearchSpendsFewerRollouts) {
  const auto f = three_bar();
  auto o = options(f, 0);
  o.planner = ts::Planner::kCoordinateSearch;
  const auto r = ts::plan(f.model, o);
  EXPECT_LT(r.rollouts, 5 * 81 / 2);
  EXPECT_GT(r.progress_m, 0.0);
}

TEST(Planner, RestLengthLimitsAreRespected) {
  auto f = three_bar();
  for (int k = 0; k < 4; ++k) {
    f.model.cables[k].rest_length_min_m = f.model.cables[k].rest_length_m - 0.005;
    f.model.cables[k].rest_length_max_m = f.model.cables[k].rest_length_m + 0.005;
  }
  const auto r = ts::plan(f.model, options(f, 0));
  for (const auto& u : r.offset_m) EXPECT_LE(u.cwiseAbs().maxCoeff(), 0.005 + 1e-15);
  EXPECT_GT(r.rejected, 0);
}

TEST(Planner, BadOptions) {
  const auto f = three_bar();
  auto o = options(f, 0);
  o.drive_cables = {};
  EXPECT_THROW(ts::plan(f.model, o), tendyn::Error);
  o.drive_cables = {42};
  EXPECT_THROW(ts::plan(f.model, o), tendyn::Error);
  o = options(f, 0);
  o.u0_m = 0;
  EXPECT_THROW(ts::plan(f.model, o), tendyn::Error);
  auto withdrive = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  EXPECT_THROW(ts::plan(withdrive.model, options(withdrive, 0)), tendyn::Error);
  o = options(f, 0);
  o.path.points = {Eigen::Vector2d(0, 0), Eigen::Vector2d(0, 0)};
  EXPECT_THROW(ts::plan(f.model, o), tendyn::Error);
}
