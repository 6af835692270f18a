// Minimal XML reader for URDF files: elements, attributes, comments, declarations and CDATA
// (skipped); text content is ignored. Every element keeps its 1-based line for messages.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::tree::xml {

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<Element> children;
  int line = 0;

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

/// Parses `text`; throws tendyn::Error "<file>:<line>: XML error: ..." on malformed input.
Element parse(const std::string& text, const std::string& file);

}  // namespace tendyn::tree::xml
