// The external wrench set of `tendyn cdpr workspace` and `tendyn cdpr design`: the text of
// --wrench-box and --wrench-set read into cdpr::WorkspaceOptions (docs/CDPR.md, "CLI").
#pragma once
#include <tendyn/cdpr/workspace.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tendyn::cli {

/// "fx=-10:10,mz=-1:1" (rows not named: 0:0) into o.wrench_lo, o.wrench_hi. Throws tendyn::Error
/// starting with `option`: an empty text, a field without '=', a row not in row_names, a row
/// given twice, not LO:HI, a non-finite number.
void parse_wrench_box(const std::string& text, const std::vector<std::string>& row_names, const std::string& option,
                      cdpr::WorkspaceOptions& o);

/// --wrench-set: "box:ROW=LO:HI,..." (as --wrench-box), "ellipsoid:ROW=CENTRE:SEMI_AXIS,..."
/// (axis-aligned; rows not named: centre 0, semi-axis 0) or
/// "ellipsoid:centre=C1:...:Cm,shape=E11:E12:...:Emm" (a symmetric positive semi-definite m x m
/// shape, row-major, rows as row_names) into o. Throws tendyn::Error starting with "--wrench-set"
/// naming the field and the reason (the shape's checks are WorkspaceEvaluator's).
void parse_wrench_set(const std::string& text, const std::vector<std::string>& row_names, cdpr::WorkspaceOptions& o);

/// The wrench set of --wrench-box `box` or --wrench-set `set` (exactly one non-empty: the callers
/// check) into o, then checked by a WorkspaceEvaluator of `model` (a shape that is not symmetric
/// positive semi-definite, ...). Throws tendyn::Error starting with the option's name.
void read_wrench_set(const std::string& box, const std::string& set, const cdpr::Model& model, const std::vector<std::string>& row_names,
                     cdpr::WorkspaceOptions& o);

/// The wrench set of o for summary.json: null, {"box": {row: [lo, hi]}} or
/// {"ellipsoid": {"centre": {row: c}, "shape": [[...]]}}.
nlohmann::json wrench_set_json(const cdpr::WorkspaceOptions& o, const std::vector<std::string>& row_names);

}  // namespace tendyn::cli
