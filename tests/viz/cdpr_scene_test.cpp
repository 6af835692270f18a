// Viewer scene of a cable-driven parallel robot (src/viz/cdpr_scene.cpp).
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <gtest/gtest.h>

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
