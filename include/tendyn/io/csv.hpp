// The one reader and writer of comma-separated text in tendyn: CSV files (results, drive tables,
// pose and motion logs) and the comma lists of command-line options ("0.1,0.2,0.3", "c1,c2").
//
// Conventions (docs/CLI.md "Outputs", docs/ARCHITECTURE.md "Conventions"):
// - Column names carry their SI unit as a suffix ("t_s", "x_m", "c1.tension_N"); dimensionless
//   columns have none ("strain", "status").
// - Numbers are written with %.12g (or the precision a caller asks for) and -0 is written as 0.
// - Fields are trimmed of blanks (space, tab, CR). An empty field is a field: "a,,b" has three
//   fields and "a," two; whether an empty field is allowed is the caller's decision (a missing
//   marker in a motion log, say); parse_finite() rejects it with the place.
// - Errors are tendyn::Error with the place "path:line:col: reason" (col is the 1-based character
//   column of the field), or "<what>: reason" for option lists.
#pragma once
#include <tendyn/core/format.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::io {

/// Fields of one line or list separated by `sep`, each trimmed of blanks. Empty text (after
/// trimming) has no fields; otherwise there are count(sep) + 1 fields, empty ones included.
/// Cost O(length). Never throws.
std::vector<std::string> split_fields(std::string_view text, char sep = ',');

/// The finite number written in `field` (the whole field, strtod's decimal syntax; hexadecimal
/// such as "0x1p3" is refused, as in YAML model files). Throws tendyn::Error
/// "<where>: '<field>' is not a finite number" (or "... empty field, a number is expected").
double parse_finite(std::string_view field, std::string_view where);

/// A `sep`-separated list of finite numbers ("0.1,0.2"). Empty text gives an empty list; an empty
/// element is an error naming its position. `where` names the option or place for errors.
std::vector<double> parse_finite_list(std::string_view text, std::string_view where, char sep = ',');

/// The number formatter of core (tendyn/core/format.hpp), also named here: CSV fields use it.
using tendyn::append_number;
using tendyn::format_number;

/// Builds one CSV line field by field: `line.num(t).num(x).text("ok")`; str() ends without '\n'.
/// Reuse one CsvLine (clear()) to avoid allocating per row.
class CsvLine {
 public:
  explicit CsvLine(int digits = 12) : digits_(digits) {}
  CsvLine& num(double v);
  /// One number with its own precision ("%.<digits>g").
  CsvLine& num(double v, int digits);
  CsvLine& integer(long long v);
  CsvLine& text(std::string_view s);
  /// 1 or 0.
  CsvLine& flag(bool b) { return integer(b ? 1 : 0); }
  /// Appends every entry of a range of doubles.
  template <class Range>
  CsvLine& nums(const Range& r) {
    for (double v : r) num(v);
    return *this;
  }
  void clear() {
    s_.clear();
    first_ = true;
  }
  [[nodiscard]] const std::string& str() const { return s_; }

 private:
  void sep();
  std::string s_;
  bool first_ = true;
  int digits_;
};

/// Bounds of CsvReader.
struct CsvLimits {
  std::uintmax_t max_bytes = std::uintmax_t{256} << 20;  ///< file size, 256 MiB by default
};

/// Whether a CSV file must start with a header line.
enum class CsvHeader {
  kRequired,  ///< the first line is the header (result files, pose and motion logs)
  /// The first line is a header when none of its fields is a number, else it is the first data
  /// row (numeric tables: drive tables "t_s,u_m", torque schedules "t,tau_1,..").
  kOptional,
};

/// Reads a CSV file with a header line (or, with CsvHeader::kOptional, possibly without one),
/// row by row, with bounded size and exact places. Blank lines and lines starting with '#' are
/// skipped. Each row must have as many fields as the header, or as the first row when there is
/// no header ("path:line: N fields, header has M").
class CsvReader {
 public:
  /// Opens `path` and reads its header. Throws tendyn::Error when the path is missing, not a
  /// regular file, larger than the limit, or has no line (no header, no rows).
  explicit CsvReader(const std::filesystem::path& path, CsvLimits limits = {}, CsvHeader header = CsvHeader::kRequired);

  /// Column names; empty when an optional header was absent.
  [[nodiscard]] const std::vector<std::string>& header() const { return header_; }
  /// Fields per row (the header's, or the first row's without a header).
  [[nodiscard]] int ncolumn() const { return static_cast<int>(width_); }
  /// Index of the column called `name` or `name + unit_suffix` (e.g. "x" or "x_m"); -1 if absent.
  [[nodiscard]] int find_column(std::string_view name, std::string_view unit_suffix = {}) const;
  /// Like find_column but throws "path:<header line>: missing column 'x' (or 'x_m')".
  [[nodiscard]] int require_column(std::string_view name, std::string_view unit_suffix = {}) const;

  /// Advances to the next data row; false at the end of the file.
  bool next();
  /// Fields of the current row (trimmed).
  [[nodiscard]] const std::vector<std::string>& fields() const { return fields_; }
  /// True when field `col` of the current row is empty.
  [[nodiscard]] bool empty(int col) const;
  /// Field `col` of the current row as a finite number; errors name "path:line:col (column name)".
  [[nodiscard]] double number(int col) const;
  /// "path:line" of the current row (for the caller's own errors).
  [[nodiscard]] std::string where() const;
  /// "path:line:col" of field `col` of the current row.
  [[nodiscard]] std::string where(int col) const;
  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  bool read_line();
  std::string path_;
  std::size_t width_ = 0;
  int header_line_ = 1;
  bool pending_row_ = false;  // the first data row was read by the constructor (no header)
  std::ifstream in_;
  std::string text_;
  std::vector<std::string> header_, fields_;
  std::vector<int> starts_;  // 1-based character column of each field of the current row
  int line_ = 0;
};

}  // namespace tendyn::io
