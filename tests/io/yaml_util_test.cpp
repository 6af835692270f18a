// The validated YAML reader shared by every model file: places (file:line:col: path), numbers for
// messages, UTF-8 checks, bounded lists and files.
#include <gtest/gtest.h>

#include "io/yaml_util.hpp"
#include "support/cli_run.hpp"
#include "support/error_of.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>

namespace {

using tendyn::io::YamlNode;
using tendyn::test::error_of;

TEST(YamlUtil, InvalidUtf8IsFoundAndPlaced) {
  EXPECT_EQ(tendyn::io::first_invalid_utf8("name: caf\xC3\xA9\n"), std::string_view::npos);
  EXPECT_EQ(tendyn::io::first_invalid_utf8("name: caf\xE9\n"), 9u);  // Latin-1
  EXPECT_EQ(tendyn::io::first_invalid_utf8("\xC0\xAF"), 0u);         // overlong '/'
  EXPECT_EQ(tendyn::io::first_invalid_utf8("\xED\xA0\x80"), 0u);     // surrogate
  EXPECT_EQ(tendyn::io::text_place("a\nbc\xE9", 4), "2:3");
  EXPECT_EQ(error_of([] { (void)YamlNode::load_string("a: 1\nname: caf\xE9\n", "m.yaml"); }).rfind("m.yaml:2:10: not UTF-8 (byte 0xE9)", 0),
            0u);
}

TEST(YamlUtil, FieldsNameTheirPlaceAndPath) {
  const YamlNode root = YamlNode::load_string("cables:\n  - {id: a, stiffness: -1}\n  - {id: b, stiffness: .inf}\n", "m.yaml");
  const YamlNode c = root.at("cables");
  c.require_sequence();
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(error_of([&] { c[0].at("stiffness").fail("must be > 0 (got -1)"); }), "m.yaml:2:24: cables[0].stiffness: must be > 0 (got -1)");
  EXPECT_NE(error_of([&] { (void)c[1].at("stiffness").as_double(); }).find("cables[1].stiffness"), std::string::npos);
  EXPECT_EQ(error_of([&] { c.require_sequence(1); }),
            "m.yaml:2:3: cables: has 2 entries; at most 1 are accepted (docs/MODEL_FORMAT.md, limits)");
  EXPECT_EQ(error_of([&] { c[0].require_keys({"id"}); }).find("unknown field 'stiffness'") != std::string::npos, true);
  EXPECT_EQ(error_of([&] { (void)root.at("rods"); }), "m.yaml:1:1: missing field 'rods'");
}

TEST(YamlUtil, FilesAreBoundedAndDirectoriesNamed) {
  const auto d = tendyn::test::fresh_dir("io_yaml_util");
  EXPECT_EQ(error_of([&] { (void)YamlNode::load_file(d.string()); }), d.string() + ": is a directory, not a file");
  EXPECT_EQ(error_of([&] { (void)YamlNode::load_file((d / "none.yaml").string()); }), (d / "none.yaml").string() + ": no such file");
  std::ofstream(d / "big.yaml") << std::string(YamlNode::kMaxFileBytes + 1, '#');
  EXPECT_NE(error_of([&] { (void)YamlNode::load_file((d / "big.yaml").string()); }).find("larger than the 16 MiB limit"),
            std::string::npos);
  std::filesystem::remove_all(d);
}

// Before: a 14 MB model of a 7-million-entry list took 3.3 GB in yaml-cpp's tree (an out of
// memory exit 4 under a cap). The nodes are now counted by the event parser, which stops at the
// limit, before any tree is built (the full-size case runs under a memory cap in
// tests/cli/limits_cli_test.cpp, WorkLimits.YamlNodeCountIsBoundedBeforeTheTreeIsBuilt).
TEST(YamlUtil, NodeCountIsBoundedBeforeTheTreeIsBuilt) {
  using tendyn::io::require_yaml_node_count;
  using tendyn::io::yaml_node_bound;
  // root seq + 5 entries = 6 nodes; the 6th is entry 5 at column 10
  EXPECT_NO_THROW(require_yaml_node_count("[0,0,0,0,0]", "m.yaml", 6));
  EXPECT_EQ(error_of([] { require_yaml_node_count("[0,0,0,0,0]", "m.yaml", 5, "a test"); }),
            "m.yaml:1:10: more than 5 YAML nodes (values, lists and mappings), the limit of a test");
  EXPECT_EQ(error_of([] { require_yaml_node_count("a: 1\nb: {c: [1, 2]}\n", "m.yaml", 6); }),
            "m.yaml:2:8: more than 6 YAML nodes (values, lists and mappings), the limit of a YAML input (docs/MODEL_FORMAT.md, limits)");
  EXPECT_NO_THROW(require_yaml_node_count("a: [\n", "m.yaml", 1000));  // a syntax error is the reader's to report
  // the cheap bound is above the count for dense and block texts alike
  for (const char* t : {"[0,0,0,0,0]", "{a, b}", "[?,?]", "- - - a\n", "a: 1\nb: 2\n", "abc", "{a: b, c: d}"}) {
    std::size_t n = 0;
    while (true) {
      const std::string msg = error_of([&] { require_yaml_node_count(t, "m.yaml", n); });
      if (msg.empty()) break;
      ++n;
    }
    EXPECT_GE(yaml_node_bound(t), n) << t;
  }
  // a model file far below the limit is not counted at all; a file that reaches it is refused
  // with the place of the first node past it
  std::string text = "tendyn: tensegrity\ndescription: [0";
  for (int k = 1; k < 2000010; ++k) text += ",0";
  text += "]\n";
  const std::string msg = error_of([&] { (void)YamlNode::load_string(text, "m.yaml"); });
  EXPECT_EQ(msg,
            "m.yaml:2:4000005: more than 2000000 YAML nodes (values, lists and mappings), the limit of a YAML input "
            "(docs/MODEL_FORMAT.md, limits)");
}

}  // namespace
