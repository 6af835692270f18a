#include "io/yaml_util.hpp"

#include <tendyn/core/error.hpp>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tendyn::io {

namespace {
std::string mark_string(const YAML::Mark& m) {
  if (m.line < 0) return "";
  return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}
}  // namespace

std::size_t first_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = p[i];
    std::size_t len = 0;
    unsigned min = 0;
    if (c < 0x80)
      len = 1;
    else if ((c & 0xE0) == 0xC0)
      len = 2, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
      len = 3, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
      len = 4, min = 0x10000;
    else
      return i;
    if (i + len > n) return i;
    unsigned cp = len == 1 ? c : c & (0x7Fu >> len);
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;  // overlong, out of range, surrogate
    i += len;
  }
  return std::string_view::npos;
}

std::string text_place(std::string_view s, std::size_t offset) {
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  const std::size_t nl = s.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t col = nl == std::string_view::npos || (offset == 0) ? offset + 1 : offset - nl;
  return std::to_string(line) + ":" + std::to_string(col);
}

void require_utf8(std::string_view text, const std::string& name) {
  const std::size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
  throw Error(name + ":" + text_place(text, bad) + ": not UTF-8 (byte " + hex +
              "); model files must be UTF-8 text (re-save the file as UTF-8)");
}

void require_readable_file(const std::string& file) {
  std::error_code ec;
  const auto st = std::filesystem::status(file, ec);
  if (std::filesystem::is_directory(st)) throw Error(file + ": is a directory, not a file");
  if (!std::filesystem::exists(st)) throw Error(file + ": no such file");
}

