// Linear identification from the command line (issue 16, item 3): the tree robot's inertial
// parameters from joint torques and motion, the CDPR's cables and platform from pose and tension
// logs. `tendyn identify MODEL --data DATA --fit PARAMS [-o DIR]` dispatches here by model kind;
// these functions parse --fit, call the library (tree/identify.hpp, cdpr/identify.hpp) and write
// the results. Formats: docs/TREE.md and docs/CDPR_DYNAMICS.md, "Identification".
#pragma once
#include <filesystem>
#include <string>

namespace tendyn::cli {

/// Tree model (YAML or URDF) + motion log CSV. fit: comma list of `inertia` (required),
/// `weighting=none|joint`, `smooth=K` (half width of the differentiation window, default 1).
/// Writes into out_dir (a result set): base_parameters.csv, parameters.csv, residuals.csv,
/// report.json and, when the fitted parameters are physically consistent, model.urdf. Prints a
/// summary unless quiet. Throws tendyn::Error (exit 2) on bad input, naming the place.
void run_identify_tree(const std::filesystem::path& model, const std::filesystem::path& data, const std::string& fit,
                       const std::filesystem::path& out_dir, bool quiet);

/// CDPR model file + platform log CSV. fit: comma list of `stiffness` | `stiffness-rest-length`,
/// `damping`, `inertia` (platform mass, COM, inertia), `smooth=K`, `taut-min=F` [N]. Writes
/// cables.csv, platform.csv, residuals_cables.csv, residuals_platform.csv (those fitted) and
/// report.json into out_dir.
void run_identify_cdpr(const std::filesystem::path& model, const std::filesystem::path& data, const std::string& fit,
                       const std::filesystem::path& out_dir, bool quiet);

}  // namespace tendyn::cli
