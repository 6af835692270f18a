// Sweep specs: YAML -> SweepSpec, checks, grid, one point, the resumable JSON-lines journal.
#include <tendyn/tensegrity/sweep.hpp>
#include <tendyn/core/format.hpp>

#include <tendyn/core/error.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/output_lock.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include "io/yaml_util.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <numbers>
#include <set>
#include <stdexcept>
#include <thread>

namespace tendyn::tensegrity {

namespace {

using nlohmann::json;

// ------------------------------------------------------------------------------- fields
enum class FieldType { kNumber, kInteger, kDampingLaw, kIntegrator, kLayout };

struct PrismField {
  FieldType type;
  double PrismParams::*member;  // kNumber (psi_deg: none, converted to psi_rad)
};

const std::map<std::string, PrismField>& prism_fields() {
  static const std::map<std::string, PrismField> f = {{"rod_mass_kg", {FieldType::kNumber, &PrismParams::rod_mass_kg}},
                                                      {"rod_length_m", {FieldType::kNumber, &PrismParams::rod_length_m}},
                                                      {"rod_radius_outer_m", {FieldType::kNumber, &PrismParams::rod_radius_outer_m}},
                                                      {"rod_radius_inner_m", {FieldType::kNumber, &PrismParams::rod_radius_inner_m}},
                                                      {"stiffness_Npm", {FieldType::kNumber, &PrismParams::stiffness_Npm}},
                                                      {"stiffness_top_Npm", {FieldType::kNumber, &PrismParams::stiffness_top_Npm}},
                                                      {"stiffness_bottom_Npm", {FieldType::kNumber, &PrismParams::stiffness_bottom_Npm}},
                                                      {"stiffness_side_Npm", {FieldType::kNumber, &PrismParams::stiffness_side_Npm}},
                                                      {"damping_Nspm", {FieldType::kNumber, &PrismParams::damping_Nspm}},
                                                      {"rest_length_m", {FieldType::kNumber, &PrismParams::rest_length_m}},
                                                      {"rest_top_m", {FieldType::kNumber, &PrismParams::rest_top_m}},
                                                      {"rest_bottom_m", {FieldType::kNumber, &PrismParams::rest_bottom_m}},
                                                      {"rest_side_m", {FieldType::kNumber, &PrismParams::rest_side_m}},
                                                      {"psi_rad", {FieldType::kNumber, &PrismParams::psi_rad}},
                                                      {"radius_m", {FieldType::kNumber, &PrismParams::radius_m}},
                                                      {"pivot", {FieldType::kNumber, &PrismParams::pivot}},
                                                      {"height_m", {FieldType::kNumber, &PrismParams::height_m}},
                                                      {"psi_deg", {FieldType::kNumber, nullptr}},
                                                      {"n", {FieldType::kInteger, nullptr}},
                                                      {"damping_law", {FieldType::kDampingLaw, nullptr}},
                                                      {"layout", {FieldType::kLayout, nullptr}}};
  return f;
}

struct SimulationField {
  FieldType type;
  double SimulationOptions::*member;
};

const std::map<std::string, SimulationField>& simulation_fields() {
  static const std::map<std::string, SimulationField> f = {
      {"duration_s", {FieldType::kNumber, &SimulationOptions::duration_s}},
      {"dt_s", {FieldType::kNumber, &SimulationOptions::dt_s}},
      {"output_interval_s", {FieldType::kNumber, &SimulationOptions::output_interval_s}},
      {"strain_limit", {FieldType::kNumber, &SimulationOptions::strain_limit}},
      {"slack_tolerance", {FieldType::kNumber, &SimulationOptions::slack_tolerance}},
      {"integrator", {FieldType::kIntegrator, nullptr}}};
  return f;
}

bool is_prism_field(const std::string& name) { return prism_fields().count(name) != 0; }
bool is_simulation_field(const std::string& name) { return simulation_fields().count(name) != 0; }

const std::string& place_or(const std::string& place, const SweepSpec& spec) { return place.empty() ? spec.name : place; }

// Checks `v` against the field type; `what` names the field in messages ("grid.psi_deg[1]").
void check_type(const SweepSpec& spec, const std::string& what, FieldType type, const SweepValue& v) {
  const std::string at = place_or(v.place, spec) + ": " + what + ": ";
  const auto got = " (got '" + v.text + "')";
  using K = SweepValue::Kind;
  switch (type) {
    case FieldType::kNumber:
      if (v.kind != K::kInteger && v.kind != K::kReal) throw Error(at + "must be a finite number" + got);
      return;
    case FieldType::kInteger:
      if (v.kind != K::kInteger || v.number < INT_MIN || v.number > INT_MAX) throw Error(at + "must be an integer" + got);
      return;
    case FieldType::kDampingLaw:
      if (v.kind != K::kText) throw Error(at + "must be text" + got);
      try {
        (void)damping_law_from_string(v.text);
      } catch (const Error& e) {
        throw Error(at + e.what());
      }
      return;
    case FieldType::kIntegrator:
      if (v.kind != K::kText) throw Error(at + "must be text" + got);
      try {
        (void)integrator_from_string(v.text);
      } catch (const Error& e) {
        throw Error(at + e.what());
      }
      return;
    case FieldType::kLayout:
      if (v.kind != K::kText) throw Error(at + "must be text" + got);
      try {
        (void)prism_layout_from_string(v.text);
      } catch (const Error& e) {
        throw Error(at + e.what());
      }
      return;
  }
}

// false when `name` is neither a prism nor a simulation field (as a grid name)
bool check_grid_value(const SweepSpec& spec, const std::string& what, const std::string& name, const SweepValue& v) {
  if (const auto p = prism_fields().find(name); p != prism_fields().end()) {
    check_type(spec, what, p->second.type, v);
    return true;
  }
  if (const auto s = simulation_fields().find(name); s != simulation_fields().end()) {
    check_type(spec, what, s->second.type, v);
    return true;
  }
  return false;
}

[[noreturn]] void prism_with_model_file(const SweepSpec& spec, const std::string& place, const std::string& name) {
  throw Error(place_or(place, spec) + ": grid name '" + name + "' is a prism parameter, but 'model' is the file '" + spec.model +
              "' (prism parameters apply only to model: prism)");
}

// Setters (after the checks). The expressions are those of the earlier CLI (bit-identical runs).
void set_prism(PrismParams& p, const std::string& name, const SweepValue& v) {
  if (name == "psi_deg")
    p.psi_rad = v.number * std::numbers::pi / 180.0;
  else if (name == "damping_law")
    p.damping_law = damping_law_from_string(v.text);
  else if (name == "layout")
    p.layout = prism_layout_from_string(v.text);
  else if (name == "n")
    p.n = static_cast<int>(v.number);
  else
    p.*(prism_fields().at(name).member) = v.number;
}

void set_simulation(SimulationOptions& o, const std::string& name, const SweepValue& v) {
  if (name == "integrator")
    o.integrator = integrator_from_string(v.text);
  else
    o.*(simulation_fields().at(name).member) = v.number;
}

// Fields applied in name order (as the earlier JSON objects were): a later name wins where two
// set the same member (psi_rad after psi_deg).
std::vector<const SweepField*> by_name(const std::vector<SweepField>& fields) {
  std::vector<const SweepField*> out;
  for (const auto& f : fields) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(), [](const SweepField* a, const SweepField* b) { return a->name < b->name; });
  return out;
}

json value_json(const SweepValue& v) {
  switch (v.kind) {
    case SweepValue::Kind::kInteger: return json(static_cast<long long>(v.number));
    case SweepValue::Kind::kReal: return json(v.number);
    case SweepValue::Kind::kText: return json(v.text);
    case SweepValue::Kind::kOther: break;
  }
  return json(nullptr);
}

json point_json(const SweepPoint& point) {
  json j = json::object();
  for (const auto& f : point) j[f.name] = value_json(f.value);
  return j;
}

// ------------------------------------------------------------------------------- YAML
std::string yaml_place(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return m.line < 0 ? file : file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

std::string scalar_key(const std::string& file, const YAML::Node& key) {
  if (!key.IsScalar()) throw Error(yaml_place(file, key) + ": a mapping key must be a plain name");
  return key.Scalar();
}

// Walks the whole document once: counts nodes (aliases at every use) against the limit, refuses
// non-scalar keys and a key twice in one mapping.
void check_tree(const YAML::Node& n, const std::string& file, long& budget) {
  if (--budget < 0)
    throw Error(file + ": the spec expands to more than " + std::to_string(kSweepMaxSpecNodes) +
                " YAML nodes, the limit (an alias counts at every use)");
  if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string key = scalar_key(file, kv.first);
      if (!seen.insert(key).second) throw Error(yaml_place(file, kv.first) + ": key '" + key + "' appears twice");
      check_tree(kv.second, file, budget);
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n) check_tree(e, file, budget);
  }
}

