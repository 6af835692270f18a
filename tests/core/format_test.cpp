// The number formatter of messages (include/tendyn/core/format.hpp) and the layering of core.
#include <tendyn/core/format.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace tendyn {
namespace {

TEST(Format, NumbersAreShortAndSigned) {
  EXPECT_EQ(format_number(0.25, 6), "0.25");
  EXPECT_EQ(format_number(1.0 / 3.0, 6), "0.333333");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.333333333333");                            // 12 digits unless told
  EXPECT_EQ(format_number(std::numeric_limits<double>::max(), 6), "1.79769e+308");  // not 309 digits
  EXPECT_EQ(format_number(-0.0, 6), "0");
  EXPECT_EQ(format_number(-2.5e-7, 3), "-2.5e-07");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity(), 6), "inf");
  EXPECT_EQ(format_number(std::nan(""), 6), "nan");
  std::string s = "t = ";
  append_number(s, 1e9, 6);
  EXPECT_EQ(s, "t = 1e+09");
}

TEST(Format, PointsAreParenthesisedTriples) {
  EXPECT_EQ(format_point(Eigen::Vector3d(5, 0, -0.0)), "(5, 0, 0)");
  EXPECT_EQ(format_point(Eigen::Vector3d(1.0 / 3.0, -2, 1e-12), 3), "(0.333, -2, 1e-12)");
}

// core is the bottom layer: its sources and headers include no other module's headers.
TEST(Format, CoreIncludesNoOtherModule) {
  const std::filesystem::path root(TENDYN_SOURCE_DIR);
  int files = 0;
  for (const auto& dir : {root / "src" / "core", root / "include" / "tendyn" / "core"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(e.path());
      std::string line;
      int n = 0;
      ++files;
      while (std::getline(in, line)) {
        ++n;
        if (line.rfind("#include", 0) != 0) continue;
        const bool other = line.find("<tendyn/") != std::string::npos && line.find("<tendyn/core/") == std::string::npos;
        EXPECT_FALSE(other) << e.path().string() << ":" << n << ": " << line;
      }
    }
  }
  EXPECT_GE(files, 8);
}

}  // namespace
}  // namespace tendyn
