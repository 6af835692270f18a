// Minimal XML reader for URDF files: elements, attributes, comments, declarations and CDATA
// (skipped); text content is ignored. Every element keeps its 1-based line and column for
// messages. Bounded: see the limits below (docs/TREE.md, "Limits").
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::io::xml {

/// Deepest element nesting accepted (a URDF needs 4: robot/link/inertial/mass). The parser is
/// iterative; the limit keeps the element tree (whose destructor recurses) and messages sane.
constexpr int kMaxDepth = 256;
/// Most elements in one document (a URDF of kMaxLinks links needs about 15 per link).
constexpr std::size_t kMaxElements = 250000;
/// Largest document [bytes].
constexpr std::size_t kMaxBytes = 64u << 20;
/// Most attributes of one element (a URDF element has at most 6).
constexpr std::size_t kMaxAttributes = 256;
/// Longest attribute value [bytes, as written] (a URDF value is a few numbers or a file name).
constexpr std::size_t kMaxAttributeBytes = 64u << 10;

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<Element> children;
  int line = 0;  ///< 1-based line of the '<' that opens the element
  int col = 0;   ///< 1-based column (byte) of that '<'

  [[nodiscard]] std::optional<std::string> attr(const std::string& key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return v;
    return std::nullopt;
  }
  [[nodiscard]] const Element* child(const std::string& n) const {
    for (const auto& c : children)
      if (c.name == n) return &c;
    return nullptr;
  }
};

/// Parses `text`; throws tendyn::Error "<file>:<line>:<col>: XML error: ..." on malformed input
/// and when a limit above is exceeded (the message names the limit).
Element parse(const std::string& text, const std::string& file);

}  // namespace tendyn::io::xml
