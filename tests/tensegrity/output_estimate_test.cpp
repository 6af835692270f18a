// Up-front output and memory estimates of `tendyn simulate` and `tendyn plan` (the budget check),
// against hand counts for the 3-bar robot (3 rods, 6 nodes, 9 cables).
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output_estimate.hpp>

#include <gtest/gtest.h>

#include <cmath>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;

TEST(OutputEstimate, SimulateCountsRowsColumnsAndFrames) {
  const auto f = tendyn::test::shipped_model("three_bar.yaml");
  ASSERT_EQ(f.model.nrod(), 3);
  ASSERT_EQ(f.model.nnode(), 6);
  ASSERT_EQ(f.model.ncable(), 9);
  ts::SimulationOptions o = f.simulation;
  o.duration_s = 2.0;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.25;
  // rows 2 / 0.25 + 2 = 10, columns 1 + 7*3 + 3*6 + 4*9 + 8 = 84; frames 2 / 0.5 + 2 = 6 of
  // 3 (2*3 + 6) + 2*9 + 3 + 6 = 63 numbers
  const auto e = ts::estimate_simulate_output(f.model, o, 0.5, true);
  EXPECT_DOUBLE_EQ(e.output_bytes, 18.0 * (10 * 84 + 6 * 63));
  EXPECT_DOUBLE_EQ(e.memory_bytes, 8.0 * 6 * 63);
  EXPECT_EQ(e.output_what, "10 rows x 84 columns of results.csv and 6 frames of scene.json");
  EXPECT_EQ(e.memory_what, "6 viewer frames of 63 numbers");
  // frames are never denser than the outputs; no files (--no-csv): nothing
  EXPECT_DOUBLE_EQ(ts::estimate_simulate_output(f.model, o, 0.0, true).memory_bytes, 8.0 * 10 * 63);
  const auto none = ts::estimate_simulate_output(f.model, o, 0.5, false);
  EXPECT_EQ(none.output_bytes, 0.0);
  EXPECT_EQ(none.memory_bytes, 0.0);
}

TEST(OutputEstimate, PlanCountsScheduleModelReplayAndRollouts) {
  const auto f = tendyn::test::shipped_model("three_bar.yaml");
  ts::PlannerOptions o;
  o.drive_cables = {0, 1, 2, 3};
  o.period_s = 0.125;
  o.duration_s = 0.375;  // 3 periods
  ts::SimulationOptions replay = f.simulation;
  replay.dt_s = 1e-3;
  replay.output_interval_s = 0.125;
  // schedule.csv 3 + 2 rows x (1 + 2*4 + 4) = 13 columns; planned.yaml 2 numbers x 4 knots x 4
  // cables + 32 x (3 + 6 + 9); scene.json 0.375 / 0.125 + 2 = 5 frames of 63 + 1 numbers
  const double output = 18.0 * (5 * 13 + (2 * 4 * 4 + 32 * 18) + 5 * 64);
  const double frames = 8.0 * 5 * 64, rollout = 8.0 * 13 * 3 + 3 * 9 + 64;
  auto e = ts::estimate_plan_output(f.model, o, replay, 0.125);
  EXPECT_DOUBLE_EQ(e.output_bytes, output);
  EXPECT_DOUBLE_EQ(e.memory_bytes, frames + 81 * rollout);  // 3^4 candidates
  EXPECT_EQ(e.output_what, "5 rows x 13 columns of schedule.csv, 608 numbers of planned.yaml and 5 frames of scene.json");
  EXPECT_EQ(e.memory_what, "5 viewer frames of 64 numbers and 81 rollouts kept per period");
  o.planner = ts::Planner::kLookahead;  // the period's 81 and 3 beams x 81 children
  EXPECT_DOUBLE_EQ(ts::estimate_plan_output(f.model, o, replay, 0.125).memory_bytes, frames + 4 * 81 * rollout);
  o.planner = ts::Planner::kCoordinateSearch;  // one round: 2 alternatives per cable
  EXPECT_DOUBLE_EQ(ts::estimate_plan_output(f.model, o, replay, 0.125).memory_bytes, frames + 8 * rollout);
  o.planner = ts::Planner::kScreened;  // at most 1 + rounds (2m + screen): 1 + 3 (8 + 2), and never above 3^m
  o.screen_count = 2;
  EXPECT_DOUBLE_EQ(ts::estimate_plan_output(f.model, o, replay, 0.125).memory_bytes, frames + 31 * rollout);
  o.screen_count = 32;
  EXPECT_DOUBLE_EQ(ts::estimate_plan_output(f.model, o, replay, 0.125).memory_bytes, frames + 81 * rollout);
  o.planner = ts::Planner::kCoordinateSearch;
  o.ramp_fraction = 0.5;  // one more knot per period in planned.yaml
  EXPECT_DOUBLE_EQ(ts::estimate_plan_output(f.model, o, replay, 0.125).output_bytes, output + 18.0 * 2 * 3 * 4);
  o.ramp_fraction = 1.0;
  o.increment = ts::IncrementShape::kStep;  // the step knot: as many as a short ramp
  EXPECT_DOUBLE_EQ(ts::estimate_plan_output(f.model, o, replay, 0.125).output_bytes, output + 18.0 * 2 * 3 * 4);
  // a long plan grows linearly: 30000 periods -> about 30000 rows of 13 numbers, 60000 replay frames
  o.duration_s = 3750.0;
  e = ts::estimate_plan_output(f.model, o, replay, 0.0);
  EXPECT_GT(e.output_bytes, 18.0 * 30000 * (13 + 64));
  EXPECT_TRUE(std::isfinite(e.output_bytes));
}
