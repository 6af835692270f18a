// tendyn cdpr design: move a CDPR model's frame anchors within a frame box (and, with
// --attachments, its attachment points within a box of the platform frame) to improve an objective
// over a region of positions. Option parsing and printing only: the optimiser is
// include/tendyn/cdpr/design.hpp.
//   tendyn cdpr design MODEL --frame-min X,Y[,Z] --frame-max X,Y[,Z] --region X0:X1:NX,Y0:Y1:NY[,Z0:Z1:NZ]
//                      [--objective tension-margin|capacity-margin|volume] [--wrench-box ... | --wrench-set ...]
//                      [--attachments [--attachment-min X,Y[,Z] --attachment-max X,Y[,Z]]]
//                      [--orientation R,P,Y | PHI] [--evaluations N] [--step S] [-o DIR]
// Writes DIR/model.yaml (the optimised model, cdpr::to_yaml) and DIR/summary.json as one result set.
#include <tendyn/cdpr/design.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cdpr_wrench_set.hpp"
#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {
namespace {

struct DesignArgs {
  std::string model, frame_min, frame_max, region, orientation, objective = "tension-margin", wrench_box, wrench_set;
  std::string attachment_min, attachment_max;
  bool attachments = false;
  std::string out = "out/cdpr-design";
  int evaluations = 300;
  double step = 0.0;
  bool quiet = false;
};

Eigen::Vector3d parse_corner(const std::string& text, const std::string& option, bool planar) {
  const auto v = io::parse_finite_list(text, option);
  if (v.size() != 3 && !(planar && v.size() == 2))
    throw Error(option + ": expected " + std::string(planar ? "x,y or x,y,z" : "x,y,z") + " [m], got " + std::to_string(v.size()) +
                " values");
  return Eigen::Vector3d(v[0], v[1], v.size() == 3 ? v[2] : 0.0);
}

// "LO:HI:COUNT" per axis, cell-centred like `cdpr workspace --grid` (COUNT = 1: the midpoint)
std::vector<double> parse_region_axis(const std::string& field, const std::string& where) {
  const auto parts = io::split_fields(field, ':');
  if (parts.size() != 3) throw Error(where + ": '" + field + "': expected LO:HI:COUNT");
  const double lo = io::parse_finite(parts[0], where), hi = io::parse_finite(parts[1], where);
  const double c = io::parse_finite(parts[2], where);
  if (c != std::floor(c) || c < 1 || c > 1000) throw Error(where + ": count '" + parts[2] + "' must be a whole number in [1, 1000]");
  if (lo > hi) throw Error(where + ": lower bound " + parts[0] + " > upper bound " + parts[1]);
  const int n = static_cast<int>(c);
  std::vector<double> x;
  for (int k = 0; k < n; ++k) x.push_back(lo + (hi - lo) * (k + 0.5) / n);
  return x;
}

nlohmann::json points_json(const cdpr::Model& m, const Eigen::Matrix3Xd& P, bool planar) {
  nlohmann::json a = nlohmann::json::object();
  for (int i = 0; i < m.ncable(); ++i) {
    std::vector<double> p = {P(0, i), P(1, i)};
    if (!planar) p.push_back(P(2, i));
    a[m.cable_names[static_cast<std::size_t>(i)]] = p;
  }
  return a;
}

// The design region of --region (LO:HI:COUNT per axis) at one orientation (--orientation, else
// the model's default pose): one pose per row (x, y, phi or x, y, z, roll, pitch, yaw).
Eigen::MatrixXd design_region(const DesignArgs& a, const cdpr::ModelFile& mf, bool planar) {
  const auto fields = io::split_fields(a.region);
  const std::size_t naxis = planar ? 2 : 3;
  if (fields.size() != naxis)
    throw Error("--region: " + std::to_string(fields.size()) + " axes given, this model needs " + std::to_string(naxis) +
                " (LO:HI:COUNT for each)");
  std::vector<std::vector<double>> axes;
  for (std::size_t k = 0; k < naxis; ++k) axes.push_back(parse_region_axis(fields[k], std::string("--region ") + "xyz"[k]));
  Eigen::VectorXd rot = Eigen::VectorXd::Zero(planar ? 1 : 3);  // phi, or roll, pitch, yaw
  if (mf.default_pose.size() != 0) rot = mf.default_pose.tail(rot.size());
  if (!a.orientation.empty()) {
    const auto v = io::parse_finite_list(a.orientation, "--orientation");
    if (static_cast<Eigen::Index>(v.size()) != rot.size())
      throw Error(std::string("--orientation: expected ") + (planar ? "one angle phi" : "roll,pitch,yaw") + " [rad]");
    for (Eigen::Index k = 0; k < rot.size(); ++k) rot[k] = v[static_cast<std::size_t>(k)];
  }
  const std::size_t nz = planar ? 1 : axes[2].size();
  const auto npose = static_cast<Eigen::Index>(axes[0].size() * axes[1].size() * nz);
  if (npose > 100000) throw Error("--region: " + std::to_string(npose) + " positions; at most 100000 (use smaller counts)");
  const Eigen::Index width = planar ? 3 : 6;
  Eigen::MatrixXd q(npose, width);
  Eigen::Index row = 0;
  for (std::size_t iz = 0; iz < nz; ++iz)
    for (double y : axes[1])
      for (double x : axes[0]) {
        q(row, 0) = x;
        q(row, 1) = y;
        if (!planar) q(row, 2) = axes[2][iz];
        q.row(row).tail(rot.size()) = rot.transpose();
        ++row;
      }
  return q;
}

// --wrench-box / --wrench-set (capacity-margin and volume objectives) and --attachments with its
// box, into o (o.objective already set).
void design_wrench_set_and_attachments(const DesignArgs& a, const cdpr::Model& model, bool planar, cdpr::DesignOptions& o) {
  if (!a.wrench_box.empty() || !a.wrench_set.empty()) {
    if (o.objective == cdpr::DesignObjective::kTensionMargin)
      throw Error(std::string(a.wrench_box.empty() ? "--wrench-set" : "--wrench-box") +
                  ": only with --objective capacity-margin or volume (the tension margin uses the weight alone)");
    if (!a.wrench_box.empty() && !a.wrench_set.empty()) throw Error("--wrench-box, --wrench-set: give one wrench set, not both");
    const auto rows = cdpr::WorkspaceEvaluator(model, cdpr::WorkspaceOptions{}).row_names();
    read_wrench_set(a.wrench_box, a.wrench_set, model, rows, o.workspace);
  }
  if ((!a.attachment_min.empty() || !a.attachment_max.empty()) && !a.attachments)
    throw Error("--attachment-min/--attachment-max: only with --attachments");
  o.move_attachments = a.attachments;
  if (a.attachment_min.empty() != a.attachment_max.empty()) throw Error("--attachment-min/--attachment-max: give both or neither");
  if (!a.attachment_min.empty()) {
    o.attachment_min_m = parse_corner(a.attachment_min, "--attachment-min", planar);
    o.attachment_max_m = parse_corner(a.attachment_max, "--attachment-max", planar);
  }
  if (o.move_attachments) {
    try {
      (void)cdpr::attachment_box(model, o);
    } catch (const Error& e) {
      throw Error(std::string("--attachment-min/--attachment-max: ") + e.what());
    }
  }
}

void run(const DesignArgs& a) {
  cdpr::ModelFile mf = cdpr::load_model(a.model);
  const cdpr::Model& model = mf.model;
  const bool planar = model.motion == cdpr::Motion::kPlanar;
  const auto prov = provenance(read_file_bytes(a.model), a.model);

  cdpr::DesignOptions o;
  o.frame_min_m = parse_corner(a.frame_min, "--frame-min", planar);
  o.frame_max_m = parse_corner(a.frame_max, "--frame-max", planar);
  try {
    cdpr::check_frame_box(model, o);
  } catch (const Error& e) {
    throw Error(std::string("--frame-min/--frame-max: ") + e.what());
  }
  if (a.evaluations < 1) throw Error("--evaluations: must be >= 1 (got " + std::to_string(a.evaluations) + ")");
  o.max_evaluations = a.evaluations;
  try {
    o.objective = cdpr::design_objective_from_string(a.objective);
  } catch (const Error& e) {
    throw Error(std::string("--objective: ") + e.what());
  }
  design_wrench_set_and_attachments(a, model, planar, o);
  if (a.step != 0.0 && !(a.step > 0.0 && std::isfinite(a.step))) throw Error("--step: must be > 0 [m]");
  // default step: a tenth of the frame box's smallest side
  o.initial_step_m = a.step > 0.0 ? a.step : 0.1 * (o.frame_max_m - o.frame_min_m).head(planar ? 2 : 3).minCoeff();
  if (o.objective == cdpr::DesignObjective::kTensionMargin && !std::isfinite(model.f_max_N))
    throw Error(a.model + ": tension.max: the tension-margin score needs a finite upper tension bound");

  const Eigen::MatrixXd q = design_region(a, mf, planar);  // the region: a grid of positions at one orientation
  const Eigen::Index npose = q.rows();

  cdpr::DesignResult r;
  try {
    r = cdpr::optimise_anchors(model, q, o);
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find("zero length") != std::string::npos) throw Error("--region: " + msg);
    throw;
  }

