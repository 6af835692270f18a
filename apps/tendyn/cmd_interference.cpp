// tendyn tension interference: cable-cable distances and cable-platform collision along a pose
// trajectory (include/tendyn/cdpr/interference.hpp). Option parsing and printing only.
//   tendyn tension interference MODEL.yaml --in poses.csv [--clearance M] [--platform hull|none|box:LX,LY,LZ]
//                               [--tolerance M] [-o DIR] [--json]
#include <tendyn/cdpr/interference.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {
namespace {

struct InterferenceArgs {
  std::string model, in, out_dir = "out/interference", platform = "hull";
  double clearance = 0.0, tolerance = 1e-6;
  bool json = false;
};

std::optional<cdpr::ConvexShape> parse_platform(const std::string& s, const cdpr::Model& model) {
  if (s == "none") return std::nullopt;
  if (s == "hull") {
    try {
      return cdpr::convex_hull_shape(model.p_PB);
    } catch (const Error& e) {
      throw Error(std::string("--platform hull: ") + e.what() + " (give --platform box:LX,LY,LZ or none)");
    }
  }
  if (s.rfind("box:", 0) == 0) {
    const auto v = io::parse_finite_list(s.substr(4), "--platform box");
    if (v.size() != 3) throw Error("--platform box: needs 3 sizes LX,LY,LZ [m] (got " + std::to_string(v.size()) + ")");
    if (!(v[0] > 0 && v[1] > 0 && v[2] > 0)) throw Error("--platform box: sizes must be > 0");
    return cdpr::box_shape(Eigen::Vector3d(v[0], v[1], v[2]) / 2.0);
  }
  throw Error("--platform: expected hull, none or box:LX,LY,LZ (got '" + s + "')");
}

void run_interference(const InterferenceArgs& a) {
  if (!(a.clearance >= 0.0) || !std::isfinite(a.clearance)) throw Error("--clearance: must be a finite value >= 0 [m]");
  if (!(a.tolerance > 0.0) || !std::isfinite(a.tolerance)) throw Error("--tolerance: must be a finite value > 0 [m]");
  const cdpr::ModelFile mf = cdpr::load_model(a.model);
  const auto& model = mf.model;
  cdpr::InterferenceOptions o;
  o.clearance_m = a.clearance;
  o.penetration_tol_m = a.tolerance;
  o.platform = parse_platform(a.platform, model);
  const cdpr::PoseTrajectory traj = cdpr::read_pose_trajectory(a.in, model);
  if (traj.q.rows() == 0) throw Error(a.in + ": no pose rows");
  const cdpr::TrajectoryInterference r = cdpr::trajectory_interference(model, traj, o);
  const auto place = [&](long row) { return row < 0 ? std::string("-") : traj.places[static_cast<std::size_t>(row)]; };
  const std::filesystem::path dir(a.out_dir);
  io::ResultSet out(dir);
  io::write_file_atomic(out.file("interference.csv"), cdpr::interference_csv(model, r));
  out.commit();
  if (a.json) {
    nlohmann::json j;
    j["model"] = model.name;
    j["poses"] = r.rows;
    j["clearance_m"] = a.clearance;
    j["platform"] = o.platform ? nlohmann::json(o.platform->description) : nlohmann::json(nullptr);
    j["first_interference"] = r.first_interference_row >= 0 ? nlohmann::json(place(r.first_interference_row)) : nlohmann::json(nullptr);
    nlohmann::json pairs = nlohmann::json::array();
    for (std::size_t k = 0; k < r.pairs.size(); ++k) {
      const double d = r.min_distance_m[static_cast<Eigen::Index>(k)];
      pairs.push_back({{"cables",
                        {model.cable_names[static_cast<std::size_t>(r.pairs[k].first)],
                         model.cable_names[static_cast<std::size_t>(r.pairs[k].second)]}},
                       {"min_distance_m", std::isnan(d) ? nlohmann::json(nullptr) : nlohmann::json(d)},
                       {"first_close", r.first_close_row[k] >= 0 ? nlohmann::json(place(r.first_close_row[k])) : nlohmann::json(nullptr)}});
    }
    j["pairs"] = pairs;
    nlohmann::json pl = nlohmann::json::array();
    for (int i = 0; i < model.ncable(); ++i) {
      const long f = r.first_penetration_row[static_cast<std::size_t>(i)];
      pl.push_back({{"cable", model.cable_names[static_cast<std::size_t>(i)]},
                    {"max_length_inside_m", r.max_penetration_m[i]},
                    {"first_inside", f >= 0 ? nlohmann::json(place(f)) : nlohmann::json(nullptr)}});
    }
    j["platform_collision"] = pl;
    clean_negative_zeros(j);
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("model %s, %zu poses, clearance %g m, platform %s\n", model.name.c_str(), r.rows, a.clearance,
              o.platform ? o.platform->description.c_str() : "not checked");
  std::printf("%-8s %-8s %16s %-22s %s\n", "cable", "cable", "min dist. [m]", "at", "first below clearance");
  for (std::size_t k = 0; k < r.pairs.size(); ++k) {
    const double d = r.min_distance_m[static_cast<Eigen::Index>(k)];
    const std::string at = std::isnan(d) ? "(shared attachment point: not checked)" : place(static_cast<long>(r.min_row[k]));
    std::printf("%-8s %-8s %16.6g %-22s %s\n", model.cable_names[static_cast<std::size_t>(r.pairs[k].first)].c_str(),
                model.cable_names[static_cast<std::size_t>(r.pairs[k].second)].c_str(), d, at.c_str(), place(r.first_close_row[k]).c_str());
  }
  if (o.platform) {
    std::printf("\n%-8s %22s %s\n", "cable", "max length inside [m]", "first inside the platform");
    for (int i = 0; i < model.ncable(); ++i)
      std::printf("%-8s %22.6g %s\n", model.cable_names[static_cast<std::size_t>(i)].c_str(), r.max_penetration_m[i],
                  place(r.first_penetration_row[static_cast<std::size_t>(i)]).c_str());
  }
  std::printf("\n%s; wrote %s\n",
              r.first_interference_row < 0 ? "interference-free along the trajectory"
                                           : ("first interference at " + place(r.first_interference_row)).c_str(),
              (dir / "interference.csv").string().c_str());
}

}  // namespace

void register_tension_interference(CLI::App& tension) {
  auto a = std::make_shared<InterferenceArgs>();
  auto* c = tension.add_subcommand("interference", "cable-cable distances and cable-platform collision along a pose trajectory");
  c->add_option("model", a->model, "CDPR model file (YAML, docs/CDPR.md)")->required()->transform(model_file());
  c->add_option("--in", a->in, "CSV of poses, as for 'tension trajectory' (wrench columns ignored)")->required()->check(existing_file());
  c->add_option("--clearance", a->clearance, "cable pairs closer than this [m] interfere")->capture_default_str();
  c->add_option("--platform", a->platform,
                "platform shape: hull (convex hull of the attachment points), box:LX,LY,LZ (box of these sizes [m] centred "
                "at P, platform axes) or none")
      ->capture_default_str();
  c->add_option("--tolerance", a->tolerance, "a cable with more than this length [m] inside the platform collides")->capture_default_str();
  c->add_option("-o,--out", a->out_dir, "output directory: interference.csv")->capture_default_str();
  c->add_flag("--json", a->json, "print JSON instead of a table");
  c->callback([a] { run_interference(*a); });
}

}  // namespace tendyn::cli
