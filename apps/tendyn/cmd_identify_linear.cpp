// Linear identification for tree and CDPR models (identify_linear.hpp): option parsing and
// output only; the numbers come from tree/identify.hpp and cdpr/identify.hpp.
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>

#include <Eigen/Core>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "identify_linear.hpp"

#ifdef TENDYN_WITH_TREE
#include <tendyn/tree/identify.hpp>
#include <tendyn/tree/model_io.hpp>
#endif
#ifdef TENDYN_WITH_CDPR
#include <tendyn/cdpr/identify.hpp>
#include <tendyn/cdpr/model_io.hpp>
#endif

namespace tendyn::cli {
namespace {

// --fit: "a,b=c" -> (key, value) pairs; names the option in errors.
struct FitToken {
  std::string key, value;
  bool has_value = false;
};
std::vector<FitToken> fit_tokens(const std::string& fit) {
  std::vector<FitToken> out;
  for (const std::string& f : io::split_fields(fit)) {
    if (f.empty()) throw Error("--fit: empty entry in '" + fit + "'");
    FitToken t;
    const auto eq = f.find('=');
    t.key = f.substr(0, eq);
    if (eq != std::string::npos) {
      t.value = f.substr(eq + 1);
      t.has_value = true;
    }
    out.push_back(t);
  }
  if (out.empty()) throw Error("--fit: no parameter given");
  return out;
}

int positive_int(const FitToken& t) {
  const double v = io::parse_finite(t.value, "--fit " + t.key);
  if (!(v >= 1.0 && v <= 1000.0 && v == std::floor(v)))
    throw Error("--fit " + t.key + ": must be a whole number in [1, 1000], got '" + t.value + "'");
  return static_cast<int>(v);
}

std::filesystem::path out_dir_or_default(const std::filesystem::path& out_dir, const std::filesystem::path& model) {
  return out_dir.empty() ? std::filesystem::path("out") / (model.stem().string() + "-identify") : out_dir;
}

nlohmann::json vec_json(const Eigen::VectorXd& v) {
  nlohmann::json j = nlohmann::json::array();
  for (Eigen::Index k = 0; k < v.size(); ++k) j.push_back(v[k]);
  return j;
}
nlohmann::json mat_json(const Eigen::MatrixXd& m) {
  nlohmann::json j = nlohmann::json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) j.push_back(vec_json(m.row(r).transpose()));
  return j;
}
// Correlation matrix of a covariance.
Eigen::MatrixXd correlation(const Eigen::MatrixXd& cov) {
  const Eigen::VectorXd s = cov.diagonal().cwiseMax(0.0).cwiseSqrt();
  Eigen::MatrixXd c = cov;
  for (Eigen::Index i = 0; i < c.rows(); ++i)
    for (Eigen::Index j = 0; j < c.cols(); ++j) c(i, j) = s[i] > 0.0 && s[j] > 0.0 ? cov(i, j) / (s[i] * s[j]) : 0.0;
  return c;
}

// Errors in variables (core/differentiate.hpp): report.json's entry and, when the noise share of
// the derivatives is above kDerivativeNoiseWarning, a warning naming the column and a smoothing.
nlohmann::json noise_json(const DerivativeNoise& dn, int order, const std::vector<std::string>& columns, int suggested) {
  const Eigen::VectorXd& f = order == 1 ? dn.d1_noise_fraction : dn.d2_noise_fraction;
  return {{"derivative_order", order},
          {"half_width", dn.half_width},
          {"columns", columns},
          {"sample_noise_std", vec_json(dn.sample_std)},
          {"noise_fraction", vec_json(f)},
          {"warning_above", kDerivativeNoiseWarning},
          {"suggested_half_width", suggested > 0 ? nlohmann::json(suggested) : nlohmann::json(nullptr)}};
}

std::string noise_warning(const DerivativeNoise& dn, int order, const std::vector<std::string>& columns, int suggested,
                          const char* affected) {
  Eigen::Index k = 0;
  const double share = dn.worst(order, &k);
  if (!(share > kDerivativeNoiseWarning)) return "";
  const std::string col = k < static_cast<Eigen::Index>(columns.size()) ? columns[static_cast<std::size_t>(k)] : "?";
  std::string w = "WARNING: derivative noise dominates: " + format_number(100.0 * share, 3) + " % of the variance of the " +
                  (order == 1 ? "rate" : "second derivative") + " of '" + col + "' (smooth=" + std::to_string(dn.half_width) +
                  ") is noise (sample noise std " + format_number(dn.sample_std[k], 3) + ", estimated from the log). " + affected +
                  " are biased (towards zero) by about that share, and their std does not include it: ";
  w += suggested > 0 ? "use --fit ...,smooth=" + std::to_string(suggested) + " (the smallest window with less than " +
                           format_number(100.0 * kDerivativeNoiseWarning) + " % noise)"
                     : "no window up to the largest tried brings it below " + format_number(100.0 * kDerivativeNoiseWarning) +
                           " %: filter or log less noisy data";
  return w + ".";
}

void print_warning(const std::string& w, bool quiet) {
  if (w.empty()) return;
  std::fprintf(quiet ? stderr : stdout, "  %s\n", w.c_str());
}

}  // namespace

