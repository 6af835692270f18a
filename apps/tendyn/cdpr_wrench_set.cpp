// The external wrench set options of the cdpr commands. See cdpr_wrench_set.hpp.
#include "cdpr_wrench_set.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>

#include <algorithm>
#include <cctype>

namespace tendyn::cli {
namespace {

std::string ws_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// the index of `row` in row_names, or an error naming the option and the rows
std::size_t ws_row_index(const std::string& row, const std::vector<std::string>& row_names, const std::string& option) {
  const auto it = std::find(row_names.begin(), row_names.end(), row);
  if (it == row_names.end()) {
    std::string rows;
    for (const auto& r : row_names) rows += (rows.empty() ? "" : ", ") + r;
    throw Error(option + ": row '" + row + "' is not a row of the problem (" + rows + ")");
  }
  return static_cast<std::size_t>(it - row_names.begin());
}

// "ROW=A:B,..." into per-row pairs (rows not named: 0, 0)
void ws_parse_row_pairs(const std::string& text, const std::vector<std::string>& row_names, const std::string& option, const char* form,
                        Eigen::VectorXd& a, Eigen::VectorXd& b) {
  const auto m = static_cast<Eigen::Index>(row_names.size());
  a = Eigen::VectorXd::Zero(m);
  b = Eigen::VectorXd::Zero(m);
  std::vector<bool> seen(row_names.size(), false);
  const auto fields = io::split_fields(text);
  if (fields.empty()) throw Error(option + ": empty (give " + form + ", e.g. fx=-10:10)");
  for (const auto& f : fields) {
    const auto eq = f.find('=');
    if (eq == std::string::npos) throw Error(option + ": '" + f + "': expected " + form + ", e.g. fx=-10:10");
    const std::string row = ws_lower(f.substr(0, eq));
    const std::size_t k = ws_row_index(row, row_names, option);
    if (seen[k]) throw Error(option + ": row '" + row + "' given twice");
    seen[k] = true;
    const auto parts = io::split_fields(f.substr(eq + 1), ':');
    if (parts.size() != 2) throw Error(option + ": '" + f + "': expected " + form);
    const std::string where = option + " " + row;
    a[static_cast<Eigen::Index>(k)] = io::parse_finite(parts[0], where);
    b[static_cast<Eigen::Index>(k)] = io::parse_finite(parts[1], where);
  }
}

}  // namespace

void parse_wrench_box(const std::string& text, const std::vector<std::string>& row_names, const std::string& option,
                      cdpr::WorkspaceOptions& o) {
  ws_parse_row_pairs(text, row_names, option, "ROW=LO:HI", o.wrench_lo, o.wrench_hi);
}

void parse_wrench_set(const std::string& text, const std::vector<std::string>& row_names, cdpr::WorkspaceOptions& o) {
  const std::string option = "--wrench-set";
  const auto colon = text.find(':');
  const std::string kind = ws_lower(text.substr(0, colon));
  const std::string body = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  if (colon == std::string::npos || (kind != "box" && kind != "ellipsoid"))
    throw Error(option + ": '" + text +
                "': expected box:ROW=LO:HI,... or ellipsoid:ROW=CENTRE:SEMI_AXIS,... or ellipsoid:centre=C1:..:Cm,shape=E11:..:Emm");
  if (kind == "box") {
    parse_wrench_box(body, row_names, option + " box", o);
    return;
  }
  const auto m = static_cast<Eigen::Index>(row_names.size());
  if (ws_lower(body).rfind("centre=", 0) == 0) {
    const auto fields = io::split_fields(body);
    if (fields.size() != 2 || ws_lower(fields[1]).rfind("shape=", 0) != 0)
      throw Error(option + ": ellipsoid:centre=...,shape=...: expected two fields, centre=C1:..:Cm and shape=E11:..:Emm (row-major)");
    const auto c = io::parse_finite_list(fields[0].substr(7), option + " centre", ':');
    const auto e = io::parse_finite_list(fields[1].substr(6), option + " shape", ':');
    if (static_cast<Eigen::Index>(c.size()) != m || static_cast<Eigen::Index>(e.size()) != m * m)
      throw Error(option + ": centre has " + std::to_string(c.size()) + " and shape " + std::to_string(e.size()) +
                  " values, the problem's " + std::to_string(m) + " rows need " + std::to_string(m) + " and " + std::to_string(m * m));
    o.wrench_centre = Eigen::Map<const Eigen::VectorXd>(c.data(), m);
    o.wrench_shape = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(e.data(), m, m);
    return;
  }
  Eigen::VectorXd centre, semi;
  ws_parse_row_pairs(body, row_names, option + " ellipsoid", "ROW=CENTRE:SEMI_AXIS", centre, semi);
  for (Eigen::Index r = 0; r < m; ++r)
    if (semi[r] < 0.0)
      throw Error(option + " ellipsoid " + row_names[static_cast<std::size_t>(r)] + ": semi-axis " + format_number(semi[r], 6) + " < 0");
  o.wrench_centre = centre;
  o.wrench_shape = semi.asDiagonal();
}

void read_wrench_set(const std::string& box, const std::string& set, const cdpr::Model& model, const std::vector<std::string>& row_names,
                     cdpr::WorkspaceOptions& o) {
  const std::string option = box.empty() ? "--wrench-set" : "--wrench-box";
  if (box.empty())
    parse_wrench_set(set, row_names, o);
  else
    parse_wrench_box(box, row_names, option, o);
  try {
    cdpr::WorkspaceEvaluator check(model, o);
  } catch (const Error& e) {
    throw Error(option + ": " + e.what());
  }
}

nlohmann::json wrench_set_json(const cdpr::WorkspaceOptions& o, const std::vector<std::string>& row_names) {
  if (o.wrench_lo.size() != 0) {
    nlohmann::json box = nlohmann::json::object();
    for (std::size_t r = 0; r < row_names.size(); ++r)
      box[row_names[r]] = {o.wrench_lo[static_cast<Eigen::Index>(r)], o.wrench_hi[static_cast<Eigen::Index>(r)]};
    return {{"box", box}};
  }
  if (o.wrench_centre.size() != 0) {
    nlohmann::json centre = nlohmann::json::object(), shape = nlohmann::json::array();
    for (std::size_t r = 0; r < row_names.size(); ++r) {
      centre[row_names[r]] = o.wrench_centre[static_cast<Eigen::Index>(r)];
      std::vector<double> row;
      for (Eigen::Index k = 0; k < o.wrench_shape.cols(); ++k) row.push_back(o.wrench_shape(static_cast<Eigen::Index>(r), k));
      shape.push_back(row);
    }
    return {{"ellipsoid", {{"centre", centre}, {"shape", shape}}}};
  }
  return nullptr;
}

}  // namespace tendyn::cli