SweepValue value_of(const YAML::Node& n, const std::string& file) {
  SweepValue v;
  v.place = yaml_place(file, n);
  if (n.IsMap() || n.IsSequence()) {
    v.text = "a list or mapping";
    return v;
  }
  if (!n.IsScalar()) {
    v.text = "null";
    return v;
  }
  const std::string& s = n.Scalar();
  try {
    std::size_t used = 0;
    const double d = std::stod(s, &used);
    // a non-finite number stays text (the typed checks refuse it with its place)
    if (used == s.size() && std::isfinite(d)) {
      v.kind = s.find_first_of(".eE") == std::string::npos && std::abs(d) < 9007199254740992.0  // 2^53
                   ? SweepValue::Kind::kInteger
                   : SweepValue::Kind::kReal;
      v.number = d;
      v.text = s;
      return v;
    }
  } catch (const std::exception&) {}
  v.kind = SweepValue::Kind::kText;
  v.text = s;
  return v;
}

std::vector<SweepField> section_of(const io::YamlNode& node, const std::string& file) {
  node.require_map();
  std::vector<SweepField> out;
  for (const auto& kv : node.raw()) out.push_back({scalar_key(file, kv.first), value_of(kv.second, file), yaml_place(file, kv.first)});
  return out;
}

SweepSpec spec_from_yaml(const io::YamlNode& root, const std::string& file) {
  root.require_keys({"model", "prism", "simulation", "grid", "out", "threads"});
  long budget = kSweepMaxSpecNodes;
  check_tree(root.raw(), file, budget);
  SweepSpec spec;
  spec.name = file;
  const YAML::Node grid_raw = root.raw()["grid"];
  if (!grid_raw || !grid_raw.IsMap() || grid_raw.size() == 0) root.fail("needs a 'grid' mapping name -> list of values");
  if (const auto model = root.get("model")) {
    const SweepValue v = value_of(model->raw(), file);
    if (v.kind != SweepValue::Kind::kText) model->fail("must be \"prism\" or a model file path");
    spec.model = v.text;
  }
  if (const auto prism = root.get("prism")) {
    spec.has_prism = true;
    spec.prism_place = yaml_place(file, prism->raw());
    if (spec.model != "prism")  // before its fields: they would be refused for a reason that hides this one
      prism->fail("'prism' is given but 'model' is the file '" + spec.model + "' (prism parameters apply only to model: prism)");
    spec.prism = section_of(*prism, file);
  }
  if (const auto sim = root.get("simulation")) spec.simulation = section_of(*sim, file);
  const auto grid = root.at("grid");
  spec.grid_place = yaml_place(file, grid.raw());
  for (const auto& kv : grid.raw()) {
    SweepAxis axis{scalar_key(file, kv.first), yaml_place(file, kv.first), {}};
    if (!kv.second.IsSequence() || kv.second.size() == 0) grid.at(axis.name).fail("must be a non-empty list");
    for (const auto& e : kv.second) axis.values.push_back(value_of(e, file));
    spec.grid.push_back(std::move(axis));
  }
  if (const auto out = root.get("out")) {
    if (!out->is_scalar()) out->fail("must be a file path");
    spec.out = out->raw().Scalar();
  }
  if (const auto threads = root.get("threads")) {
    const SweepValue v = value_of(threads->raw(), file);
    if (v.kind != SweepValue::Kind::kInteger || v.number < 0 || v.number > 4096)
      threads->fail("must be an integer in [0, 4096] (0: all hardware threads; got '" + v.text + "')");
    spec.threads = static_cast<int>(v.number);
  }
  validate(spec);
  return spec;
}

}  // namespace

