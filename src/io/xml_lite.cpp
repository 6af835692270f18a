#include "xml_lite.hpp"

#include <tendyn/core/error.hpp>

#include <cctype>
#include <string_view>
#include <unordered_set>

namespace tendyn::io::xml {

namespace {

// Iterative: open elements live on an explicit stack, so nesting depth costs heap, not the call
// stack (a recursive reader overflowed the stack at ~50,000 nested elements).
class Parser {
 public:
  Parser(const std::string& t, const std::string& f) : s_(t), file_(f) {}

  Element document() {
    if (s_.size() > kMaxBytes)
      throw Error(file_ + ": XML error: document of " + std::to_string(s_.size()) + " bytes is larger than the limit of " +
                  std::to_string(kMaxBytes) + " bytes");
    skip_misc();
    if (pos_ >= s_.size() || s_[pos_] != '<') fail("expected a root element");
    std::vector<Element> open;  // open[0] is the root
    open.reserve(16);
    for (;;) {
      // At a '<' that opens an element.
      if (open.size() >= static_cast<std::size_t>(kMaxDepth)) fail("elements nested deeper than the limit of " + std::to_string(kMaxDepth));
      if (++elements_ > kMaxElements) fail("more than the limit of " + std::to_string(kMaxElements) + " elements");
      Element el = start_tag();
      if (!self_closed_) {
        open.push_back(std::move(el));
      } else if (open.empty()) {
        return finish(std::move(el));
      } else {
        open.back().children.push_back(std::move(el));
      }
      // Content of the innermost open element until a child opens or elements close.
      for (;;) {
        while (pos_ < s_.size() && s_[pos_] != '<') advance();  // text is ignored
        if (pos_ >= s_.size()) fail("missing </" + open.back().name + ">");
        if (starts("<!--")) {
          skip_until("-->");
        } else if (starts("<![CDATA[")) {
          skip_until("]]>");
        } else if (starts("<?")) {
          skip_until("?>");
        } else if (starts("</")) {
          const int tag_line = line_, tag_col = col_;
          advance(2);
          const std::string n = name();
          if (n != open.back().name)
            fail_at(tag_line, tag_col,
                    "</" + n + "> closes <" + open.back().name + "> (opened at " + std::to_string(open.back().line) + ":" +
                        std::to_string(open.back().col) + ")");
          skip_ws();
          if (pos_ >= s_.size() || s_[pos_] != '>') fail("expected '>'");
          advance();
          Element done = std::move(open.back());
          open.pop_back();
          if (open.empty()) return finish(std::move(done));
          open.back().children.push_back(std::move(done));
        } else {
          break;  // a child element opens
        }
      }
    }
  }

 private:
  const std::string& s_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  std::size_t elements_ = 0;
  bool self_closed_ = false;

  Element finish(Element root) {
    skip_misc();
    if (pos_ < s_.size()) fail("content after the root element");
    return root;
  }
  [[noreturn]] void fail(const std::string& msg) const { fail_at(line_, col_, msg); }
  [[noreturn]] void fail_at(int line, int col, const std::string& msg) const {
    throw Error(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": XML error: " + msg);
  }
  void advance(std::size_t n = 1) {
    for (std::size_t k = 0; k < n && pos_ < s_.size(); ++k, ++pos_) {
      if (s_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }
  bool starts(const char* p) const { return s_.compare(pos_, std::char_traits<char>::length(p), p) == 0; }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) advance();
  }
  void skip_until(const char* end) {
    const std::size_t e = s_.find(end, pos_);
    if (e == std::string::npos) fail(std::string("unterminated construct, missing '") + end + "'");
    advance(e - pos_ + std::char_traits<char>::length(end));
  }
  // Whitespace, comments, declarations, processing instructions.
  void skip_misc() {
    for (;;) {
      skip_ws();
      if (starts("<!--"))
        skip_until("-->");
      else if (starts("<?"))
        skip_until("?>");
      else if (starts("<!DOCTYPE"))
        skip_until(">");
      else
        return;
    }
  }
  std::string name() {
    const std::size_t b = pos_;
    while (pos_ < s_.size()) {
      const char ch = s_[pos_];
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == ':' || ch == '.')
        advance();
      else
        break;
    }
    if (pos_ == b) fail("expected a name");
    return s_.substr(b, pos_ - b);
  }
  std::string decode(std::string_view v) {
    std::string r;
    r.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] != '&') {
        r += v[i];
        continue;
      }
      const std::size_t e = v.find(';', i);
      if (e == std::string::npos) fail("bad entity in attribute value");
      const std::string_view ent = v.substr(i + 1, e - i - 1);
      if (ent == "lt")
        r += '<';
      else if (ent == "gt")
        r += '>';
      else if (ent == "amp")
        r += '&';
      else if (ent == "quot")
        r += '"';
      else if (ent == "apos")
        r += '\'';
      else
        fail("unknown entity '&" + std::string(ent) + ";'");
      i = e;
    }
    return r;
  }
  // '<' name attributes ('>' | '/>'); sets self_closed_.
  Element start_tag() {
    std::unordered_set<std::string> keys;  // duplicates found in O(1) each, not by scanning attrs
    Element el;
    el.line = line_;
    el.col = col_;
    advance();  // '<'
    el.name = name();
    for (;;) {
      skip_ws();
      if (pos_ >= s_.size()) fail("unterminated element <" + el.name + ">");
      if (starts("/>")) {
        advance(2);
        self_closed_ = true;
        return el;
      }
      if (s_[pos_] == '>') {
        advance();
        self_closed_ = false;
        return el;
      }
      const int key_line = line_, key_col = col_;
      if (el.attrs.size() >= kMaxAttributes)
        fail("<" + el.name + "> has more than the limit of " + std::to_string(kMaxAttributes) + " attributes");
      std::string key = name();
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '=') fail("expected '=' after attribute '" + key + "'");
      advance();
      skip_ws();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) fail("attribute value must be quoted");
      const char quote = s_[pos_];
      advance();
      const std::size_t e = s_.find(quote, pos_);
      if (e == std::string::npos) fail("unterminated attribute value");
      if (e - pos_ > kMaxAttributeBytes)
        fail_at(key_line, key_col,
                "attribute '" + key + "' of <" + el.name + "> is " + std::to_string(e - pos_) + " bytes long, more than the limit of " +
                    std::to_string(kMaxAttributeBytes) + " bytes");
      std::string val = decode(std::string_view(s_).substr(pos_, e - pos_));
      advance(e - pos_ + 1);
      if (!keys.insert(key).second) fail_at(key_line, key_col, "duplicate attribute '" + key + "' in <" + el.name + ">");
      el.attrs.emplace_back(std::move(key), std::move(val));
    }
  }
};

}  // namespace

Element parse(const std::string& text, const std::string& file) { return Parser(text, file).document(); }

}  // namespace tendyn::io::xml
