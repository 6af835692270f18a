// `tendyn sweep --spec FILE`: a declarative parameter grid over tensegrity simulations, the CLI
// twin of tendyn.sweep(spec, grid) in Python (same spec keys, same JSON-lines records, resumable).
#include <tendyn/io/atomic_file.hpp>
#include "sweep_spec.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include "io/yaml_util.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <numbers>
#include <thread>

#include "cli_util.hpp"

namespace tendyn::cli {

namespace {

namespace ts = tensegrity;
using nlohmann::json;

// Sets a PrismParams or SimulationOptions field by its C++ name; false if the name is neither.
bool set_prism(ts::PrismParams& p, const std::string& key, const json& v) {
  static const std::map<std::string, double ts::PrismParams::*> doubles = {
      {"rod_mass_kg", &ts::PrismParams::rod_mass_kg},       {"rod_length_m", &ts::PrismParams::rod_length_m},
      {"rod_radius_outer_m", &ts::PrismParams::rod_radius_outer_m}, {"rod_radius_inner_m", &ts::PrismParams::rod_radius_inner_m},
      {"stiffness_Npm", &ts::PrismParams::stiffness_Npm},   {"stiffness_top_Npm", &ts::PrismParams::stiffness_top_Npm},
      {"stiffness_bottom_Npm", &ts::PrismParams::stiffness_bottom_Npm}, {"stiffness_side_Npm", &ts::PrismParams::stiffness_side_Npm},
      {"damping_Nspm", &ts::PrismParams::damping_Nspm},     {"rest_length_m", &ts::PrismParams::rest_length_m},
      {"rest_top_m", &ts::PrismParams::rest_top_m},         {"rest_bottom_m", &ts::PrismParams::rest_bottom_m},
      {"rest_side_m", &ts::PrismParams::rest_side_m},       {"psi_rad", &ts::PrismParams::psi_rad},
      {"radius_m", &ts::PrismParams::radius_m},             {"pivot", &ts::PrismParams::pivot},
      {"height_m", &ts::PrismParams::height_m}};
  if (key == "psi_deg") {
    p.psi_rad = v.get<double>() * std::numbers::pi / 180.0;
  } else if (key == "damping_law") {
    p.damping_law = v.get<std::string>() == "axial" ? ts::DampingLaw::kAxial : ts::DampingLaw::kRelativeVelocity;
  } else if (key == "n") {
    p.n = v.get<int>();
  } else if (auto it = doubles.find(key); it != doubles.end()) {
    p.*(it->second) = v.get<double>();
  } else {
    return false;
  }
  return true;
}

bool set_simulation(ts::SimulationOptions& o, const std::string& key, const json& v) {
  if (key == "duration_s") o.duration_s = v.get<double>();
  else if (key == "dt_s") o.dt_s = v.get<double>();
  else if (key == "output_interval_s") o.output_interval_s = v.get<double>();
  else if (key == "strain_limit") o.strain_limit = v.get<double>();
  else if (key == "slack_tolerance") o.slack_tolerance = v.get<double>();
  else if (key == "integrator") o.integrator = ts::integrator_from_string(v.get<std::string>());
  else return false;
  return true;
}

// Limits of a spec (docs/CLI.md): YAML nodes after alias expansion, grid points.
constexpr long kMaxSpecNodes = 1000000;
constexpr double kMaxGridPoints = 1e6;

std::string yaml_place(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return m.line < 0 ? file : file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// A mapping key as a string; a null, sequence or mapping key is an input error with its place.
std::string scalar_key(const std::string& file, const YAML::Node& key) {
  if (!key.IsScalar()) throw Error(yaml_place(file, key) + ": a mapping key must be a plain name");
  return key.Scalar();
}

// YAML -> JSON. An alias is expanded at every use, so the visited nodes are counted and bounded
// (a "billion laughs" spec stops at kMaxSpecNodes); a key twice in one mapping is refused.
json yaml_to_json(const YAML::Node& n, const std::string& file, long& budget) {
  if (--budget < 0)
    throw Error(file + ": the spec expands to more than " + std::to_string(kMaxSpecNodes) +
                " YAML nodes, the limit (an alias counts at every use)");
  if (n.IsMap()) {
    json j = json::object();
    for (const auto& kv : n) {
      const std::string key = scalar_key(file, kv.first);
      if (j.contains(key)) throw Error(yaml_place(file, kv.first) + ": key '" + key + "' appears twice");
      j[key] = yaml_to_json(kv.second, file, budget);
    }
    return j;
  }
  if (n.IsSequence()) {
    json j = json::array();
    for (const auto& e : n) j.push_back(yaml_to_json(e, file, budget));
    return j;
  }
  const std::string s = n.Scalar();
  try {
    std::size_t used = 0;
    const double d = std::stod(s, &used);
    // a non-finite number stays text (the typed checks refuse it with its place)
    if (used == s.size() && std::isfinite(d)) {
      if (s.find_first_of(".eE") == std::string::npos && std::abs(d) < 9007199254740992.0)  // 2^53
        return json(static_cast<long long>(d));
      return json(d);
    }
  } catch (const std::exception&) {
  }
  return json(s);
}

// Sets `key` = the YAML value `v` on a probe (prism or simulation, by `set`) and turns a wrong type
// into an error at the value's place.
template <class Set>
bool check_value(const std::string& file, const std::string& what, const std::string& key, const YAML::Node& v, Set set) {
  long budget = kMaxSpecNodes;
  const json j = yaml_to_json(v, file, budget);
  const std::string at = yaml_place(file, v) + ": " + what + ": ";
  if (key == "n" && !j.is_number_integer()) throw Error(at + "must be an integer (got '" + v.Scalar() + "')");
  if (key == "damping_law" && j.is_string() && j != "axial" && j != "relative_velocity")
    throw Error(at + "must be axial or relative_velocity (got '" + v.Scalar() + "')");
  try {
    return set(key, j);
  } catch (const json::exception&) {
    const bool text = key == "damping_law" || key == "integrator";
    throw Error(at + (text ? "must be text" : "must be a finite number") + " (got '" + (v.IsScalar() ? v.Scalar() : "a list or mapping") + "')");
  } catch (const Error& e) {
    throw Error(at + e.what());
  }
}

// spec[key], or an empty object when absent (const operator[] must not be used on a missing key)
const json& section(const json& spec, const char* key) {
  static const json empty = json::object();
  return spec.contains(key) ? spec.at(key) : empty;
}

// A grid point's model and simulation options (the spec's sections, then the point's values).
struct PointSetup {
  ts::Model model;
  ts::SimulationOptions options;
};
PointSetup setup_point(const json& spec, const json& point) {
  const std::string model_spec = spec.value("model", std::string("prism"));
  const json& prism_spec = section(spec, "prism");
  const json& simulation_spec = section(spec, "simulation");
  ts::Model model;
  ts::SimulationOptions options;
  if (model_spec == "prism") {
    ts::PrismParams p;
    for (const auto* src : {&prism_spec, &point})
      if (src->is_object())
        for (auto it = src->begin(); it != src->end(); ++it)
          if (!set_prism(p, it.key(), it.value()) && src == &prism_spec) throw Error("sweep spec: prism has no field '" + it.key() + "'");
    model = ts::make_prism(p);
  } else {
    auto f = ts::load_model_file(model_spec);
    model = f.model;
    options = f.simulation;
  }
  for (const auto* src : {&simulation_spec, &point})
    if (src->is_object())
      for (auto it = src->begin(); it != src->end(); ++it)
        if (!set_simulation(options, it.key(), it.value()) && src == &simulation_spec)
          throw Error("sweep spec: simulation has no field '" + it.key() + "'");
  for (auto it = point.begin(); it != point.end(); ++it) {
    ts::PrismParams probe;
    ts::SimulationOptions probe_o;
    if (!set_prism(probe, it.key(), it.value()) && !set_simulation(probe_o, it.key(), it.value()))
      throw Error("sweep spec: grid name '" + it.key() + "' is neither a prism nor a simulation field");
  }
  return {std::move(model), options};
}

json run_point(const json& spec, const json& point) {
  const auto [model, options] = setup_point(spec, point);
  const auto s = ts::simulate(model, options);
  const auto& m = s.monitor;
  auto vec = [](const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); };
  const auto never_null = [](double t_s) { return t_s < 0 ? json(nullptr) : json(t_s); };  // the library's -1 = never
  return {{"normal_mode", m.normal_mode},
          {"first_slack_time_s", never_null(m.first_slack_time_s)},
          {"first_slack_cable", m.first_slack_cable >= 0 ? json(model.cable_ids[static_cast<std::size_t>(m.first_slack_cable)]) : json(nullptr)},
          {"first_overstrain_time_s", never_null(m.first_overstrain_time_s)},
          {"first_overstrain_cable",
           m.first_overstrain_cable >= 0 ? json(model.cable_ids[static_cast<std::size_t>(m.first_overstrain_cable)]) : json(nullptr)},
          {"max_strain", vec(m.max_strain)},
          {"min_strain", vec(m.min_strain)},
          {"kinetic_final_J", s.final_energy.kinetic_J},
          {"elastic_final_J", s.final_energy.elastic_J},
          {"energy_final_J", s.final_energy.total()},
          {"max_abs_energy_drift_J", s.max_abs_energy_drift_J},
          {"com_final_m", {s.com_final_m.x(), s.com_final_m.y(), s.com_final_m.z()}},
          {"steps", s.steps}};
}

// run_sweep_spec on a loaded spec (`path`: its name in messages); with `check_only`, stops after
// building every point's model and options and returns the number of points.
std::size_t run_spec(const io::YamlNode& root, const std::string& path, int threads, bool quiet,
                     const std::string& out_override, bool check_only) {
  root.require_keys({"model", "prism", "simulation", "grid", "out", "threads"});
  long budget = kMaxSpecNodes;
  const json spec = yaml_to_json(root.raw(), path, budget);
  if (!spec.contains("grid") || !spec["grid"].is_object() || spec["grid"].empty()) root.fail("needs a 'grid' mapping name -> list of values");
  if (spec.contains("model") && !spec["model"].is_string()) root.at("model").fail("must be \"prism\" or a model file path");
  const bool is_prism = spec.value("model", std::string("prism")) == "prism";
  // every value typed and placed before any point runs
  ts::PrismParams probe_p;
  ts::SimulationOptions probe_o;
  auto prism_set = [&](const std::string& k, const json& v) { return set_prism(probe_p, k, v); };
  auto sim_set = [&](const std::string& k, const json& v) { return set_simulation(probe_o, k, v); };
  if (const auto prism = root.get("prism")) {
    if (!is_prism)
      prism->fail("'prism' is given but 'model' is the file '" + spec["model"].get<std::string>() +
                  "' (prism parameters apply only to model: prism)");
    prism->require_map();
    for (const auto& kv : prism->raw()) {
      const std::string k = scalar_key(path, kv.first);
      if (!check_value(path, "prism." + k, k, kv.second, prism_set))
        throw Error(yaml_place(path, kv.first) + ": prism has no field '" + k + "'");
    }
  }
  if (const auto sim = root.get("simulation")) {
    sim->require_map();
    for (const auto& kv : sim->raw()) {
      const std::string k = scalar_key(path, kv.first);
      if (!check_value(path, "simulation." + k, k, kv.second, sim_set))
        throw Error(yaml_place(path, kv.first) + ": simulation has no field '" + k + "'");
    }
  }
  // grid points: Cartesian product, first name slowest (as tendyn.grid_points in Python)
  std::vector<std::string> names;  // in the file's order (a JSON object would sort them)
  std::vector<json> values;
  const auto grid = root.at("grid");  // keep the node alive while iterating over it
  grid.require_map();
  double count = 1.0;
  for (const auto& kv : grid.raw()) {
    names.push_back(scalar_key(path, kv.first));
    const std::string& k = names.back();
    values.push_back(spec.at("grid").at(k));
    if (!kv.second.IsSequence() || kv.second.size() == 0) grid.at(k).fail("must be a non-empty list");
    ts::PrismParams pp;
    const bool prism_key = k == "damping_law" || set_prism(pp, k, json(1));
    if (prism_key && !is_prism)
      throw Error(yaml_place(path, kv.first) + ": grid name '" + k + "' is a prism parameter, but 'model' is the file '" +
                  spec["model"].get<std::string>() + "' (prism parameters apply only to model: prism)");
    std::size_t i = 0;
    for (const auto& v : kv.second) {
      const std::string what = "grid." + k + "[" + std::to_string(i++) + "]";
      if (!check_value(path, what, k, v, prism_set) && !check_value(path, what, k, v, sim_set))
        throw Error(yaml_place(path, kv.first) + ": grid name '" + k + "' is neither a prism nor a simulation field");
    }
    count *= static_cast<double>(kv.second.size());
    if (count > kMaxGridPoints) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "the grid has %.0f points or more, above the limit %.0f", count, kMaxGridPoints);
      grid.fail(buf);
    }
  }
  std::vector<json> points(1, json::object());
  for (std::size_t d = 0; d < names.size(); ++d) {
    std::vector<json> next;
    for (const auto& p : points)
      for (const auto& v : values[d]) {
        json q = p;
        q[names[d]] = v;
        next.push_back(q);
      }
    points.swap(next);
  }
  if (check_only) {
    for (const auto& point : points) (void)setup_point(spec, point);
    return points.size();
  }
  const std::string out = !out_override.empty() ? out_override : spec.value("out", std::string("out/sweep/results.jsonl"));
  if (threads <= 0) threads = spec.value("threads", 0);
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::filesystem::path out_path(out);
  if (out_path.has_parent_path()) ensure_directory(out_path.parent_path());
  // resume: keep the complete lines, skip their points
  std::map<long, std::string> done;  // index -> its complete line (with '\n')
  {
    std::ifstream in(out_path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto last_nl = text.rfind('\n');
    const std::string complete = last_nl == std::string::npos ? std::string() : text.substr(0, last_nl + 1);
    if (complete.size() != text.size()) {  // a crash left a partial line: drop it
      std::ofstream(out_path, std::ios::binary | std::ios::trunc) << complete;
    }
    std::size_t start = 0;
    for (std::size_t nl = complete.find('\n'); nl != std::string::npos; start = nl + 1, nl = complete.find('\n', start)) {
      const std::string line = complete.substr(start, nl - start);
      if (line.empty()) continue;
      json rec;
      long idx = -1;
      try {
        rec = json::parse(line);
        idx = rec.at("index").get<long>();
        (void)rec.at("point");
      } catch (const json::exception&) {
        throw Error(out + ":" + std::to_string(std::count(complete.begin(), complete.begin() + static_cast<long>(start), '\n') + 1) +
                    ": not a sweep record (a JSON object with \"index\" and \"point\"); fix or remove the line, or use another 'out' file");
      }
      if (idx < 0 || idx >= static_cast<long>(points.size()) || rec.at("point") != points[static_cast<std::size_t>(idx)])
        throw Error(out + ": holds point " + std::to_string(idx) + " of a different grid (use another 'out' file)");
      done[idx] = line + "\n";
    }
    // index order: the file keeps the contiguous prefix 0..k-1; later lines wait in `pending`
    // (not recomputed) until the points before them are done
    std::string prefix_text;
    for (long i = 0; done.count(i); ++i) prefix_text += done[i];
    if (prefix_text != complete) io::write_file_atomic(out_path, prefix_text);
  }
  std::map<long, std::string> pending;
  long next_index = 0;  // the first index not yet in the file
  while (done.count(next_index)) ++next_index;
  for (const auto& [i, line] : done)
    if (i > next_index) pending[i] = line;
  std::vector<long> todo;
  for (long i = 0; i < static_cast<long>(points.size()); ++i)
    if (!done.count(i)) todo.push_back(i);
  if (!quiet)
    std::printf("sweep %s: %zu points (%zu already in %s), %d threads\n", path.c_str(), points.size(), done.size(), out.c_str(), threads);
  std::ofstream file(out_path, std::ios::binary | std::ios::app);
  if (!file) throw Error("cannot open '" + out + "' for appending");
  std::mutex mu;
  Progress progress("sweep", !quiet);
  std::size_t finished = 0;
  try {
    parallel_for(todo.size(), threads, [&](std::size_t k) {
      const long i = todo[k];
      const json rec = {{"index", i}, {"point", points[static_cast<std::size_t>(i)]}, {"result", run_point(spec, points[static_cast<std::size_t>(i)])}};
      std::lock_guard<std::mutex> lock(mu);
      pending[i] = rec.dump() + "\n";
      // flush the contiguous prefix: lines in index order whatever the thread count
      for (auto it = pending.begin(); it != pending.end() && it->first == next_index; it = pending.erase(it), ++next_index)
        file << it->second;
      file.flush();
      if (!file) throw Error("write error on '" + out + "'");
      progress.update(static_cast<double>(++finished) / static_cast<double>(todo.size()));
    });
  } catch (...) {
    progress.finish();
    throw;
  }
  progress.finish();
  if (!quiet) std::printf("ran %zu points; results in %s (one JSON line per point, resumable)\n", todo.size(), out.c_str());
  return points.size();
}

}  // namespace

void run_sweep_spec(const std::string& path, int threads, bool quiet, const std::string& out_override) {
  (void)run_spec(io::YamlNode::load_file(path), path, threads, quiet, out_override, false);
}

std::size_t check_sweep_spec(const std::string& text, const std::string& name) {
  return run_spec(io::YamlNode::load_string(text, name), name, 1, true, "", true);
}

}  // namespace tendyn::cli