SweepValue SweepValue::integer(long long v) {
  SweepValue s;
  s.kind = Kind::kInteger;
  s.number = static_cast<double>(v);
  s.text = std::to_string(v);
  return s;
}

SweepValue SweepValue::real(double v) {
  SweepValue s;
  s.kind = std::isfinite(v) ? Kind::kReal : Kind::kText;  // inf/nan: refused like YAML's "inf"
  s.number = v;
  s.text = format_number(v, 6);
  return s;
}

SweepValue SweepValue::of_text(std::string v) {
  SweepValue s;
  s.kind = Kind::kText;
  s.text = std::move(v);
  return s;
}

SweepSpec sweep_spec_from_string(const std::string& text, const std::string& name) {
  return spec_from_yaml(io::YamlNode::load_string(text, name), name);
}

SweepSpec load_sweep_spec(const std::string& path) { return spec_from_yaml(io::YamlNode::load_file(path), path); }

void validate(const SweepSpec& spec) {
  const bool is_prism = spec.model == "prism";
  if (spec.has_prism && !is_prism)
    throw Error(place_or(spec.prism_place, spec) + ": prism: 'prism' is given but 'model' is the file '" + spec.model +
                "' (prism parameters apply only to model: prism)");
  for (const auto& f : spec.prism) {
    const auto it = prism_fields().find(f.name);
    if (it == prism_fields().end()) throw Error(place_or(f.place, spec) + ": prism has no field '" + f.name + "'");
    check_type(spec, "prism." + f.name, it->second.type, f.value);
  }
  for (const auto& f : spec.simulation) {
    const auto it = simulation_fields().find(f.name);
    if (it == simulation_fields().end()) throw Error(place_or(f.place, spec) + ": simulation has no field '" + f.name + "'");
    check_type(spec, "simulation." + f.name, it->second.type, f.value);
  }
  double count = 1.0;
  std::set<std::string> names;
  for (const auto& axis : spec.grid) {
    const std::string& k = axis.name;
    if (!names.insert(k).second) throw Error(place_or(axis.place, spec) + ": key '" + k + "' appears twice");
    if (axis.values.empty()) throw Error(place_or(axis.place, spec) + ": grid." + k + ": must be a non-empty list");
    if (is_prism_field(k) && !is_prism) prism_with_model_file(spec, axis.place, k);
    for (std::size_t i = 0; i < axis.values.size(); ++i)
      if (!check_grid_value(spec, "grid." + k + "[" + std::to_string(i) + "]", k, axis.values[i]))
        throw Error(place_or(axis.place, spec) + ": grid name '" + k + "' is neither a prism nor a simulation field");
    count *= static_cast<double>(axis.values.size());
    if (count > kSweepMaxGridPoints) {
      char buf[200];
      std::snprintf(buf, sizeof buf, ": grid: the grid has %.0f points or more, above the limit %.0f", count, kSweepMaxGridPoints);
      throw Error(place_or(spec.grid_place, spec) + buf);
    }
  }
}