  // ------------------------------------------------------------------ files
  const std::filesystem::path dir(a.out);
  io::ResultSet results(dir);
  cdpr::ModelFile best = mf;
  best.model = r.best;
  io::write_file_atomic(results.file("model.yaml"), cdpr::to_yaml(best));
  auto score_json = [](const cdpr::DesignScore& s) {
    return nlohmann::json{{"score", s.score}, {"feasible_poses", s.feasible}, {"poses", s.poses}};
  };
  nlohmann::json j = {{"command", "cdpr design"},
                      {"model", model.name},
                      {"objective", cdpr::to_string(o.objective)},
                      {"move_attachments", o.move_attachments},
                      {"frame_min_m", {o.frame_min_m.x(), o.frame_min_m.y(), o.frame_min_m.z()}},
                      {"frame_max_m", {o.frame_max_m.x(), o.frame_max_m.y(), o.frame_max_m.z()}},
                      {"region_poses", npose},
                      {"initial_step_m", o.initial_step_m},
                      {"max_evaluations", o.max_evaluations},
                      {"evaluations", r.evaluations},
                      {"start", score_json(r.start_score)},
                      {"best", score_json(r.best_score)},
                      {"improvement", r.best_score.score - r.start_score.score},
                      {"anchors_start_m", points_json(r.start, r.start.p_WA, planar)},
                      {"anchors_best_m", points_json(r.best, r.best.p_WA, planar)}};
  if (o.move_attachments) {
    j["attachments_start_m"] = points_json(r.start, r.start.p_PB, planar);
    j["attachments_best_m"] = points_json(r.best, r.best.p_PB, planar);
  }
  if (o.workspace.wrench_lo.size() != 0 || o.workspace.wrench_centre.size() != 0)
    j["wrench_set"] = wrench_set_json(o.workspace, cdpr::WorkspaceEvaluator(model, o.workspace).row_names());
  write_summary(results.file("summary.json"), j, prov);
  results.commit();

