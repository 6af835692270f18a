// tendyn cdpr workspace: wrench-feasible, static and wrench-closure workspaces of a CDPR model.
// Option parsing and printing only: the evaluation is include/tendyn/cdpr/workspace.hpp.
//   tendyn cdpr workspace MODEL [--kind feasible|static|closure] [--wrench-box fx=-10:10,mz=-1:1 |
//                         --wrench-set box:...|ellipsoid:fx=0:10,mz=0:1|ellipsoid:centre=..,shape=..]
//                         [--grid X0:X1:NX,Y0:Y1:NY[,Z0:Z1:NZ]] [--orientation R,P,Y | PHI]
//                         [--rays N --start X,Y[,Z]] [--orientation-grid R0:R1:N,P0:P1:N,Y0:Y1:N --at X,Y[,Z]]
//                         [--group G] [--rows fx,fy,...] [--fmin F] [--fmax F] [--threads T] [-o DIR]
//                         [--html [--cloud-outside]]
// Writes DIR/grid.csv, DIR/boundary.csv, DIR/rays.csv (--rays), DIR/orientations.csv
// (--orientation-grid), DIR/scene.json (the robot and the grid as a point cloud), DIR/view.html
// (--html) and DIR/summary.json as one result set.
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cdpr_wrench_set.hpp"
#include "cli_util.hpp"
#include "commands.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {
namespace {

struct WsArgs {
  std::string model, kind = "feasible", wrench_box, wrench_set, grid, orientation, start, orientation_grid, at, group, rows;
  std::string out = "out/cdpr-workspace";
  std::optional<double> fmin, fmax;
  int rays = 0;
  double ray_step = 0.0, ray_tol = 0.0, ray_length = 0.0;
  int threads = 0;
  bool no_margin = false, quiet = false, html = false, cloud_outside = false;
  double max_page_mb = kDefaultMaxPageMb;
  OutputBudget budget;
};

struct Axis {
  double lo = 0.0, hi = 0.0;
  int count = 1;
};

// "LO:HI:COUNT"
Axis parse_axis(const std::string& field, const std::string& where) {
  const auto parts = io::split_fields(field, ':');
  if (parts.size() != 3) throw Error(where + ": '" + field + "': expected LO:HI:COUNT");
  Axis a;
  a.lo = io::parse_finite(parts[0], where);
  a.hi = io::parse_finite(parts[1], where);
  const double c = io::parse_finite(parts[2], where);
  if (c != std::floor(c) || c < 1 || c > 1e8) throw Error(where + ": count '" + parts[2] + "' must be a whole number >= 1");
  a.count = static_cast<int>(c);
  if (a.lo > a.hi) throw Error(where + ": lower bound " + parts[0] + " > upper bound " + parts[1]);
  return a;
}

std::vector<Axis> parse_axes(const std::string& text, const std::string& option, std::size_t n) {
  const auto fields = io::split_fields(text);
  if (fields.size() != n)
    throw Error(option + ": " + std::to_string(fields.size()) + " axes given, this model needs " + std::to_string(n) +
                " (LO:HI:COUNT for each)");
  std::vector<Axis> out;
  static const char* kNames[] = {"x", "y", "z"};
  for (std::size_t k = 0; k < n; ++k) out.push_back(parse_axis(fields[k], option + " " + kNames[k]));
  return out;
}

Eigen::Vector3d parse_point(const std::string& text, const std::string& option, bool planar) {
  const auto v = io::parse_finite_list(text, option);
  const std::size_t n = planar ? 2 : 3;
  if (v.size() != n)
    throw Error(option + ": expected " + std::string(planar ? "x,y" : "x,y,z") + " [m], got " + std::to_string(v.size()) + " values");
  return Eigen::Vector3d(v[0], v[1], planar ? 0.0 : v[2]);
}

nlohmann::json num_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// One `cdpr workspace` run, step by step: the evaluator's options, the grid and its orientation, the
// evaluations, the files and the report.
struct Workspace {
  const WsArgs& a;
  const cdpr::ModelFile mf;
  const cdpr::Model& model;
  const bool planar;
  cdpr::WorkspaceOptions o;
  std::vector<std::string> row_names;
  Eigen::Matrix3d R_WP = Eigen::Matrix3d::Identity();
  Eigen::Vector3d start = Eigen::Vector3d::Zero();
  cdpr::WorkspaceGrid grid;
  double npoints = 0.0;
  std::vector<cdpr::Pose> orient_poses;
  cdpr::WorkspaceGridResult grid_result;
  cdpr::RayResult rays;
  cdpr::RaySpec spec;
  std::vector<cdpr::PoseVerdict> orient;
  int orient_inside = 0;
  double margin_min = 0.0, margin_max = 0.0;