double sweep_npoint(const SweepSpec& spec) {
  double n = 1.0;
  for (const auto& axis : spec.grid) n *= static_cast<double>(axis.values.size());
  return n;
}

namespace {
// The number of points; tendyn::Error above the limit.
std::size_t grid_points_checked(const SweepSpec& spec) {
  const double n = sweep_npoint(spec);
  if (n > kSweepMaxGridPoints) {
    char buf[200];
    std::snprintf(buf, sizeof buf, ": grid: the grid has %.0f points, above the limit %.0f", n, kSweepMaxGridPoints);
    throw Error(place_or(spec.grid_place, spec) + buf);
  }
  return static_cast<std::size_t>(n);
}
}  // namespace

std::vector<SweepPoint> grid_points(const SweepSpec& spec) {
  (void)grid_points_checked(spec);
  std::vector<SweepPoint> points(1);
  for (const auto& axis : spec.grid) {
    std::vector<SweepPoint> next;
    next.reserve(points.size() * axis.values.size());
    for (const auto& p : points)
      for (const auto& v : axis.values) {
        SweepPoint q = p;
        q.push_back({axis.name, v, axis.place});
        next.push_back(std::move(q));
      }
    points.swap(next);
  }
  return points;
}

SweepPoint grid_point(const SweepSpec& spec, std::size_t index) {
  if (static_cast<double>(index) >= sweep_npoint(spec)) throw std::out_of_range("grid_point: index beyond the grid");
  SweepPoint p(spec.grid.size());
  // mixed radix, the last axis fastest
  for (std::size_t a = spec.grid.size(); a-- > 0;) {
    const auto& axis = spec.grid[a];
    p[a] = {axis.name, axis.values[index % axis.values.size()], axis.place};
    index /= axis.values.size();
  }
  return p;
}

