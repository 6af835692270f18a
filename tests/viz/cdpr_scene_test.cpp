// Viewer scene of a cable-driven parallel robot (src/viz/cdpr_scene.cpp).
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

namespace {

// The printer's platform has two rings of attachment points (upper and lower cables) at two
// platform-frame heights: one face each, made of attachment-point indices in [n, 2n), no point
// twice. (A face used to compare each point with an out-of-range column of p_PB.)
TEST(CdprScene, PlatformFacesIndexAttachmentPoints) {
  const auto f = tendyn::cdpr::load_model(std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/printer8.yaml");
  const int n = static_cast<int>(f.model.p_WA.cols());
  const tendyn::viz::Scene s = tendyn::viz::make_scene(f.model);
  ASSERT_EQ(s.faces.size(), 2u);
  std::set<int> seen;
  for (const auto& face : s.faces) {
    EXPECT_GE(face.size(), 3u);
    for (int p : face) {
      EXPECT_GE(p, n);
      EXPECT_LT(p, 2 * n);
      EXPECT_TRUE(seen.insert(p).second) << "point " << p << " in two faces or twice in one";
    }
  }
  // the same scene twice (the faces were once read from uninitialised memory)
  EXPECT_EQ(tendyn::viz::make_scene(f.model).faces, s.faces);
}

}  // namespace

namespace {

// The workspace scene: one frame of the robot, one cloud with the inside points and their margins,
// the boundary highlighted as cloud indices; with `outside`, every grid point (the outside ones
// without a value), written to scene.json with null values and accepted by check_scene_json.
TEST(CdprScene, WorkspaceSceneCloudHoldsInsidePointsAndBoundary) {
  using namespace tendyn;
  const auto f = cdpr::load_model(std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/planar4.yaml");
  const cdpr::Model& model = f.model;
  const cdpr::Pose pose = cdpr::pose_from_vector(model, f.default_pose);
  cdpr::WorkspaceOptions o;
  cdpr::WorkspaceGrid grid;
  grid.lo_m = model.p_WA.rowwise().minCoeff();
  grid.hi_m = model.p_WA.rowwise().maxCoeff();
  grid.lo_m.z() = grid.hi_m.z() = 0.0;
  grid.count = {20, 20, 1};
  const auto g = cdpr::evaluate_grid(model, o, grid);
  ASSERT_GT(g.inside_count, 0);
  ASSERT_LT(g.inside_count, 400);
  ASSERT_FALSE(g.boundary.empty());

  const viz::Scene s = viz::workspace_scene(model, pose, g, "capacity margin [N]");
  EXPECT_EQ(s.nframe(), 1);
  ASSERT_EQ(s.clouds.size(), 1u);
  const auto& c = s.clouds[0];
  ASSERT_EQ(c.values.size(), static_cast<std::size_t>(g.inside_count));
  ASSERT_EQ(c.points_m.size(), 3 * c.values.size());
  ASSERT_EQ(c.highlight.size(), g.boundary.size());
  // the k-th cloud point is the k-th inside grid point, with its margin
  std::size_t k = 0;
  for (std::size_t i = 0; i < g.verdicts.size(); ++i) {
    if (!g.verdicts[i].inside()) continue;
    EXPECT_EQ(c.points_m[3 * k], g.p_WP(0, static_cast<Eigen::Index>(i)));
    EXPECT_EQ(c.points_m[3 * k + 1], g.p_WP(1, static_cast<Eigen::Index>(i)));
    EXPECT_EQ(c.values[k], g.verdicts[i].margin);
    ++k;
  }
  // a highlighted point is a boundary grid point
  const int h0 = c.highlight[0], b0 = g.boundary[0];
  EXPECT_EQ(c.points_m[3 * static_cast<std::size_t>(h0)], g.p_WP(0, b0));
  EXPECT_EQ(c.points_m[3 * static_cast<std::size_t>(h0) + 1], g.p_WP(1, b0));

  const viz::Scene all = viz::workspace_scene(model, pose, g, "capacity margin [N]", true);
  ASSERT_EQ(all.clouds[0].values.size(), 400u);
  int nan = 0;
  for (double v : all.clouds[0].values) nan += std::isnan(v);
  EXPECT_EQ(nan, 400 - g.inside_count);
  const std::string text = viz::scene_json(all);
  EXPECT_NE(text.find("\"clouds\":[{\"name\":\"workspace\""), std::string::npos);
  EXPECT_NE(text.find("null"), std::string::npos);
  EXPECT_NO_THROW(viz::check_scene_json(text, "scene.json"));
  // a highlight index beyond the cloud is refused, naming the cloud
  viz::Scene bad = all;
  bad.clouds[0].highlight.push_back(400);
  EXPECT_THROW(viz::validate(bad), Error);
  std::string broken = text;
  broken.replace(broken.find("\"highlight\":["), 13, "\"highlight\":[999999,");
  try {
    viz::check_scene_json(broken, "x.json");
    ADD_FAILURE() << "accepted a highlight index out of range";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("clouds[0].highlight"), std::string::npos) << e.what();
  }
}

}  // namespace
