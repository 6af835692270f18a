// Validated reading of YAML model files (yaml-cpp). Every error names the file, the line and
// column (1-based) and the field path, e.g.
//   models/prism.yaml:12:5: cables[3].stiffness: must be > 0 (got -10)
// Used by all model-file readers (tensegrity, CDPR, tree) so they report errors alike.
// Private header (not installed): yaml-cpp is a private dependency of the library (the sweep-spec
// reader, src/tensegrity/sweep.cpp, uses it too; the program does not see it).
#pragma once
#include <yaml-cpp/yaml.h>

#include <Eigen/Core>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::io {

/// Offset of the first byte of `text` that is not part of valid UTF-8 (overlong forms, surrogates
/// and code points above U+10FFFF are invalid), or npos.
std::size_t first_invalid_utf8(std::string_view text);
/// "<line>:<col>" (1-based, col in bytes) of byte `offset` of `text`.
std::string text_place(std::string_view text, std::size_t offset);
/// Throws tendyn::Error "<name>:<line>:<col>: not UTF-8 (byte 0xE9); ..." at the first invalid byte.
void require_utf8(std::string_view text, const std::string& name);
/// Throws tendyn::Error "<file>: is a directory, not a file" or "<file>: no such file".
void require_readable_file(const std::string& file);

/// Counts the YAML nodes (scalars, lists, mappings; an alias counts once) of the first document
/// of `text` with yaml-cpp's event parser, without building a tree, and throws tendyn::Error
/// "<name>:<line>:<col>: more than <limit> YAML nodes (values, lists and mappings), the limit of
/// <what>" at the first node past `limit`. A syntax error is left to the reader that follows
/// (nothing is thrown for it here). Cost O(length of the text read), memory O(1) in the nodes.
void require_yaml_node_count(const std::string& text, const std::string& name, std::size_t limit,
                             const std::string& what = "a YAML input (docs/MODEL_FORMAT.md, limits)");

/// A cheap upper bound of the YAML nodes of `text` (one pass over the bytes, no parsing): every
/// node sits next to a structure mark (, [ ] { } - : ? or a line end), at most three per mark.
/// Never throws.
std::size_t yaml_node_bound(std::string_view text);

/// A YAML node together with where it came from: file name and field path for messages.
class YamlNode {
 public:
  YamlNode(YAML::Node node, std::string file, std::string path);

  /// Largest YAML input file accepted by load_file (yaml-cpp parses ~3 MB/s: 16 MiB is ~5 s).
  static constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{16} << 20;
  /// Most YAML nodes (scalars, lists, mappings; an alias counts once) of one input: yaml-cpp
  /// keeps about 0.5 KB per node, so a 14 MB file of a 7-million-entry list took 3.3 GB; at the
  /// limit the tree is about 1 GB. A model of 100,000 cables with their nodes and rods stays
  /// well below it. Counted by yaml-cpp's event parser, which stops at the limit, before the tree
  /// is built; only when yaml_node_bound() is above the limit (the count costs a few
  /// microseconds per node: seconds for a text that reaches the limit, nothing for a model file).
  static constexpr std::size_t kMaxNodes = 2000000;
  /// Loads a file; throws tendyn::Error "<file>: cannot read", "<file>: ... larger than the
  /// 16 MiB limit", "<file>:<line>:<col>: more than 2000000 YAML nodes ..." or
  /// "<file>:<line>:<col>: YAML syntax error: ...".
  static YamlNode load_file(const std::string& file);
  /// Parses text; `name` stands for the file name in messages. Same limits as load_file but the
  /// size (kMaxNodes).
  static YamlNode load_string(const std::string& text, const std::string& name);

  [[nodiscard]] bool has(const std::string& key) const;
  /// Child by key; throws "missing field" if absent.
  [[nodiscard]] YamlNode at(const std::string& key) const;
  /// Child by key, or nullopt if absent (or null).
  [[nodiscard]] std::optional<YamlNode> get(const std::string& key) const;
  /// Element i of a sequence.
  [[nodiscard]] YamlNode operator[](std::size_t i) const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  [[nodiscard]] bool is_sequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }
  [[nodiscard]] std::vector<std::string> keys() const;

  /// Throws if this is not a map, or if it has a key not in `allowed` ("unknown field 'x'").
  void require_keys(std::initializer_list<const char*> allowed) const;
  void require_map() const;
  void require_sequence() const;
  /// A list of at most `max_entries` entries ("has N entries; at most M are accepted").
  void require_sequence(std::size_t max_entries) const;

  /// Scalar readers. Numbers must be finite (NaN/inf rejected with the field named).
  [[nodiscard]] double as_double() const;
  [[nodiscard]] int as_int() const;
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] std::string as_string() const;
  /// Fixed-size numeric vector, e.g. [x, y, z]; wrong length is an error.
  [[nodiscard]] Eigen::VectorXd as_vector(int expected_size = -1) const;
  /// Numeric matrix given as a list of equal-length rows.
  [[nodiscard]] Eigen::MatrixXd as_matrix(int rows = -1, int cols = -1) const;

  /// Convenience: optional scalar with default.
  [[nodiscard]] double get_double(const std::string& key, double fallback) const;
  [[nodiscard]] bool get_bool(const std::string& key, bool fallback) const;
  [[nodiscard]] std::string get_string(const std::string& key, const std::string& fallback) const;

  /// Throws tendyn::Error "<file>:<line>:<col>: <path>: <message>".
  [[noreturn]] void fail(const std::string& message) const;
  /// "<file>:<line>:<col>: <path>" for composing messages.
  [[nodiscard]] std::string where() const;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const YAML::Node& raw() const { return node_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

}  // namespace tendyn::io