  std::printf("tendyn cdpr design: model %s, %ld region poses, %d evaluations\n", model.name.c_str(), static_cast<long>(npose),
              r.evaluations);
  const char* score_name = o.objective == cdpr::DesignObjective::kTensionMargin    ? "mean tension margin"
                           : o.objective == cdpr::DesignObjective::kCapacityMargin ? "worst capacity margin [N, N m]"
                                                                                   : "feasible fraction of the region";
  std::printf("score (%s) %.6g -> %.6g, feasible poses %d -> %d of %d\n", score_name, r.start_score.score, r.best_score.score,
              r.start_score.feasible, r.best_score.feasible, r.best_score.poses);
  std::printf("wrote %s (model.yaml, summary.json)\n", dir.string().c_str());
}

}  // namespace

void register_cdpr_design(CLI::App& app) {
  auto a = std::make_shared<DesignArgs>();
  auto* cmd = cdpr_group(app)->add_subcommand(
      "design",
      "move the frame anchors (and attachments) within boxes to improve the tension margin, capacity margin or workspace "
      "volume over a region (docs/CDPR.md)");
  cmd->add_option("model", a->model, "CDPR model file (YAML, docs/CDPR.md); needs tension.max")->required()->check(existing_file());
  cmd->add_option("--frame-min", a->frame_min, "lower corner of the frame box x,y,z [m] (planar: x,y)")->required();
  cmd->add_option("--frame-max", a->frame_max, "upper corner of the frame box x,y,z [m] (planar: x,y)")->required();
  cmd->add_option("--region", a->region, "X0:X1:NX,Y0:Y1:NY[,Z0:Z1:NZ] cell-centred grid of platform positions [m] the design is scored on")
      ->required();
  cmd->add_option("--orientation", a->orientation,
                  "platform orientation over the region: roll,pitch,yaw (planar: phi) [rad]; default: model's pose");
  cmd->add_option("--objective", a->objective,
                  "tension-margin (mean centred tension margin), capacity-margin (worst capacity margin over the region) or "
                  "volume (fraction of the region in the wrench-feasible workspace)")
      ->capture_default_str();
  cmd->add_option("--wrench-box", a->wrench_box,
                  "capacity-margin, volume: external wrenches ROW=LO:HI,... [N, N m] (as cdpr workspace; default: the weight alone)");
  cmd->add_option(
      "--wrench-set", a->wrench_set,
      "capacity-margin, volume: box:... or ellipsoid:ROW=CENTRE:SEMI_AXIS,... or ellipsoid:centre=..,shape=.. (as cdpr workspace; "
      "default: the weight alone)");
  cmd->add_flag("--attachments", a->attachments, "also move the platform attachment points (within --attachment-min/-max)");
  cmd->add_option("--attachment-min", a->attachment_min,
                  "lower corner of the attachment box x,y,z [m] in the platform frame (default: the attachments' bounding box)");
  cmd->add_option("--attachment-max", a->attachment_max,
                  "upper corner of the attachment box x,y,z [m] in the platform frame (default: the attachments' bounding box)");
  cmd->add_option("--evaluations", a->evaluations, "score evaluations of the Nelder-Mead search (>= 1)")->capture_default_str();
  cmd->add_option("--step", a->step, "initial simplex step [m] (default: a tenth of the frame box's smallest side)");
  cmd->add_option("-o,--out", a->out, "output directory: model.yaml, summary.json")->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "(accepted for symmetry; the command prints three lines)");
  cmd->callback([a] { run(*a); });
}

}  // namespace tendyn::cli