#ifdef TENDYN_WITH_TREE
void run_identify_tree(const std::filesystem::path& model_file, const std::filesystem::path& data, const std::string& fit,
                       const std::filesystem::path& out_dir, bool quiet) {
  bool inertia = false;
  int smooth = 1;
  tree::IdentifyOptions options;
  for (const FitToken& t : fit_tokens(fit)) {
    if (t.key == "inertia" && !t.has_value)
      inertia = true;
    else if (t.key == "weighting" && t.has_value)
      options.weighting = tree::weighting_from_string(t.value);
    else if (t.key == "smooth" && t.has_value)
      smooth = positive_int(t);
    else
      throw Error("--fit: unknown entry '" + t.key + (t.has_value ? "=" + t.value : "") +
                  "' for a tree model (valid: inertia, weighting=none|joint, smooth=K)");
  }
  if (!inertia) throw Error("--fit: a tree model identifies 'inertia' (the links' inertial parameters); add it");
  const tree::Model model = tree::load_model(model_file.string());
  const tree::MotionLog log = tree::read_motion_log(data.string(), model, smooth);
  const tree::Identification id = tree::identify_inertial_parameters(model, log, options);

  const auto dir = out_dir_or_default(out_dir, model_file);
  io::ResultSet out(dir);
  // base_parameters.csv: one row per base parameter.
  std::string csv = "index,base_parameter,nominal,identified,std,rel_std\n";
  for (int k = 0; k < id.base.rank; ++k) {
    io::CsvLine l;
    l.integer(k).text(id.base.names[static_cast<std::size_t>(k)]).num(id.beta_nominal[k]).num(id.beta[k]);
    l.num(id.beta_std[k]).num(id.beta[k] != 0.0 ? id.beta_std[k] / std::abs(id.beta[k]) : 0.0);
    csv += l.str() + "\n";
  }
  io::write_file_atomic(out.file("base_parameters.csv"), csv);
  // parameters.csv: the standard parameters, nominal and fitted (minimum-norm correction).
  const auto names = tree::inertial_parameter_names(model);
  const Eigen::VectorXd pi0 = tree::inertial_parameters(model);
  csv = "parameter,nominal,fitted\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    io::CsvLine l;
    l.text(names[k]).num(pi0[static_cast<Eigen::Index>(k)]).num(id.pi[static_cast<Eigen::Index>(k)]);
    csv += l.str() + "\n";
  }
  io::write_file_atomic(out.file("parameters.csv"), csv);
  // residuals.csv: measured - fitted torque per sample and coordinate.
  {
    std::string h = "t_s";
    const std::string log_header = tree::motion_log_header(model);
    for (const std::string& c : io::split_fields(log_header))
      if (c.rfind("tau:", 0) == 0) h += ",residual_" + c;
    csv = h + "\n";
    io::CsvLine l;
    for (Eigen::Index s = 0; s < id.residual.rows(); ++s) {
      l.clear();
      l.num(log.t_s[s]).nums(id.residual.row(s));
      csv += l.str() + "\n";
    }
    io::write_file_atomic(out.file("residuals.csv"), csv);
  }
  if (id.physically_consistent) io::write_file_atomic(out.file("model.urdf"), tree::to_urdf(tree::with_inertial_parameters(model, id.pi)));
  nlohmann::json j;
  j["kind"] = "tree";
  j["fit"] = fit;
  j["data_file"] = data.string();
  j["samples"] = id.nsample;
  j["rows"] = id.nrow;
  j["weighting"] = tree::to_string(options.weighting);
  j["differentiation_half_width"] = smooth;
  j["base_parameters"] = {{"rank", id.base.rank},
                          {"nparam", id.base.nparam},
                          {"names", id.base.names},
                          {"nominal", vec_json(id.beta_nominal)},
                          {"identified", vec_json(id.beta)},
                          {"std", vec_json(id.beta_std)},
                          {"correlation", mat_json(correlation(id.beta_cov))}};
  j["condition_number"] = id.condition_number;
  j["residual_rms_total"] = id.rms_total;
  j["residual_rms_per_coordinate"] = vec_json(id.rms_joint);
  j["joint_weight"] = vec_json(id.joint_weight);
  j["sigma"] = id.sigma;
  j["physically_consistent"] = id.physically_consistent;
  if (!id.physically_consistent) j["consistency_note"] = id.consistency_note;
  std::string warning;
  if (log.differentiated_order > 0) {
    std::vector<std::string> cols;
    for (const std::string& c : io::split_fields(tree::motion_log_header(model)))
      if (c.rfind(log.differentiated_from_q ? "q:" : "v:", 0) == 0) cols.push_back(c);
    j["derivative_noise"] = noise_json(log.derivative_noise, log.differentiated_order, cols, log.suggested_half_width);
    warning = noise_warning(log.derivative_noise, log.differentiated_order, cols, log.suggested_half_width, "The identified parameters");
    j["derivative_noise"]["warning"] = warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(warning);
  }
  j["files"] = id.physically_consistent ? nlohmann::json{"base_parameters.csv", "parameters.csv", "residuals.csv", "model.urdf"}
                                        : nlohmann::json{"base_parameters.csv", "parameters.csv", "residuals.csv"};
  write_summary(out.file("report.json"), j, provenance(read_file_bytes(model_file), model_file.string()));
  out.commit();
  if (!quiet) {
    std::printf("tree identification of '%s' from %ld samples (%ld torque rows)\n", model.name.c_str(), id.nsample, id.nrow);
    std::printf("  %d base parameters of %d standard, condition number %s, residual rms %s\n", id.base.rank, id.base.nparam,
                format_number(id.condition_number, 4).c_str(), format_number(id.rms_total, 4).c_str());
    std::printf("  fitted model %s\n",
                id.physically_consistent ? "physically consistent (model.urdf)" : "NOT physically consistent (no model.urdf)");
  }
  print_warning(warning, quiet);
  if (!quiet) {
    std::printf("  results in %s\n", dir.string().c_str());
  }
}
#else
void run_identify_tree(const std::filesystem::path&, const std::filesystem::path&, const std::string&, const std::filesystem::path&, bool) {
  throw Error("tendyn was built without the tree module (TENDYN_WITH_TREE=OFF)");
}
#endif