SweepSetup make_sweep_setup(const SweepSpec& spec, const SweepPoint& point) {
  const bool is_prism = spec.model == "prism";
  std::set<std::string> names;
  for (const auto& f : point) {
    if (!names.insert(f.name).second) throw Error(place_or(f.place, spec) + ": key '" + f.name + "' appears twice");
    if (is_prism_field(f.name) && !is_prism) prism_with_model_file(spec, f.place, f.name);
    if (!check_grid_value(spec, "grid." + f.name, f.name, f.value))
      throw Error(place_or(f.place, spec) + ": grid name '" + f.name + "' is neither a prism nor a simulation field");
  }
  SweepSetup s;
  const auto sorted_point = by_name(point);
  if (is_prism) {
    PrismParams p;
    for (const auto* f : by_name(spec.prism)) set_prism(p, f->name, f->value);
    for (const auto* f : sorted_point)
      if (is_prism_field(f->name)) set_prism(p, f->name, f->value);
    s.model = make_prism(p);
  } else {
    auto file = load_model_file(spec.model);
    s.model = std::move(file.model);
    s.options = file.simulation;
  }
  for (const auto* f : by_name(spec.simulation)) set_simulation(s.options, f->name, f->value);
  for (const auto* f : sorted_point)
    if (is_simulation_field(f->name)) set_simulation(s.options, f->name, f->value);
  return s;
}

SweepMetrics run_sweep_point(const SweepSpec& spec, const SweepPoint& point) {
  const SweepSetup setup = make_sweep_setup(spec, point);
  const auto s = simulate(setup.model, setup.options);
  const auto& m = s.monitor;
  const auto& ids = setup.model.cable_ids;
  SweepMetrics r;
  r.normal_mode = m.normal_mode;
  r.first_slack_time_s = m.first_slack_time_s;
  if (m.first_slack_cable >= 0) r.first_slack_cable = ids[static_cast<std::size_t>(m.first_slack_cable)];
  r.first_overstrain_time_s = m.first_overstrain_time_s;
  if (m.first_overstrain_cable >= 0) r.first_overstrain_cable = ids[static_cast<std::size_t>(m.first_overstrain_cable)];
  r.max_strain.assign(m.max_strain.data(), m.max_strain.data() + m.max_strain.size());
  r.min_strain.assign(m.min_strain.data(), m.min_strain.data() + m.min_strain.size());
  r.kinetic_final_J = s.final_energy.kinetic_J;
  r.elastic_final_J = s.final_energy.elastic_J;
  r.energy_final_J = s.final_energy.total();
  r.max_abs_energy_drift_J = s.max_abs_energy_drift_J;
  r.com_final_m = s.com_final_m;
  r.steps = s.steps;
  return r;
}

std::string sweep_point_json(const SweepPoint& point) { return point_json(point).dump(); }

