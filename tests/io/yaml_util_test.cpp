// The validated YAML reader shared by every model file: places (file:line:col: path), numbers for
// messages, UTF-8 checks, bounded lists and files.
#include <gtest/gtest.h>

#include "io/yaml_util.hpp"
#include "support/cli_run.hpp"
#include "support/error_of.hpp"

#include <filesystem>
#include <fstream>
#include <limits>

namespace {

using tendyn::io::YamlNode;
using tendyn::test::error_of;

TEST(YamlUtil, NumbersForMessagesAreShort) {
  EXPECT_EQ(tendyn::io::num(std::numeric_limits<double>::max()), "1.79769e+308");  // not 309 digits
  EXPECT_EQ(tendyn::io::num(0.25), "0.25");
}

TEST(YamlUtil, InvalidUtf8IsFoundAndPlaced) {
  EXPECT_EQ(tendyn::io::first_invalid_utf8("name: caf\xC3\xA9\n"), std::string_view::npos);
  EXPECT_EQ(tendyn::io::first_invalid_utf8("name: caf\xE9\n"), 9u);       // Latin-1
  EXPECT_EQ(tendyn::io::first_invalid_utf8("\xC0\xAF"), 0u);              // overlong '/'
  EXPECT_EQ(tendyn::io::first_invalid_utf8("\xED\xA0\x80"), 0u);          // surrogate
  EXPECT_EQ(tendyn::io::text_place("a\nbc\xE9", 4), "2:3");
  EXPECT_EQ(error_of([] { (void)YamlNode::load_string("a: 1\nname: caf\xE9\n", "m.yaml"); }).rfind("m.yaml:2:10: not UTF-8 (byte 0xE9)", 0), 0u);
}

TEST(YamlUtil, FieldsNameTheirPlaceAndPath) {
  const YamlNode root = YamlNode::load_string("cables:\n  - {id: a, stiffness: -1}\n  - {id: b, stiffness: .inf}\n", "m.yaml");
  const YamlNode c = root.at("cables");
  c.require_sequence();
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(error_of([&] { c[0].at("stiffness").fail("must be > 0 (got -1)"); }), "m.yaml:2:24: cables[0].stiffness: must be > 0 (got -1)");
  EXPECT_NE(error_of([&] { (void)c[1].at("stiffness").as_double(); }).find("cables[1].stiffness"), std::string::npos);
  EXPECT_EQ(error_of([&] { c.require_sequence(1); }), "m.yaml:2:3: cables: has 2 entries; at most 1 are accepted (docs/MODEL_FORMAT.md, limits)");
  EXPECT_EQ(error_of([&] { c[0].require_keys({"id"}); }).find("unknown field 'stiffness'") != std::string::npos, true);
  EXPECT_EQ(error_of([&] { (void)root.at("rods"); }), "m.yaml:1:1: missing field 'rods'");
}

TEST(YamlUtil, FilesAreBoundedAndDirectoriesNamed) {
  const auto d = tendyn::test::fresh_dir("io_yaml_util");
  EXPECT_EQ(error_of([&] { (void)YamlNode::load_file(d.string()); }), d.string() + ": is a directory, not a file");
  EXPECT_EQ(error_of([&] { (void)YamlNode::load_file((d / "none.yaml").string()); }), (d / "none.yaml").string() + ": no such file");
  std::ofstream(d / "big.yaml") << std::string(YamlNode::kMaxFileBytes + 1, '#');
  EXPECT_NE(error_of([&] { (void)YamlNode::load_file((d / "big.yaml").string()); }).find("larger than the 16 MiB limit"), std::string::npos);
  std::filesystem::remove_all(d);
}

}  // namespace