  explicit Workspace(const WsArgs& args)
      : a(args), mf(cdpr::load_model(args.model)), model(mf.model), planar(model.motion == cdpr::Motion::kPlanar) {}
  void read_options();
  void read_orientation();
  void make_grid();
  void read_orientation_grid();
  void evaluate();
  void write_csv_files(io::ResultSet& results);
  nlohmann::json summary() const;
  void print_report(const std::filesystem::path& dir, bool wrote_html) const;
};

// The evaluator's options (group, rows, tension bounds, wrench box), checked by an evaluator.
void Workspace::read_options() {
  o.kind = cdpr::workspace_kind_from_string(a.kind);
  o.group = a.group;
  for (const auto& r : io::split_fields(a.rows)) o.rows.push_back(cdpr::wrench_row_from_string(r));
  if (a.fmin) o.f_min_N = *a.fmin;
  if (a.fmax) o.f_max_N = *a.fmax;
  o.margin = !a.no_margin;
  o.threads = a.threads;
  {
    cdpr::WorkspaceOptions probe = o;  // validates group, rows and bounds; gives the row names
    try {
      row_names = cdpr::WorkspaceEvaluator(model, probe).row_names();
    } catch (const Error& e) {
      const std::string msg = e.what();
      if (msg.find("f_min_N") != std::string::npos) throw Error("--fmin/--fmax: " + msg);
      throw;
    }
  }
  if (!a.wrench_box.empty() && !a.wrench_set.empty()) throw Error("--wrench-box, --wrench-set: give one wrench set, not both");
  if (!a.wrench_box.empty() || !a.wrench_set.empty()) {
    const std::string option = a.wrench_box.empty() ? "--wrench-set" : "--wrench-box";
    if (o.kind != cdpr::WorkspaceKind::kFeasible)
      throw Error(option + ": only with --kind feasible (got --kind " + cdpr::to_string(o.kind) + ")");
    read_wrench_set(a.wrench_box, a.wrench_set, model, row_names, o);
  }
}

// The orientation of the grid and the rays, and the rays' start: the model's pose, --orientation, --start.
void Workspace::read_orientation() {
  if (mf.default_pose.size() != 0) {
    const cdpr::Pose p = cdpr::pose_from_vector(model, mf.default_pose);
    R_WP = p.R_WP;
    start = p.p_WP;
  }
  if (!a.orientation.empty()) {
    const auto v = io::parse_finite_list(a.orientation, "--orientation");
    if (planar) {
      if (v.size() != 1) throw Error("--orientation: a planar model takes one angle phi [rad]");
      R_WP = cdpr::pose_planar(0.0, 0.0, v[0]).R_WP;
    } else {
      if (v.size() != 3) throw Error("--orientation: expected roll,pitch,yaw [rad]");
      R_WP = cdpr::pose_from_xyz_rpy(Eigen::Vector3d::Zero(), Eigen::Vector3d(v[0], v[1], v[2])).R_WP;
    }
  }
  if (!a.start.empty()) start = parse_point(a.start, "--start", planar);
}

// The grid: the anchors' bounding box by default, else --grid (planar: one layer at z = 0).
void Workspace::make_grid() {
  grid.R_WP = R_WP;
  if (a.grid.empty()) {
    // the anchors' box grown to hold the model's pose (a suspended robot's anchors may all lie at
    // one height: the box alone would be a slab at the anchors)
    Eigen::Vector3d lo = model.p_WA.rowwise().minCoeff(), hi = model.p_WA.rowwise().maxCoeff();
    if (mf.default_pose.size() != 0) {
      lo = lo.cwiseMin(start);
      hi = hi.cwiseMax(start);
    }
    grid.lo_m = lo;
    grid.hi_m = hi;
    grid.count = planar ? std::array<int, 3>{100, 100, 1} : std::array<int, 3>{25, 25, 25};
  } else {
    const auto axes = parse_axes(a.grid, "--grid", planar ? 2 : 3);
    for (std::size_t k = 0; k < axes.size(); ++k) {
      grid.lo_m[static_cast<Eigen::Index>(k)] = axes[k].lo;
      grid.hi_m[static_cast<Eigen::Index>(k)] = axes[k].hi;
      grid.count[k] = axes[k].count;
    }
  }
  if (planar) {
    grid.lo_m.z() = grid.hi_m.z() = 0.0;
    grid.count[2] = 1;
  }
  npoints = static_cast<double>(grid.count[0]) * grid.count[1] * grid.count[2];
}

// The orientation workspace at a point (--orientation-grid at --at, else at the start).
void Workspace::read_orientation_grid() {
  if (!a.orientation_grid.empty()) {
    const auto fields = io::split_fields(a.orientation_grid);
    Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Zero();
    std::array<int, 3> count{1, 1, 1};
    if (planar) {
      if (fields.size() != 1) throw Error("--orientation-grid: a planar model takes one axis PHI0:PHI1:N [rad]");
      const Axis ax = parse_axis(fields[0], "--orientation-grid phi");
      lo.z() = ax.lo;
      hi.z() = ax.hi;
      count[2] = ax.count;
    } else {
      if (fields.size() != 3) throw Error("--orientation-grid: expected R0:R1:N,P0:P1:N,Y0:Y1:N [rad]");
      static const char* kNames[] = {"roll", "pitch", "yaw"};
      for (int k = 0; k < 3; ++k) {
        const Axis ax = parse_axis(fields[static_cast<std::size_t>(k)], std::string("--orientation-grid ") + kNames[k]);
        lo[k] = ax.lo;
        hi[k] = ax.hi;
        count[static_cast<std::size_t>(k)] = ax.count;
      }
    }
    const Eigen::Vector3d at = a.at.empty() ? start : parse_point(a.at, "--at", planar);
    orient_poses = cdpr::orientation_grid(model, at, lo, hi, count);
  }
}

// The evaluations: the grid, the rays, the orientations.
void Workspace::evaluate() {
  Progress progress("cdpr workspace", !a.quiet);
  const double work_grid = npoints, work_rays = a.rays * 30.0, work_orient = static_cast<double>(orient_poses.size());
  const double work = work_grid + work_rays + work_orient;
  progress.update(0.0);
  grid_result = cdpr::evaluate_grid(model, o, grid, [&](double f) { progress.update(f * work_grid / work); });

  if (a.rays > 0) {
    spec.start_m = start;
    spec.R_WP = R_WP;
    spec.count = a.rays;
    const double diag = (model.p_WA.rowwise().maxCoeff() - model.p_WA.rowwise().minCoeff()).norm();
    spec.max_length_m = a.ray_length > 0 ? a.ray_length : diag;
    spec.step_m = a.ray_step > 0 ? a.ray_step : spec.max_length_m / 200.0;
    spec.tol_m = a.ray_tol > 0 ? a.ray_tol : spec.step_m * 1e-3;
    try {
      rays = cdpr::cast_rays(model, o, spec, [&](double f) { progress.update((work_grid + f * work_rays) / work); });
    } catch (const Error& e) {
      const std::string msg = e.what();
      if (msg.rfind("ray start", 0) == 0) throw Error("--start: " + msg);
      throw Error("--rays: " + msg);
    }
  }
  if (!orient_poses.empty())
    orient =
        cdpr::evaluate_poses(model, o, orient_poses, [&](double f) { progress.update((work_grid + work_rays + f * work_orient) / work); });
  progress.finish();
}

// grid.csv, boundary.csv, rays.csv, orientations.csv
void Workspace::write_csv_files(io::ResultSet& results) {
  io::CsvLine line;
  {
    std::string csv = "x_m,y_m,z_m,status,capacity_margin_N,residual_norm_N\n";
    for (int i = 0; i < grid_result.p_WP.cols(); ++i) {
      const auto& v = grid_result.verdicts[static_cast<std::size_t>(i)];
      line.clear();
      line.num(grid_result.p_WP(0, i))
          .num(grid_result.p_WP(1, i))
          .num(grid_result.p_WP(2, i))
          .text(cdpr::to_string(v.cls))
          .num(v.margin)
          .num(v.residual);
      csv += line.str();
      csv += '\n';
    }
    io::write_file_atomic(results.file("grid.csv"), csv);
  }
  {
    std::string csv = "x_m,y_m,z_m,capacity_margin_N\n";
    for (int i : grid_result.boundary) {
      line.clear();
      line.num(grid_result.p_WP(0, i))
          .num(grid_result.p_WP(1, i))
          .num(grid_result.p_WP(2, i))
          .num(grid_result.verdicts[static_cast<std::size_t>(i)].margin);
      csv += line.str();
      csv += '\n';
    }
    io::write_file_atomic(results.file("boundary.csv"), csv);
  }
  if (a.rays > 0) {
    std::string csv = "azimuth_rad,elevation_rad,distance_m,x_m,y_m,z_m,status,capacity_margin_N\n";
    for (int k = 0; k < a.rays; ++k) {
      const Eigen::Vector3d d = rays.direction.col(k);
      line.clear();
      line.num(std::atan2(d.y(), d.x()))
          .num(std::asin(std::clamp(d.z(), -1.0, 1.0)))
          .num(rays.distance_m[k])
          .num(rays.boundary_m(0, k))
          .num(rays.boundary_m(1, k))
          .num(rays.boundary_m(2, k))
          .text(rays.clipped[static_cast<std::size_t>(k)] ? "clipped" : "boundary")
          .num(rays.verdicts[static_cast<std::size_t>(k)].margin);
      csv += line.str();
      csv += '\n';
    }
    io::write_file_atomic(results.file("rays.csv"), csv);
  }
  if (!orient.empty()) {
    std::string csv = "roll_rad,pitch_rad,yaw_rad,status,capacity_margin_N,residual_norm_N\n";
    for (std::size_t i = 0; i < orient.size(); ++i) {
      const Eigen::Matrix3d& R = orient_poses[i].R_WP;
      // R = Rz(yaw) Ry(pitch) Rx(roll)
      const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
      const double roll = std::atan2(R(2, 1), R(2, 2)), yaw = std::atan2(R(1, 0), R(0, 0));
      line.clear();
      line.num(roll).num(pitch).num(yaw).text(cdpr::to_string(orient[i].cls)).num(orient[i].margin).num(orient[i].residual);
      csv += line.str();
      csv += '\n';
      orient_inside += orient[i].inside();
    }
    io::write_file_atomic(results.file("orientations.csv"), csv);
  }
}

// summary.json (without the provenance)
nlohmann::json Workspace::summary() const {
  const char* measure_name = planar ? "area_m2" : "volume_m3";
  nlohmann::json box = nullptr;
  if (o.wrench_lo.size() != 0) {
    box = nlohmann::json::object();
    for (std::size_t r = 0; r < row_names.size(); ++r)
      box[row_names[r]] = {o.wrench_lo[static_cast<Eigen::Index>(r)], o.wrench_hi[static_cast<Eigen::Index>(r)]};
  }
  const cdpr::WorkspaceEvaluator probe(model, o);
  nlohmann::json j = {{"command", "cdpr workspace"},
                      {"model", model.name},
                      {"kind", cdpr::to_string(o.kind)},
                      {"rows", row_names},
                      {"group", a.group},
                      {"f_min_N", probe.problem().options.f_min_N},
                      {"f_max_N", num_or_null(probe.problem().options.f_max_N)},
                      {"wrench_box", box},
                      {"grid",
                       {{"lo_m", {grid.lo_m.x(), grid.lo_m.y(), grid.lo_m.z()}},
                        {"hi_m", {grid.hi_m.x(), grid.hi_m.y(), grid.hi_m.z()}},
                        {"count", grid.count},
                        {"points", grid_result.p_WP.cols()},
                        {"inside", grid_result.inside_count},
                        {"undefined", grid_result.undefined_count},
                        {"undecided", grid_result.undecided_count},
                        {"boundary_points", grid_result.boundary.size()},
                        {"inside_on_grid_edge", grid_result.edge_inside_count},
                        {measure_name, grid_result.measure},
                        {"capacity_margin_min_N", num_or_null(margin_min)},
                        {"capacity_margin_max_N", num_or_null(margin_max)}}},
                      {"empty", grid_result.inside_count == 0}};
  if (o.wrench_centre.size() != 0) j["wrench_ellipsoid"] = wrench_set_json(o, row_names)["ellipsoid"];
  if (a.rays > 0) {
    int clipped = 0;
    for (bool c : rays.clipped) clipped += c;
    j["rays"] = {{"count", a.rays},
                 {"start_m", {start.x(), start.y(), start.z()}},
                 {"max_length_m", spec.max_length_m},
                 {"step_m", spec.step_m},
                 {"tol_m", spec.tol_m},
                 {"clipped", clipped},
                 {"evaluations", rays.evaluations},
                 {std::string(measure_name) + "_if_star_shaped", rays.measure}};
  }
  if (!orient.empty()) j["orientations"] = {{"count", orient.size()}, {"inside", orient_inside}};
  return j;
}

// the terminal report
void Workspace::print_report(const std::filesystem::path& dir, bool wrote_html) const {
  const cdpr::WorkspaceEvaluator probe(model, o);
  std::printf("tendyn cdpr workspace: model %s, kind %s, tensions [%g, %g] N\n", model.name.c_str(), cdpr::to_string(o.kind),
              probe.problem().options.f_min_N, probe.problem().options.f_max_N);
  std::printf("grid %d x %d x %d: %d of %ld poses inside, %s %.6g%s\n", grid.count[0], grid.count[1], grid.count[2],
              grid_result.inside_count, static_cast<long>(grid_result.p_WP.cols()), planar ? "area" : "volume", grid_result.measure,
              planar ? " m^2" : " m^3");
  if (std::isfinite(margin_min)) std::printf("capacity margin over the inside poses: %.6g .. %.6g (N, N m rows)\n", margin_min, margin_max);
  if (grid_result.undefined_count > 0)
    std::printf("%d grid poses put a cable at zero length (undefined, counted outside)\n", grid_result.undefined_count);
  if (grid_result.edge_inside_count > 0)
    std::printf("%d inside poses lie on the grid's outer layer: the workspace extends beyond the grid\n", grid_result.edge_inside_count);
  if (a.rays > 0) {
    int clipped = 0;
    for (bool c : rays.clipped) clipped += c;
    std::printf("%d rays from (%g, %g, %g): %s %.6g if star-shaped, %d rays clipped at %g m, %d evaluations\n", a.rays, start.x(),
                start.y(), start.z(), planar ? "area" : "volume", rays.measure, clipped, spec.max_length_m, rays.evaluations);
  }
  if (!orient.empty()) std::printf("orientations: %d of %zu inside\n", orient_inside, orient.size());
  std::printf("wrote %s\n", dir.string().c_str());
  if (wrote_html) std::printf("viewer: %s\n", (dir / "view.html").string().c_str());
  if (grid_result.inside_count == 0)
    std::fprintf(stderr,
                 "tendyn cdpr workspace: warning: the %s workspace is EMPTY on this grid: no pose of the %ld is inside "
                 "(grid.csv lists every pose as outside; summary.json has \"empty\": true)\n",
                 cdpr::to_string(o.kind), static_cast<long>(grid_result.p_WP.cols()));
}

void run(const WsArgs& a) {
  if (a.html) require_viewer();
  if (a.cloud_outside && !a.html) throw Error("--cloud-outside: only with --html");
  Workspace W(a);
  const cdpr::Model& model = W.model;
  const auto prov = provenance(read_file_bytes(a.model), a.model);

  W.read_options();
  W.read_orientation();
  W.make_grid();
  if (a.rays < 0) throw Error("--rays: must be >= 0");
  W.read_orientation_grid();
  a.budget.check(
      "cdpr workspace", W.npoints * 130.0 + static_cast<double>(a.rays) * 150.0 + static_cast<double>(W.orient_poses.size()) * 90.0,
      "grid.csv, scene.json, rays.csv and orientations.csv", W.npoints * 40.0, "the verdict of every grid pose", "use a coarser --grid");

  W.evaluate();

  // ------------------------------------------------------------------ files
  const std::filesystem::path dir(a.out);
  io::ResultSet results(dir);
  W.write_csv_files(results);
  W.margin_min = std::numeric_limits<double>::infinity();
  W.margin_max = -W.margin_min;
  for (const auto& v : W.grid_result.verdicts)
    if (v.inside() && std::isfinite(v.margin)) {
      W.margin_min = std::min(W.margin_min, v.margin);
      W.margin_max = std::max(W.margin_max, v.margin);
    }
  const nlohmann::json j = W.summary();
  // the viewer scene: the robot at the grid's orientation (at the model's pose, or --start) and
  // the grid as a point cloud coloured by the capacity margin
  cdpr::Pose view_pose;
  view_pose.p_WP = W.start;
  view_pose.R_WP = W.R_WP;
  viz::Scene scene = viz::workspace_scene(model, view_pose, W.grid_result, "capacity margin [N]", a.cloud_outside);
  scene.title = model.name + " workspace (" + cdpr::to_string(W.o.kind) + ")";
  bool wrote_html = false;
  try {
    wrote_html = !write_scene_outputs(results.staging(), scene, a.html, a.max_page_mb).empty();
  } catch (const Error& e) {
    if (!a.html) throw;
    throw Error("--html: the point cloud of " + std::to_string(scene.clouds[0].values.size()) +
                " grid points does not fit in view.html (use a coarser --grid or raise --max-page-mb): " + e.what());
  }
  write_summary(results.file("summary.json"), j, prov);
  results.commit();

  W.print_report(dir, wrote_html);
}

}  // namespace