std::string sweep_metrics_json(const SweepMetrics& m) {
  const auto never_null = [](double t_s) { return t_s < 0 ? json(nullptr) : json(t_s); };
  const auto id_or_null = [](const std::string& id) { return id.empty() ? json(nullptr) : json(id); };
  const json j = {{"normal_mode", m.normal_mode},
                  {"first_slack_time_s", never_null(m.first_slack_time_s)},
                  {"first_slack_cable", id_or_null(m.first_slack_cable)},
                  {"first_overstrain_time_s", never_null(m.first_overstrain_time_s)},
                  {"first_overstrain_cable", id_or_null(m.first_overstrain_cable)},
                  {"max_strain", m.max_strain},
                  {"min_strain", m.min_strain},
                  {"kinetic_final_J", m.kinetic_final_J},
                  {"elastic_final_J", m.elastic_final_J},
                  {"energy_final_J", m.energy_final_J},
                  {"max_abs_energy_drift_J", m.max_abs_energy_drift_J},
                  {"com_final_m", {m.com_final_m.x(), m.com_final_m.y(), m.com_final_m.z()}},
                  {"steps", m.steps}};
  return j.dump();
}

// ------------------------------------------------------------------------------- journal
struct SweepJournal::Impl {
  std::filesystem::path path;
  std::vector<json> points;
  std::vector<char> done;
  std::map<long, json> found;            // index -> "result" of the records read at opening
  std::map<long, std::string> pending;   // finished lines waiting for the points before them
  long next_index = 0;                   // the first index not yet in the file
  std::unique_ptr<io::OutputLock> lock;  // one process at a time appends to the file
  std::ofstream file;
  std::mutex mu;
};

