#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace tendyn::io {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s, std::size_t* lead = nullptr) {
  std::size_t a = 0, b = s.size();
  while (a < b && blank(s[a])) ++a;
  while (b > a && blank(s[b - 1])) --b;
  if (lead) *lead = a;
  return s.substr(a, b - a);
}

// Splits into trimmed fields and records each field's 1-based character column.
void split_into(std::string_view text, char sep, std::vector<std::string>& out, std::vector<int>* starts) {
  out.clear();
  if (starts) starts->clear();
  if (trim(text).empty()) return;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = text.find(sep, begin);
    const std::string_view raw = text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    std::size_t lead = 0;
    out.emplace_back(trim(raw, &lead));
    if (starts) starts->push_back(static_cast<int>(begin + lead) + 1);
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
}

// strtod also reads hexadecimal floating point ("0x1p3"), which YAML refuses: one rule for every
// input, numbers are decimal.
bool hexadecimal(const std::string& s) { return s.find_first_of("xX") != std::string::npos; }

// True when the whole of `s` is a decimal number (finite or not) for strtod.
bool decimal_number(const std::string& s, double& v) {
  if (s.empty() || hexadecimal(s)) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

std::vector<std::string> split_fields(std::string_view text, char sep) {
  std::vector<std::string> out;
  split_into(text, sep, out, nullptr);
  return out;
}

double parse_finite(std::string_view field, std::string_view where) {
  const std::string s(trim(field));
  if (s.empty()) throw Error(std::string(where) + ": empty field, a number is expected");
  double v = 0.0;
  if (!decimal_number(s, v) || !std::isfinite(v)) {
    char* end = nullptr;
    const bool hex = hexadecimal(s) && (std::strtod(s.c_str(), &end), end == s.c_str() + s.size());
    throw Error(std::string(where) + ": '" + s + "' is not a finite number" +
                (hex ? " (numbers are decimal: hexadecimal is not accepted)" : ""));
  }
  return v;
}

std::vector<double> parse_finite_list(std::string_view text, std::string_view where, char sep) {
  const auto fields = split_fields(text, sep);
  std::vector<double> out;
  out.reserve(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i)
    out.push_back(parse_finite(fields[i], std::string(where) + " (entry " + std::to_string(i + 1) + ")"));
  return out;
}

void CsvLine::sep() {
  if (!first_) s_ += ',';
  first_ = false;
}

CsvLine& CsvLine::num(double v) { return num(v, digits_); }

CsvLine& CsvLine::num(double v, int digits) {
  sep();
  append_number(s_, v, digits);
  return *this;
}

CsvLine& CsvLine::integer(long long v) {
  sep();
  s_ += std::to_string(v);
  return *this;
}

CsvLine& CsvLine::text(std::string_view s) {
  sep();
  s_ += s;
  return *this;
}

CsvReader::CsvReader(const std::filesystem::path& path, CsvLimits limits, CsvHeader header) : path_(path.string()) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path_ + ": no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path_ + ": not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path_ + ": cannot read file (" + ec.message() + ")");
  if (size > limits.max_bytes) throw Error(path_ + ": file is larger than the limit of " + std::to_string(limits.max_bytes >> 20) + " MiB");
  in_.open(path);
  if (!in_) throw Error(path_ + ": cannot read file");
  if (!read_line())
    throw Error(path_ + ":1: empty file (expected " + (header == CsvHeader::kRequired ? "a header line)" : "rows of numbers)"));
  width_ = fields_.size();
  header_line_ = line_;
  if (header == CsvHeader::kOptional) {
    const bool any_number = std::any_of(fields_.begin(), fields_.end(), [](const std::string& f) {
      double v = 0.0;
      return decimal_number(f, v);
    });
    if (any_number) {  // no header: the constructor has read the first data row
      pending_row_ = true;
      return;
    }
  }
  header_ = fields_;
  for (std::size_t c = 0; c < header_.size(); ++c)
    if (header_[c].empty()) throw Error(where(static_cast<int>(c)) + ": empty column name in the header");
}

bool CsvReader::read_line() {
  while (std::getline(in_, text_)) {
    ++line_;
    const auto t = trim(text_);
    if (t.empty() || t.front() == '#') continue;
    split_into(text_, ',', fields_, &starts_);
    return true;
  }
  return false;
}

int CsvReader::find_column(std::string_view name, std::string_view unit_suffix) const {
  const std::string with_unit = std::string(name) + std::string(unit_suffix);
  for (std::size_t c = 0; c < header_.size(); ++c)
    if (header_[c] == name || (!unit_suffix.empty() && header_[c] == with_unit)) return static_cast<int>(c);
  return -1;
}

int CsvReader::require_column(std::string_view name, std::string_view unit_suffix) const {
  const int c = find_column(name, unit_suffix);
  if (c < 0) {
    std::string msg = path_ + ":" + std::to_string(header_line_) + ": missing column '" + std::string(name) + "'";
    if (!unit_suffix.empty()) msg += " (or '" + std::string(name) + std::string(unit_suffix) + "')";
    throw Error(msg);
  }
  return c;
}

bool CsvReader::next() {
  if (pending_row_) {
    pending_row_ = false;
    return true;
  }
  if (!read_line()) return false;
  if (fields_.size() != width_)
    throw Error(where() + ": " + std::to_string(fields_.size()) + " fields, " + (header_.empty() ? "the first row has " : "header has ") +
                std::to_string(width_));
  return true;
}

bool CsvReader::empty(int col) const { return fields_.at(static_cast<std::size_t>(col)).empty(); }

double CsvReader::number(int col) const {
  const auto c = static_cast<std::size_t>(col);
  const std::string name = header_.empty() ? "column " + std::to_string(c + 1) : header_.at(c);
  return parse_finite(fields_.at(c), where(col) + " (" + name + ")");
}

std::string CsvReader::where() const { return path_ + ":" + std::to_string(line_); }

std::string CsvReader::where(int col) const {
  const auto c = static_cast<std::size_t>(col);
  return where() + ":" + std::to_string(c < starts_.size() ? starts_[c] : 1);
}

}  // namespace tendyn::io
