// The URDF reader's XML layer (src/io/xml_lite.cpp): positions in messages and the limits
// (nesting depth, element count, document size). Before issue 15 the reader was recursive and a
// 350 KB file of 50,000 nested elements overflowed the stack (exit 139, Python killed).
#include <tendyn/core/error.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/error_of.hpp"
#include "io/xml_lite.hpp"

namespace tendyn::io::xml {
namespace {

using test::error_of;

std::string nested(int depth) {
  std::string s;
  for (int k = 0; k < depth; ++k) s += "<e>";
  for (int k = 0; k < depth; ++k) s += "</e>";
  return s;
}

TEST(Xml, ElementsKeepLineAndColumnAndNesting) {
  const Element root = parse(
      "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <link name=\"a\">\n"
      "    <!-- c --><inertial/><![CDATA[ <x> ]]>\n  </link>\n"
      "  <joint name='j' type=\"fixed\"/>\n</robot>\n",
      "t.urdf");
  EXPECT_EQ(root.name, "robot");
  EXPECT_EQ(root.line, 2);
  EXPECT_EQ(root.col, 1);
  ASSERT_EQ(root.children.size(), 2u);
  const Element& link = root.children[0];
  EXPECT_EQ(link.line, 3);
  EXPECT_EQ(link.col, 3);
  ASSERT_EQ(link.children.size(), 1u);
  EXPECT_EQ(link.children[0].name, "inertial");
  EXPECT_EQ(link.children[0].line, 4);
  EXPECT_EQ(link.children[0].col, 15);
  EXPECT_EQ(root.children[1].attr("type").value_or(""), "fixed");
  EXPECT_EQ(root.children[1].line, 6);
}

TEST(Xml, MalformedInputNamesLineAndColumn) {
  std::string e = error_of([] { (void)parse("<robot>\n  <link name=\"a\">\n</robot>", "t.urdf"); });
  EXPECT_NE(e.find("t.urdf:3:1: XML error: </robot> closes <link> (opened at 2:3)"), std::string::npos) << e;
  e = error_of([] { (void)parse("<robot>\n  <link name=a/>\n</robot>", "t.urdf"); });
  EXPECT_NE(e.find("t.urdf:2:14: XML error: attribute value must be quoted"), std::string::npos) << e;
  e = error_of([] { (void)parse("<robot><link/>", "t.urdf"); });
  EXPECT_NE(e.find("t.urdf:1:15: XML error: missing </robot>"), std::string::npos) << e;
  e = error_of([] { (void)parse("<robot/><robot/>", "t.urdf"); });
  EXPECT_NE(e.find("t.urdf:1:9: XML error: content after the root element"), std::string::npos) << e;
  e = error_of([] { (void)parse("", "t.urdf"); });
  EXPECT_NE(e.find("t.urdf:1:1: XML error: expected a root element"), std::string::npos) << e;
}

TEST(Xml, NestingUpToTheLimitIsReadDeeperIsAnError) {
  Element e = parse(nested(kMaxDepth), "t.urdf");
  int depth = 1;
  for (const Element* p = &e; !p->children.empty(); p = &p->children[0]) ++depth;
  EXPECT_EQ(depth, kMaxDepth);
  const std::string msg = error_of([] { (void)parse(nested(kMaxDepth + 1), "t.urdf"); });
  EXPECT_NE(msg.find("t.urdf:1:" + std::to_string(3 * kMaxDepth + 1) + ": XML error: elements nested deeper than the limit of 256"),
            std::string::npos)
      << msg;
}

TEST(Xml, FiftyThousandNestedElementsAreAnErrorNotACrash) {
  const std::string msg = error_of([] { (void)parse(nested(50000), "deep.urdf"); });
  EXPECT_NE(msg.find("deep.urdf:1:769: XML error: elements nested deeper than the limit of 256"), std::string::npos) << msg;
}

TEST(Xml, ElementCountAndSizeLimits) {
  std::string flat = "<robot>";
  for (std::size_t k = 0; k + 1 < kMaxElements; ++k) flat += "<a/>";
  EXPECT_NO_THROW((void)parse(flat + "</robot>", "t.urdf"));
  std::string msg = error_of([&] { (void)parse(flat + "<a/></robot>", "t.urdf"); });
  EXPECT_NE(msg.find("more than the limit of 250000 elements"), std::string::npos) << msg;
  msg = error_of([] { (void)parse("<r>" + std::string(kMaxBytes, ' ') + "</r>", "big.urdf"); });
  EXPECT_NE(msg.find("big.urdf: XML error: document of 67108871 bytes is larger than the limit of "
                     "67108864 bytes"),
            std::string::npos)
      << msg;
}

// Before: duplicate attributes were found by scanning the element's list, quadratic in the
// attributes of one element (160,000 attributes, 1.8 MB: 40 s), and there was no bound.
TEST(Xml, AttributesPerElementAreBoundedAndCheckedInLinearTime) {
  const auto element = [](std::size_t n) {
    std::string s = "<robot";
    for (std::size_t k = 0; k < n; ++k) s += " a" + std::to_string(k) + "=\"1\"";
    return s + "/>";
  };
  const Element root = parse(element(kMaxAttributes), "t.urdf");
  ASSERT_EQ(root.attrs.size(), kMaxAttributes);
  EXPECT_EQ(root.attr("a255"), "1");
  std::string msg = error_of([&] { (void)parse(element(kMaxAttributes + 1), "t.urdf"); });
  EXPECT_NE(msg.find("t.urdf:1:2202: XML error: <robot> has more than the limit of 256 attributes"), std::string::npos) << msg;
  const auto t0 = std::chrono::steady_clock::now();
  msg = error_of([&] { (void)parse(element(160000), "t.urdf"); });
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_NE(msg.find("more than the limit of 256 attributes"), std::string::npos) << msg;
  // duplicates are still found, with the place
  msg = error_of([] { (void)parse("<a x=\"1\" y=\"2\"\n x=\"3\"/>", "t.urdf"); });
  EXPECT_NE(msg.find("t.urdf:2:2: XML error: duplicate attribute 'x' in <a>"), std::string::npos) << msg;
}

// Before: one 60 MiB attribute value took 1.2 GB (copies while decoding).
TEST(Xml, AttributeValueLengthIsBounded) {
  const std::string ok = "<a v=\"" + std::string(kMaxAttributeBytes, '1') + "\"/>";
  EXPECT_EQ(parse(ok, "t.urdf").attr("v")->size(), kMaxAttributeBytes);
  const std::string msg = error_of([] { (void)parse("<a\n  v=\"" + std::string(kMaxAttributeBytes + 1, '1') + "\"/>", "t.urdf"); });
  EXPECT_NE(msg.find("t.urdf:2:3: XML error: attribute 'v' of <a> is 65537 bytes long, more than the limit of 65536 bytes"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace tendyn::io::xml