SweepJournal::SweepJournal(std::filesystem::path path, const std::vector<std::string>& points_json, const std::string& header_json,
                           const std::string& hint)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.path = std::move(path);
  const std::string out = d.path.string();
  for (const auto& p : points_json) d.points.push_back(json::parse(p));
  d.done.assign(d.points.size(), 0);
  if (d.path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(d.path.parent_path(), ec);
    if (ec) throw Error("cannot create output directory '" + d.path.parent_path().string() + "': " + ec.message());
  }
  {
    std::error_code ec;
    const auto st = std::filesystem::status(d.path, ec);
    if (std::filesystem::is_directory(st))
      throw Error(out +
                  ": is a directory, where the sweep keeps its results (one JSON line per point): remove it or choose another output");
    if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
      throw Error(
          out + ": is not a regular file, where the sweep keeps its results (one JSON line per point): remove it or choose another output");
  }
  d.lock = std::make_unique<io::OutputLock>(d.path);
  const json header = header_json.empty() ? json() : json::parse(header_json);
  std::string text;
  {
    std::ifstream in(d.path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // a crash may have left a partial last line: it is dropped (its point runs again)
  const auto last_nl = text.rfind('\n');
  const std::string complete = last_nl == std::string::npos ? std::string() : text.substr(0, last_nl + 1);
  std::map<long, std::string> lines;  // index -> its complete line (with '\n')
  long line_no = 0;
  std::size_t start = 0;
  for (std::size_t nl = complete.find('\n'); nl != std::string::npos; start = nl + 1, nl = complete.find('\n', start)) {
    ++line_no;
    const std::string line = complete.substr(start, nl - start);
    if (!header.is_null() && line_no == 1) {
      json h;
      try {
        h = json::parse(line);
      } catch (const json::exception&) {}
      if (h != header) {
        // a file holding no record yet (a run refused before its first point finished) is no
        // resumable state: it is started over instead of blocking the corrected run
        if (complete.find_first_not_of(" \t\r\n", nl + 1) == std::string::npos) break;
        throw Error(out + ":1: was written by a different run (" + hint + ")");
      }
      continue;
    }
    if (line.empty()) continue;
    json rec;
    long idx = -1;
    try {
      rec = json::parse(line);
      idx = rec.at("index").get<long>();
      (void)rec.at("point");
    } catch (const json::exception&) {
      throw Error(out + ":" + std::to_string(line_no) +
                  ": not a sweep record (a JSON object with \"index\" and \"point\"); fix or remove the line, or " + hint);
    }
    if (idx < 0 || idx >= static_cast<long>(d.points.size()) || rec.at("point") != d.points[static_cast<std::size_t>(idx)])
      throw Error(out + ": holds point " + std::to_string(idx) + " of a different grid (" + hint + ")");
    lines[idx] = line + "\n";
    d.found[idx] = rec.contains("result") ? rec["result"] : json(nullptr);
    d.done[static_cast<std::size_t>(idx)] = 1;
  }
  // index order: the file keeps the header and the contiguous prefix 0..k-1; later lines wait
  std::string prefix = header.is_null() ? std::string() : header.dump() + "\n";
  for (; lines.count(d.next_index); ++d.next_index) prefix += lines[d.next_index];
  for (const auto& [i, line] : lines)
    if (i > d.next_index) d.pending[i] = line;
  if (prefix != text) io::write_file_atomic(d.path, prefix);
  d.file.open(d.path, std::ios::binary | std::ios::app);
  if (!d.file) throw Error("cannot open '" + out + "' for appending");
}

SweepJournal::~SweepJournal() = default;

bool SweepJournal::done(std::size_t index) const { return index < impl_->done.size() && impl_->done[index] != 0; }
std::size_t SweepJournal::nresumed() const { return impl_->found.size(); }
std::string SweepJournal::result_json(std::size_t index) const { return impl_->found.at(static_cast<long>(index)).dump(); }
const std::filesystem::path& SweepJournal::path() const { return impl_->path; }

void SweepJournal::record(std::size_t index, const std::string& result_json) {
  Impl& d = *impl_;
  if (index >= d.points.size()) throw std::out_of_range("SweepJournal::record: index out of range");
  const json rec = {{"index", static_cast<long>(index)}, {"point", d.points[index]}, {"result", json::parse(result_json)}};
  std::string line = rec.dump() + "\n";
  std::lock_guard<std::mutex> lock(d.mu);
  d.done[index] = 1;
  d.pending[static_cast<long>(index)] = std::move(line);
  // flush the contiguous prefix: lines in index order whatever the thread count
  for (auto it = d.pending.begin(); it != d.pending.end() && it->first == d.next_index; it = d.pending.erase(it), ++d.next_index)
    d.file << it->second;
  d.file.flush();
  if (!d.file) throw Error("write error on '" + d.path.string() + "'");
}

// ------------------------------------------------------------------------------- runs
SweepRunReport run_sweep(const SweepSpec& spec, const SweepRunOptions& options) {
  validate(spec);
  SweepRunReport report;
  report.npoint = grid_points_checked(spec);
  report.out = !options.out.empty() ? options.out : spec.out;
  report.threads = options.threads > 0 ? options.threads : spec.threads;
  if (report.threads <= 0) report.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // a model file that cannot be read is refused before the results file is touched
  (void)make_sweep_setup(spec, grid_point(spec, 0));
  std::vector<std::string> points_json;  // the points themselves are made again when they run
  points_json.reserve(report.npoint);
  for (std::size_t i = 0; i < report.npoint; ++i) points_json.push_back(sweep_point_json(grid_point(spec, i)));
  SweepJournal journal(report.out, points_json);
  points_json = {};
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < report.npoint; ++i)
    if (!journal.done(i)) todo.push_back(i);
  report.nresumed = journal.nresumed();
  if (options.on_start) options.on_start(report.npoint, report.nresumed, report.threads);
  std::mutex mu;
  std::size_t finished = 0;
  parallel_for(todo.size(), report.threads, [&](std::size_t k) {
    const std::size_t i = todo[k];
    journal.record(i, sweep_metrics_json(run_sweep_point(spec, grid_point(spec, i))));
    std::lock_guard<std::mutex> lock(mu);
    ++finished;
    if (options.progress) options.progress(finished, todo.size());
  });
  report.nrun = todo.size();
  return report;
}

std::size_t check_sweep_spec(const std::string& text, const std::string& name) {
  const SweepSpec spec = sweep_spec_from_string(text, name);
  const std::size_t n = grid_points_checked(spec);
  for (std::size_t i = 0; i < n; ++i) (void)make_sweep_setup(spec, grid_point(spec, i));
  return n;
}

}  // namespace tendyn::tensegrity
