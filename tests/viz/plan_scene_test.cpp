// The viewer scene of an executed plan: frames as TensegritySceneRecorder keeps them, plus the
// path error of the planner's centroid per frame.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/viz/plan_scene.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <gtest/gtest.h>

namespace ts = tendyn::tensegrity;
namespace viz = tendyn::viz;

TEST(PlanScene, PathErrorPlotHasOneValuePerFrameFromThePlannersCentroid) {
  auto f = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  ts::PlannerOptions o;
  o.drive_cables = {0, 1, 2, 3};
  o.duration_s = 0.2;
  o.threads = 1;
  ts::remove_drives_on(f.model, o.drive_cables);
  o.rollout = ts::rollout_options(f.model, f.simulation);
  o.path = ts::PlanPath::right_angle(0.01);
  const auto r = ts::plan(f.model, o);
  auto planned = f.model;
  for (const auto& d : r.as_drives(o.drive_cables)) planned.drives.push_back(d);
  auto sim = o.rollout;
  sim.duration_s = 0.2;
  sim.output_interval_s = 0.005;
  // frames every 0.02 s of outputs every 0.005 s: the recorder decimates, the plot follows it
  const auto scene = viz::simulate_plan_scene(planned, sim, o.path, 0.02);
  viz::Scene plain = viz::make_scene(planned);
  {
    viz::TensegritySceneRecorder rec(plain, 0.02);
    ts::simulate(planned, sim, &rec);
    rec.finish();
  }
  ASSERT_EQ(scene.nframe(), plain.nframe());
  EXPECT_EQ(scene.t_s, plain.t_s);
  EXPECT_EQ(scene.positions_m, plain.positions_m);
  ASSERT_EQ(scene.plots.size(), plain.plots.size() + 1);
  const auto& plot = scene.plots.back();
  EXPECT_EQ(plot.title, viz::kPathErrorPlotTitle);
  EXPECT_EQ(plot.y_label, "m");
  ASSERT_EQ(plot.series.size(), 1u);
  const auto& err = plot.series[0].second;
  ASSERT_EQ(static_cast<int>(err.size()), scene.nframe());
  // the first frame is the initial state (the plan's first knot, exactly); the knots at 0.1 s and
  // 0.2 s are frames 5 and 10 and replay the planner's own path errors to round-off
  EXPECT_EQ(err.front(), r.path_error_m.front());
  ASSERT_EQ(scene.nframe(), 11);
  EXPECT_NEAR(err[5], r.path_error_m[1], 1e-12);
  EXPECT_NEAR(err[10], r.path_error_m[2], 1e-12);
  // the target path (drawn whole) and the executed centroid track (one point per frame) on the floor
  ASSERT_EQ(scene.paths.size(), 2u);
  const auto& target = scene.paths[0];
  EXPECT_EQ(target.name, viz::kTargetPathName);
  EXPECT_FALSE(target.per_frame);
  ASSERT_EQ(target.points_m.size(), 3 * o.path.points.size());
  const double floor_m = scene.ground_z_m.value_or(0.0);
  for (std::size_t i = 0; i < o.path.points.size(); ++i) {
    EXPECT_EQ(target.points_m[3 * i], o.path.points[i].x());
    EXPECT_EQ(target.points_m[3 * i + 1], o.path.points[i].y());
    EXPECT_EQ(target.points_m[3 * i + 2], floor_m);
  }
  const auto& track = scene.paths[1];
  EXPECT_EQ(track.name, viz::kCentroidTrackName);
  EXPECT_TRUE(track.per_frame);
  ASSERT_EQ(static_cast<int>(track.points_m.size()), 3 * scene.nframe());
  // its knots are the planner's centroids (PlanResult::centroid_m) up to the replay's round-off
  ASSERT_GE(r.centroid_m.size(), 3u);
  EXPECT_EQ(track.points_m[0], r.centroid_m[0].x());
  EXPECT_NEAR(track.points_m[3 * 10 + 1], r.centroid_m[2].y(), 1e-12);
  EXPECT_NO_THROW(viz::validate(scene));
  // a bad path is an input error
  EXPECT_THROW(viz::simulate_plan_scene(planned, sim, ts::PlanPath{{Eigen::Vector2d(0, 0)}}, 0.02), tendyn::Error);
}