#ifdef TENDYN_WITH_CDPR
// The --fit list of a CDPR model: which fits (cables, platform) and their options.
static void parse_cdpr_fit(const std::string& fit, bool& cables, bool& platform, cdpr::CableFitOptions& co, cdpr::PlatformFitOptions& po) {
  for (const FitToken& t : fit_tokens(fit)) {
    if ((t.key == "stiffness" || t.key == "stiffness-rest-length") && !t.has_value) {
      cables = true;
      co.fit = cdpr::stiffness_fit_from_string(t.key);
    } else if (t.key == "damping" && !t.has_value) {
      co.damping = true;
    } else if (t.key == "inertia" && !t.has_value) {
      platform = true;
    } else if (t.key == "smooth" && t.has_value) {
      co.half_width = po.half_width = positive_int(t);
    } else if (t.key == "taut-min" && t.has_value) {
      co.taut_min_N = io::parse_finite(t.value, "--fit taut-min");
      if (co.taut_min_N < 0.0) throw Error("--fit taut-min: must be >= 0 N, got '" + t.value + "'");
    } else {
      throw Error("--fit: unknown entry '" + t.key + (t.has_value ? "=" + t.value : "") +
                  "' for a CDPR model (valid: stiffness, stiffness-rest-length, damping, inertia, smooth=K, taut-min=F)");
    }
  }
  if (co.damping && !cables) throw Error("--fit damping: fit it with 'stiffness' or 'stiffness-rest-length'");
  if (!cables && !platform) throw Error("--fit: nothing to identify for a CDPR model (give stiffness and/or inertia)");
}