YamlNode::YamlNode(YAML::Node node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {}  // (YAML::Node has no move constructor)

namespace {
// Counts the nodes of the first document and throws at kMaxNodes + 1, before any tree exists.
class NodeCounter final : public YAML::EventHandler {
 public:
  NodeCounter(const std::string& name, std::size_t limit, const std::string& what) : name_(name), what_(what), limit_(limit) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { count(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { count(m); }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { count(m); }
  void OnMapEnd() override {}

 private:
  void count(const YAML::Mark& m) {
    if (++n_ <= limit_) return;
    const auto where = mark_string(m);
    throw Error(name_ + (where.empty() ? "" : ":" + where) + ": more than " + std::to_string(limit_) +
                " YAML nodes (values, lists and mappings), the limit of " + what_);
  }
  const std::string& name_;
  const std::string& what_;
  std::size_t limit_;
  std::size_t n_ = 0;
};
}  // namespace

void require_yaml_node_count(const std::string& text, const std::string& name, std::size_t limit, const std::string& what) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    NodeCounter counter(name, limit, what);
    parser.HandleNextDocument(counter);
  } catch (const YAML::Exception&) {
    // a syntax error: the reader that follows reports it with its place
  }
}

std::size_t yaml_node_bound(std::string_view text) {
  std::size_t marks = 0;
  for (const char c : text)
    marks += c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == '-' || c == ':' || c == '?' || c == '\n';
  return 3 * marks + 3;
}

YamlNode YamlNode::load_string(const std::string& text, const std::string& name) {
  require_utf8(text, name);
  try {
    // the exact count (yaml-cpp's event parser, a few microseconds per node) only when the cheap
    // bound says the limit is within reach
    if (yaml_node_bound(text) > kMaxNodes) require_yaml_node_count(text, name, kMaxNodes);
    YAML::Node n = YAML::Load(text);
    if (!n || n.IsNull()) throw Error(name + ": empty model file");
    return YamlNode(n, name, "");
  } catch (const YAML::Exception& e) {
    std::string where = name;
    const auto m = mark_string(e.mark);
    if (!m.empty()) where += ":" + m;
    throw Error(where + ": YAML syntax error: " + e.msg);
  }
}

YamlNode YamlNode::load_file(const std::string& file) {
  require_readable_file(file);
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(file, ec);
  if (!ec && bytes > kMaxFileBytes)
    throw Error(file + ": " + std::to_string(bytes) + " bytes, larger than the " + std::to_string(kMaxFileBytes >> 20) +
                " MiB limit of YAML input files (docs/MODEL_FORMAT.md, limits)");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_string(ss.str(), file);
}

std::string YamlNode::where() const {
  std::string w = file_;
  const auto m = mark_string(node_.Mark());
  if (!m.empty()) w += ":" + m;
  if (!path_.empty()) w += ": " + path_;
  return w;
}

void YamlNode::fail(const std::string& message) const { throw Error(where() + ": " + message); }

void YamlNode::require_map() const {
  if (!node_.IsMap()) fail("expected a mapping (key: value)");
}
void YamlNode::require_sequence() const {
  if (!node_.IsSequence()) fail("expected a list");
}
void YamlNode::require_sequence(std::size_t max_entries) const {
  require_sequence();
  if (node_.size() > max_entries)
    fail("has " + std::to_string(node_.size()) + " entries; at most " + std::to_string(max_entries) +
         " are accepted (docs/MODEL_FORMAT.md, limits)");
}

bool YamlNode::has(const std::string& key) const { return node_.IsMap() && node_[key] && !node_[key].IsNull(); }

YamlNode YamlNode::at(const std::string& key) const {
  require_map();
  const YAML::Node child = node_[key];
  if (!child || child.IsNull()) fail("missing field '" + key + "'");
  return YamlNode(child, file_, path_.empty() ? key : path_ + "." + key);
}

std::optional<YamlNode> YamlNode::get(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

YamlNode YamlNode::operator[](std::size_t i) const {
  require_sequence();
  if (i >= node_.size()) fail("index " + std::to_string(i) + " out of range");
  return YamlNode(node_[i], file_, path_ + "[" + std::to_string(i) + "]");
}

std::size_t YamlNode::size() const { return node_.size(); }

std::vector<std::string> YamlNode::keys() const {
  require_map();
  std::vector<std::string> out;
  for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
  return out;
}

void YamlNode::require_keys(std::initializer_list<const char*> allowed) const {
  require_map();
  std::vector<std::string> seen;
  for (const auto& kv : node_) {
    const auto key = kv.first.Scalar();
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      YamlNode(kv.first, file_, path_.empty() ? key : path_ + "." + key).fail("duplicate field '" + key + "'");
    seen.push_back(key);
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      YamlNode(kv.first, file_, path_.empty() ? key : path_ + "." + key).fail("unknown field '" + key + "' (allowed: " + list + ")");
    }
  }
}

double YamlNode::as_double() const {
  if (!node_.IsScalar()) fail("expected a number");
  double v = 0.0;
  try {
    v = node_.as<double>();
  } catch (const YAML::Exception&) {
    fail("expected a number, got '" + node_.Scalar() + "'");
  }
  if (!std::isfinite(v)) fail("must be a finite number (got '" + node_.Scalar() + "')");
  return v;
}

int YamlNode::as_int() const {
  if (!node_.IsScalar()) fail("expected an integer");
  try {
    return node_.as<int>();
  } catch (const YAML::Exception&) {
    fail("expected an integer, got '" + node_.Scalar() + "'");
  }
}

bool YamlNode::as_bool() const {
  if (!node_.IsScalar()) fail("expected true or false");
  try {
    return node_.as<bool>();
  } catch (const YAML::Exception&) {
    fail("expected true or false, got '" + node_.Scalar() + "'");
  }
}

std::string YamlNode::as_string() const {
  if (!node_.IsScalar()) fail("expected a string");
  return node_.Scalar();
}

Eigen::VectorXd YamlNode::as_vector(int expected_size) const {
  require_sequence();
  const int n = static_cast<int>(node_.size());
  if (expected_size >= 0 && n != expected_size) fail("expected " + std::to_string(expected_size) + " numbers, got " + std::to_string(n));
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = (*this)[static_cast<std::size_t>(i)].as_double();
  return v;
}

Eigen::MatrixXd YamlNode::as_matrix(int rows, int cols) const {
  require_sequence();
  const int r = static_cast<int>(node_.size());
  if (rows >= 0 && r != rows) fail("expected " + std::to_string(rows) + " rows, got " + std::to_string(r));
  if (r == 0) return Eigen::MatrixXd(0, cols < 0 ? 0 : cols);
  const int c = cols >= 0 ? cols : static_cast<int>((*this)[0].size());
  Eigen::MatrixXd m(r, c);
  for (int i = 0; i < r; ++i) m.row(i) = (*this)[static_cast<std::size_t>(i)].as_vector(c).transpose();
  return m;
}

double YamlNode::get_double(const std::string& key, double fallback) const {
  auto c = get(key);
  return c ? c->as_double() : fallback;
}
bool YamlNode::get_bool(const std::string& key, bool fallback) const {
  auto c = get(key);
  return c ? c->as_bool() : fallback;
}
std::string YamlNode::get_string(const std::string& key, const std::string& fallback) const {
  auto c = get(key);
  return c ? c->as_string() : fallback;
}

}  // namespace tendyn::io
