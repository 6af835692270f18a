// Bounded readers end to end (issue 15): inputs past a reader's limit exit 2 with the place and
// the limit, never crash. The files are generated in a fresh temporary directory.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run;

#ifdef TENDYN_WITH_TREE
// Before: a 350 KB URDF of 50,000 nested elements overflowed the recursive reader's stack and
// `tendyn tree info deep.urdf` exited 139.
TEST(ReaderLimits, DeeplyNestedUrdfExits2WithPlaceAndLimit) {
  const auto dir = fresh_dir("deep_urdf");
  const auto file = dir / "deep.urdf";
  {
    std::ofstream f(file);
    f << "<robot name=\"deep\">\n<link name=\"a\">\n";
    for (int k = 0; k < 50000; ++k) f << "<x>";
    for (int k = 0; k < 50000; ++k) f << "</x>";
    f << "</link>\n</robot>\n";
  }
  const auto r = run("tree info " + file.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("deep.urdf:3:763: XML error: elements nested deeper than the limit of 256"),
            std::string::npos)
      << r.out;
}

// Before: tree models above ~50k links ended in bad_alloc (exit 4).
TEST(ReaderLimits, TooManyTreeLinksExit2WithTheLimit) {
  const auto dir = fresh_dir("many_links");
  const auto file = dir / "chain.yaml";
  {
    std::ofstream f(file);
    f << "name: chain\nlinks:\n";
    for (int i = 0; i < 5000; ++i)
      f << "  - {name: l" << i << ", parent: " << (i ? "l" + std::to_string(i - 1) : "world")
        << ", joint: {type: revolute}, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n";
  }
  const auto r = run("tree info " + file.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("chain.yaml:3:3: links: 5000 links, more than the limit of 4096"),
            std::string::npos)
      << r.out;
}
#endif

TEST(ReaderLimits, LargeTensegrityModelsExit2BeforeReading) {
  const auto d = fresh_dir("limits_tensegrity");
  // 100,001 cables (flow list: parsed in a fraction of a second) and a 17 MiB file
  std::ofstream many(d / "many.yaml");
  many << "tendyn: tensegrity\nnodes: [{id: a, position: [0, 0, 0]}, {id: b, position: [0, 0, 1]}]\n"
          "rods: [{id: r, mass: 1, length: 1, nodes: [a, b]}]\ncables: [0";
  for (int i = 0; i < 100000; ++i) many << ",0";
  many << "]\n";
  many.close();
  auto r = run("validate " + (d / "many.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("many.yaml:4:9: cables: has 100001 entries; at most 100000 are accepted"), std::string::npos) << r.out;
  std::ofstream(d / "big.yaml") << "tendyn: tensegrity\n# " << std::string(17u << 20, 'x') << "\n";
  r = run("simulate " + (d / "big.yaml").string() + " -o " + (d / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("larger than the 16 MiB limit of YAML input files"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(d / "out"));
  std::filesystem::remove_all(d);
}

}  // namespace