// cables.csv, residuals_cables.csv and the report's "cables".
static void write_cable_results(io::ResultSet& out, const cdpr::ModelFile& mf, const cdpr::CableIdentification& cid,
                                const cdpr::CableFitOptions& co, nlohmann::json& j, nlohmann::json& files) {
  std::string csv = "cable,EA_N,EA_std_N,k_Npm,k_std_Npm,rest_length_m,rest_length_std_m,damping_Nspm,damping_std_Nspm,rms_N,samples\n";
  nlohmann::json jc = nlohmann::json::array();
  for (const auto& c : cid.cables) {
    io::CsvLine l;
    l.text(c.name).num(c.EA_N).num(c.EA_std_N).num(c.k_Npm).num(c.k_std_Npm).num(c.rest_length_m);
    l.num(c.rest_length_std_m).num(c.damping_Nspm).num(c.damping_std_Nspm).num(c.rms_N).integer(c.nsample);
    csv += l.str() + "\n";
    jc.push_back({{"name", c.name},
                  {"EA_N", c.EA_N},
                  {"EA_std_N", c.EA_std_N},
                  {"k_Npm", c.k_Npm},
                  {"k_std_Npm", c.k_std_Npm},
                  {"rest_length_m", c.rest_length_m},
                  {"rest_length_std_m", c.rest_length_std_m},
                  {"damping_Nspm", c.damping_Nspm},
                  {"damping_std_Nspm", c.damping_std_Nspm},
                  {"rms_N", c.rms_N},
                  {"samples", c.nsample}});
  }
  io::write_file_atomic(out.file("cables.csv"), csv);
  std::string h = "t_s";
  for (const auto& c : mf.model.cable_names) h += ",residual_" + c + ".tension_N";
  csv = h + "\n";
  io::CsvLine l;
  for (Eigen::Index r = 0; r < cid.residual_N.rows(); ++r) {
    l.clear();
    l.num(cid.t_s[r]);
    for (Eigen::Index i = 0; i < cid.residual_N.cols(); ++i) {
      if (std::isnan(cid.residual_N(r, i)))
        l.text("");  // sample left out (slack)
      else
        l.num(cid.residual_N(r, i));
    }
    csv += l.str() + "\n";
  }
  io::write_file_atomic(out.file("residuals_cables.csv"), csv);
  j["cables"] = {{"fit", cdpr::to_string(co.fit)}, {"damping", co.damping}, {"taut_min_N", co.taut_min_N}, {"results", jc}};
  files.push_back("cables.csv");
  files.push_back("residuals_cables.csv");
}