CLI::App* cdpr_group(CLI::App& app) {
  const auto found = app.get_subcommands([](CLI::App* s) { return s->get_name() == "cdpr"; });
  if (!found.empty()) return found.front();
  auto* g = app.add_subcommand("cdpr", "cable-driven parallel robots: workspace and design tools");
  g->require_subcommand(1);
  return g;
}

void register_cdpr_workspace(CLI::App& app) {
  auto a = std::make_shared<WsArgs>();
  auto* cmd = cdpr_group(app)->add_subcommand(
      "workspace", "wrench-feasible, static or wrench-closure workspace: grid, rays, orientations (docs/CDPR.md)");
  cmd->add_option("model", a->model, "CDPR model file (YAML, docs/CDPR.md)")->required()->transform(model_file());
  cmd->add_option("--kind", a->kind, "feasible (weight + --wrench-box), static (weight only) or closure")->capture_default_str();
  cmd->add_option(
      "--wrench-box", a->wrench_box,
      "external wrenches on the platform, ROW=LO:HI per row [N, N m], e.g. fx=-10:10,mz=-1:1 (rows not named: 0; default: none)");
  cmd->add_option("--wrench-set", a->wrench_set,
                  "external wrench set [N, N m]: box:ROW=LO:HI,... (as --wrench-box), ellipsoid:ROW=CENTRE:SEMI_AXIS,... "
                  "(axis-aligned, rows not named 0:0) or ellipsoid:centre=C1:..:Cm,shape=E11:..:Emm (symmetric positive "
                  "semi-definite, row-major, rows as --rows); the ellipsoid {centre + shape u : |u| <= 1} is tested exactly "
                  "by the facets of the available wrench set (docs/CDPR.md; default: none)");
  cmd->add_option(
      "--grid", a->grid,
      "X0:X1:NX,Y0:Y1:NY[,Z0:Z1:NZ] cell-centred position grid [m] (default: the box of the anchors and --start, 25^3 or 100^2)");
  cmd->add_option("--orientation", a->orientation,
                  "platform orientation of the grid and rays: roll,pitch,yaw (planar: phi) [rad]; default: model's pose");
  cmd->add_option("--rays", a->rays, "ray casting: number of rays from --start (0: none)")->capture_default_str();
  cmd->add_option("--start", a->start, "start point of the rays x,y[,z] [m] (must be inside; default: model's pose)");
  cmd->add_option("--ray-length", a->ray_length, "longest ray [m] (default: the anchors' box diagonal)");
  cmd->add_option("--ray-step", a->ray_step, "march step along a ray [m] (default: ray length / 200)");
  cmd->add_option("--ray-tol", a->ray_tol, "bisection tolerance [m] (default: step / 1000)");
  cmd->add_option("--orientation-grid", a->orientation_grid,
                  "orientation workspace: R0:R1:N,P0:P1:N,Y0:Y1:N (planar PHI0:PHI1:N) [rad] at --at (default: none)");
  cmd->add_option("--at", a->at, "position of the orientation workspace x,y[,z] [m] (default: --start)");
  cmd->add_option("--group", a->group, "use only the cables of this group (default: all cables)");
  cmd->add_option("--rows", a->rows, "wrench rows to keep, e.g. fx,fy,mz (default: all)");
  cmd->add_option("--fmin", a->fmin, "lower tension bound [N] (default: model's tension.min)");
  cmd->add_option("--fmax", a->fmax, "upper tension bound [N] (default: model's tension.max)");
  cmd->add_option("--threads", a->threads, "threads (0: one per core); results do not depend on it")->capture_default_str();
  cmd->add_flag("--no-margin", a->no_margin, "skip the capacity margin (faster)");
  cmd->add_flag("--html", a->html,
                "also write view.html: the robot and the grid as a point cloud coloured by the capacity margin (docs/VIEWER.md)");
  cmd->add_flag("--cloud-outside", a->cloud_outside, "with --html: also draw the outside grid points (faint)");
  cmd->add_option("--max-page-mb", a->max_page_mb, "largest view.html [MB]")->capture_default_str();
  cmd->add_option("-o,--out", a->out, "output directory")->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "no progress line");
  a->budget.add_to(*cmd);
  cmd->callback([a] { run(*a); });
}

}  // namespace tendyn::cli