// platform.csv, residuals_platform.csv and the report's "platform".
static void write_platform_results(io::ResultSet& out, const cdpr::PlatformIdentification& pid, nlohmann::json& j, nlohmann::json& files) {
  static const char* names[10] = {"m_kg",       "mcx_kgm",    "mcy_kgm",    "mcz_kgm",    "Ixx_P_kgm2",
                                  "Ixy_P_kgm2", "Ixz_P_kgm2", "Iyy_P_kgm2", "Iyz_P_kgm2", "Izz_P_kgm2"};
  std::string csv = "parameter,identified,std\n";
  for (int k = 0; k < 10; ++k) {
    io::CsvLine l;
    l.text(names[k]).num(pid.pi[k]).num(pid.pi_std[k]);
    csv += l.str() + "\n";
  }
  for (int k = 0; k < 3; ++k) {
    io::CsvLine l;
    l.text(std::string("com_") + "xyz"[k] + "_m").num(pid.com_P_m[k]).num(pid.com_std_m[k]);
    csv += l.str() + "\n";
  }
  const char* ic[6] = {"Ixx_C_kgm2", "Ixy_C_kgm2", "Ixz_C_kgm2", "Iyy_C_kgm2", "Iyz_C_kgm2", "Izz_C_kgm2"};
  const int rc[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  for (int k = 0; k < 6; ++k) {
    io::CsvLine l;
    l.text(ic[k]).num(pid.inertia_C_kgm2(rc[k][0], rc[k][1])).text("");
    csv += l.str() + "\n";
  }
  io::write_file_atomic(out.file("platform.csv"), csv);
  csv = "t_s,residual_fx_N,residual_fy_N,residual_fz_N,residual_mx_P_Nm,residual_my_P_Nm,residual_mz_P_Nm\n";
  io::CsvLine l;
  for (Eigen::Index r = 0; r < pid.residual.rows(); ++r) {
    l.clear();
    l.num(pid.t_s[r]).nums(pid.residual.row(r));
    csv += l.str() + "\n";
  }
  io::write_file_atomic(out.file("residuals_platform.csv"), csv);
  j["platform"] = {{"mass_kg", pid.mass_kg},
                   {"mass_std_kg", pid.mass_std_kg},
                   {"com_P_m", vec_json(pid.com_P_m)},
                   {"com_std_m", vec_json(pid.com_std_m)},
                   {"inertia_C_kgm2", mat_json(pid.inertia_C_kgm2)},
                   {"inertia_P_kgm2", mat_json(pid.inertia_P_kgm2)},
                   {"pi", vec_json(pid.pi)},
                   {"pi_std", vec_json(pid.pi_std)},
                   {"correlation", mat_json(correlation(pid.cov))},
                   {"residual_rms_per_row", vec_json(pid.rms_row)},
                   {"row_weight", vec_json(pid.row_weight)},
                   {"condition_number", pid.condition_number},
                   {"samples", pid.nsample}};
  files.push_back("platform.csv");
  files.push_back("residuals_platform.csv");
}

void run_identify_cdpr(const std::filesystem::path& model_file, const std::filesystem::path& data, const std::string& fit,
                       const std::filesystem::path& out_dir, bool quiet) {
  bool cables = false, platform = false;
  cdpr::CableFitOptions co;
  cdpr::PlatformFitOptions po;
  parse_cdpr_fit(fit, cables, platform, co, po);
  const cdpr::ModelFile mf = cdpr::load_model(model_file.string());
  const cdpr::PlatformLog log = cdpr::read_platform_log(data.string(), mf.model);
  nlohmann::json j;
  j["kind"] = "cdpr";
  j["fit"] = fit;
  j["data_file"] = data.string();
  j["samples"] = log.nsample();
  j["differentiation_half_width"] = co.half_width;
  nlohmann::json files = nlohmann::json::array();
  const auto dir = out_dir_or_default(out_dir, model_file);
  // Solve first, then open the result set: bad data never leave a staging directory behind.
  cdpr::CableIdentification cid;
  cdpr::PlatformIdentification pid;
  if (cables) cid = cdpr::identify_cables(mf.model, log, co);
  if (platform) pid = cdpr::identify_platform(mf.model, log, po);
  io::ResultSet out(dir);
  if (cables) write_cable_results(out, mf, cid, co, j, files);
  if (platform) write_platform_results(out, pid, j, files);
  std::vector<std::string> warnings;
  if (cables && co.damping) {
    std::vector<std::string> cols;
    for (const auto& c : mf.model.cable_names) cols.push_back(c + ".length_m");
    auto& jn = j["cables"]["derivative_noise"] = noise_json(cid.length_noise, 1, cols, cid.suggested_half_width);
    warnings.push_back(noise_warning(cid.length_noise, 1, cols, cid.suggested_half_width, "The damping coefficients"));
    jn["warning"] = warnings.back().empty() ? nlohmann::json(nullptr) : nlohmann::json(warnings.back());
  }
  if (platform) {
    const std::vector<std::string> cols{"x_m", "y_m", "z_m", "roll_rad", "pitch_rad", "yaw_rad"};
    auto& jn = j["platform"]["derivative_noise"] = noise_json(pid.pose_noise, 2, cols, pid.suggested_half_width);
    warnings.push_back(noise_warning(pid.pose_noise, 2, cols, pid.suggested_half_width, "The platform's mass, COM and inertia"));
    jn["warning"] = warnings.back().empty() ? nlohmann::json(nullptr) : nlohmann::json(warnings.back());
  }
  j["files"] = files;
  write_summary(out.file("report.json"), j, provenance(read_file_bytes(model_file), model_file.string()));
  out.commit();
  if (!quiet) {
    std::printf("cdpr identification of '%s' from %ld samples\n", mf.model.name.c_str(), log.nsample());
    if (cables)
      for (const auto& c : cid.cables)
        std::printf("  %s: EA %s N (std %s), k %s N/m, rest length %s m%s\n", c.name.c_str(), format_number(c.EA_N, 6).c_str(),
                    format_number(c.EA_std_N, 2).c_str(), format_number(c.k_Npm, 6).c_str(), format_number(c.rest_length_m, 7).c_str(),
                    co.damping ? (", damping " + format_number(c.damping_Nspm, 4) + " N s/m").c_str() : "");
    if (platform)
      std::printf("  platform: mass %s kg (std %s), COM [%s, %s, %s] m\n", format_number(pid.mass_kg, 6).c_str(),
                  format_number(pid.mass_std_kg, 2).c_str(), format_number(pid.com_P_m.x(), 4).c_str(),
                  format_number(pid.com_P_m.y(), 4).c_str(), format_number(pid.com_P_m.z(), 4).c_str());
  }
  for (const auto& w : warnings) print_warning(w, quiet);
  if (!quiet) {
    std::printf("  results in %s\n", dir.string().c_str());
  }
}
#else
void run_identify_cdpr(const std::filesystem::path&, const std::filesystem::path&, const std::string&, const std::filesystem::path&, bool) {
  throw Error("tendyn was built without the cdpr module (TENDYN_WITH_CDPR=OFF)");
}
#endif

}  // namespace tendyn::cli
