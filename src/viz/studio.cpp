#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/viz/studio.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "io/yaml_util.hpp"
#include "studio_internal.hpp"

namespace tendyn::viz::studio {

namespace ts = tensegrity;
using nlohmann::json;

namespace detail {

json parse_json(std::string_view text, const std::string& what) {
  struct Frame {
    bool array;
    std::string key;  // objects: the last key read
    int count;        // arrays: elements completed so far (= index of the current one)
  };
  std::vector<Frame> frames;
  const auto element_done = [&frames] {
    if (!frames.empty() && frames.back().array) ++frames.back().count;
  };
  const json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: frames.push_back({false, "", 0}); break;
      case json::parse_event_t::array_start: frames.push_back({true, "", 0}); break;
      case json::parse_event_t::key:
        if (!frames.empty()) frames.back().key = parsed.is_string() ? parsed.get<std::string>() : "?";
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        element_done();
        break;
      case json::parse_event_t::value: element_done(); break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), track);
  } catch (const json::parse_error& e) {
    throw BadRequest(what + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::out_of_range&) {
    std::string field = what;
    for (const auto& f : frames) field += f.array ? "[" + std::to_string(f.count) + "]" : (f.key.empty() ? "" : "." + f.key);
    throw BadRequest(field + ": number outside the range of a double");
  } catch (const json::exception& e) {
    throw BadRequest(what + ": not valid JSON (" + e.what() + ")");
  }
}

double number(const json& obj, const char* key, const std::string& where, const double* fallback) {
  if (!obj.is_object()) throw BadRequest(where + ": must be a JSON object");
  if (!obj.contains(key)) {
    if (fallback) return *fallback;
    throw BadRequest(where + ": missing \"" + key + "\"");
  }
  const auto& v = obj[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) throw BadRequest(where + "." + key + ": must be a finite number");
  return v.get<double>();
}

std::string text(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) throw BadRequest(where + ": must be a JSON object");
  if (!obj.contains(key)) throw BadRequest(where + ": missing string \"" + key + "\"");
  if (!obj[key].is_string()) throw BadRequest(where + "." + key + ": must be a string");
  return obj[key].get<std::string>();
}

std::string text_or(const json& obj, const char* key, const std::string& where, const std::string& fallback) {
  if (!obj.contains(key)) return fallback;
  return text(obj, key, where);
}

json object_or(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key)) return json::object();
  if (!obj[key].is_object()) throw BadRequest(where + "." + key + ": must be a JSON object");
  return obj[key];
}
json array_or(const json& obj, const char* key, const std::string& where, json fallback) {
  if (!obj.contains(key)) return fallback;
  if (!obj[key].is_array()) throw BadRequest(where + "." + key + ": must be an array");
  return obj[key];
}

int index_of(const std::vector<std::string>& ids, const std::string& id, const char* kind, const std::string& where) {
  const auto it = std::find(ids.begin(), ids.end(), id);
  if (it == ids.end()) throw Error(where + ": no " + kind + " '" + id + "' in the model");
  return static_cast<int>(it - ids.begin());
}

}  // namespace detail

namespace {

using detail::array_or;
using detail::index_of;
using detail::number;
using detail::object_or;
using detail::parse_json;
using detail::text;
using detail::text_or;

double rod_radius_m(const ts::Rod& r) { return r.inertia_axial_kgm2 > 0.0 ? std::sqrt(2.0 * r.inertia_axial_kgm2 / r.mass_kg) : 0.0; }

/// Rebuilds a rod's inertia after a change of mass, length or radius (solid cylinder of radius r,
/// or a thin rod when r = 0); the nodes and centre-of-mass ratio stay.
void reshape_rod(ts::Rod& r, double mass_kg, double length_m, double radius_m) {
  if (!(mass_kg > 0.0) || !(length_m > 0.0) || !(radius_m >= 0.0)) throw Error("rod mass and length must be > 0, radius >= 0");
  ts::Rod n = radius_m > 0.0 ? ts::make_hollow_rod(mass_kg, length_m, radius_m, 0.0) : ts::make_thin_rod(mass_kg, length_m);
  n.node[0] = r.node[0];
  n.node[1] = r.node[1];
  n.com_ratio = r.com_ratio;
  r = n;
}

// The size bounds of a posted model: bytes, then YAML nodes before any tree is built.
void check_yaml_size(std::string_view yaml, const Limits& limits) {
  if (yaml.size() > limits.max_yaml_bytes)
    throw Error("model.yaml: " + std::to_string(yaml.size()) + " bytes, more than the studio's limit of " +
                std::to_string(limits.max_yaml_bytes));
  io::require_yaml_node_count(std::string(yaml), "model.yaml", limits.max_yaml_nodes, "a model in the studio");
}

ts::ModelFile load(std::string_view yaml, const Limits& limits) {
  check_yaml_size(yaml, limits);
  return ts::load_model_string(std::string(yaml), "model.yaml");
}

/// Moves node i's initial position along `axis` to `value_m`. An anchor just moves; a rod end
/// changes its rod's length to the new distance of the rod's nodes (mass, radius and centre-of-mass
/// ratio kept; inertia rebuilt as by reshape_rod) and the rod's initial pose to the new nodes
/// (state_from_node_positions); the initial velocities of every rod are kept.
void move_node(ts::Model& m, int i, int axis, double value_m, const std::string& where) {
  Eigen::MatrixX3d P = ts::node_positions(m, m.initial_state);
  P(i, axis) = value_m;
  auto& node = m.nodes[static_cast<std::size_t>(i)];
  if (node.is_anchor()) {
    node.p_W_anchor[axis] = value_m;
    return;
  }
  auto& r = m.rods[static_cast<std::size_t>(node.rod)];
  const bool has_points =
      std::any_of(m.nodes.begin(), m.nodes.end(), [&](const ts::Node& n) { return n.is_body_point() && n.rod == node.rod; });
  if (node.is_body_point() || r.general_inertia || has_points)
    throw Error(where + ": node '" + m.node_ids[static_cast<std::size_t>(i)] + "' is on rod '" +
                m.rod_ids[static_cast<std::size_t>(node.rod)] + "', which has body points or a full inertia tensor: edit it in the YAML");
  const double length = (P.row(r.node[1]) - P.row(r.node[0])).norm();
  if (!(length > 1e-9))
    throw Error(where + ": rod '" + m.rod_ids[static_cast<std::size_t>(node.rod)] + "' would have its two nodes at one point");
  reshape_rod(r, r.mass_kg, length, rod_radius_m(r));
  const ts::State old = m.initial_state;
  m.initial_state = ts::state_from_node_positions(m, P);
  m.initial_state.time_s = old.time_s;
  for (int j = 0; j < m.nrod(); ++j) {
    m.initial_state.v_WC(j) = old.v_WC(j);
    m.initial_state.w_W(j) = old.w_W(j);
  }
}

void apply_edit(ts::Model& m, const json& e, const std::string& where) {
  const std::string op = text(e, "op", where);
  if (op == "set") {
    const std::string element = text(e, "element", where), id = text(e, "id", where), field = text(e, "field", where);
    const double v = number(e, "value", where);
    // a value out of its field's range is refused naming the element and field: the model is
    // never run with the previous value instead
    const auto out_of_range = [&](const char* rule) {
      return Error(where + ": " + element + " '" + id + "' " + field + " = " + format_number(v, 6) + ": " + rule);
    };
    if (element == "cable") {
      auto& c = m.cables[static_cast<std::size_t>(index_of(m.cable_ids, id, "cable", where))];
      if (field != "stiffness_Npm" && field != "damping_Nspm" && field != "rest_length_m")
        throw Error(where + ".field: '" + field + "' is not a cable field (stiffness_Npm, damping_Nspm, rest_length_m)");
      if (!(v >= 0.0)) throw out_of_range("must be >= 0");
      if (field == "stiffness_Npm")
        c.stiffness_Npm = v;
      else if (field == "damping_Nspm")
        c.damping_Nspm = v;
      else
        c.rest_length_m = v;
    } else if (element == "rod") {
      auto& r = m.rods[static_cast<std::size_t>(index_of(m.rod_ids, id, "rod", where))];
      if (r.general_inertia) throw Error(where + ": rod '" + id + "' has a full inertia tensor (parts or inertia): edit it in the YAML");
      double mass = r.mass_kg, length = r.length_m, radius = rod_radius_m(r);
      if (field == "mass_kg")
        mass = v;
      else if (field == "length_m")
        length = v;
      else if (field == "radius_m")
        radius = v;
      else
        throw Error(where + ".field: '" + field + "' is not a rod field (mass_kg, length_m, radius_m)");
      if (field == "radius_m" ? !(v >= 0.0) : !(v > 0.0)) throw out_of_range(field == "radius_m" ? "must be >= 0" : "must be > 0");
      try {
        reshape_rod(r, mass, length, radius);
      } catch (const Error& err) {
        throw Error(where + ": " + err.what());
      }
    } else if (element == "node") {
      const int i = index_of(m.node_ids, id, "node", where);
      const int axis = field == "x_m" ? 0 : field == "y_m" ? 1 : field == "z_m" ? 2 : -1;
      if (axis < 0) throw Error(where + ".field: '" + field + "' is not a node field (x_m, y_m, z_m)");
      move_node(m, i, axis, v, where);
    } else {
      throw Error(where + ".element: must be \"cable\", \"rod\" or \"node\"");
    }
  } else if (op == "add_cable") {
    const std::string id = text(e, "id", where);
    if (std::find(m.cable_ids.begin(), m.cable_ids.end(), id) != m.cable_ids.end())
      throw Error(where + ": a cable '" + id + "' already exists");
    ts::Cable c;
    c.node[0] = index_of(m.node_ids, text(e, "from", where), "node", where);
    c.node[1] = index_of(m.node_ids, text(e, "to", where), "node", where);
    c.stiffness_Npm = number(e, "stiffness_Npm", where);
    const double zero = 0.0;
    c.damping_Nspm = number(e, "damping_Nspm", where, &zero);
    ts::Data d = ts::make_data(m);
    ts::forward_kinematics(m, m.initial_state, d);
    const double distance = (d.p_W_node.col(c.node[0]) - d.p_W_node.col(c.node[1])).norm();
    c.rest_length_m = number(e, "rest_length_m", where, &distance);
    m.cables.push_back(c);
    m.cable_ids.push_back(id);
  } else if (op == "remove_cable") {
    const int k = index_of(m.cable_ids, text(e, "id", where), "cable", where);
    m.cables.erase(m.cables.begin() + k);
    m.cable_ids.erase(m.cable_ids.begin() + k);
    std::erase_if(m.drives, [k](const ts::CableDrive& d) { return d.cable == k; });
    for (auto& d : m.drives)
      if (d.cable > k) --d.cable;
    const auto before = m.winches.size();
    std::erase_if(m.winches, [k](const ts::Winch& w) { return w.cable == k; });
    for (auto& w : m.winches)
      if (w.cable > k) --w.cable;
    if (m.winches.size() != before) {  // the state loses the winch's three numbers
      const int nr = m.nrod();
      m.initial_state.x.conservativeResize(m.nx());
      m.initial_state.x.tail(m.nx() - ts::State::kStride * nr).setZero();
    }
  } else {
    throw Error(where + ".op: '" + op + "' (valid: set, add_cable, remove_cable)");
  }
}

}  // namespace

std::string model_json(const ts::Model& m) {
  json rods = json::array(), cables = json::array();
  for (int j = 0; j < m.nrod(); ++j) {
    const auto& r = m.rods[static_cast<std::size_t>(j)];
    rods.push_back({{"id", m.rod_ids[static_cast<std::size_t>(j)]},
                    {"from", m.node_ids[static_cast<std::size_t>(r.node[0])]},
                    {"to", m.node_ids[static_cast<std::size_t>(r.node[1])]},
                    {"length_m", r.length_m},
                    {"mass_kg", r.mass_kg},
                    {"radius_m", rod_radius_m(r)},
                    {"general_inertia", r.general_inertia}});
  }
  for (int k = 0; k < m.ncable(); ++k) {
    const auto& c = m.cables[static_cast<std::size_t>(k)];
    cables.push_back({{"id", m.cable_ids[static_cast<std::size_t>(k)]},
                      {"from", m.node_ids[static_cast<std::size_t>(c.node[0])]},
                      {"to", m.node_ids[static_cast<std::size_t>(c.node[1])]},
                      {"stiffness_Npm", c.stiffness_Npm},
                      {"damping_Nspm", c.damping_Nspm},
                      {"rest_length_m", c.rest_length_m},
                      {"tension_only", c.tension_only}});
  }
  json nodes = json::array();
  const Eigen::MatrixX3d P = ts::node_positions(m, m.initial_state);
  for (int i = 0; i < static_cast<int>(m.node_ids.size()); ++i)
    nodes.push_back({{"id", m.node_ids[static_cast<std::size_t>(i)]},
                     {"x_m", P(i, 0)},
                     {"y_m", P(i, 1)},
                     {"z_m", P(i, 2)},
                     {"fixed", m.nodes[static_cast<std::size_t>(i)].is_anchor()},
                     {"on", m.nodes[static_cast<std::size_t>(i)].is_body_point()
                                ? m.rod_ids[static_cast<std::size_t>(m.nodes[static_cast<std::size_t>(i)].rod)]
                                : ""},
                     {"end_cap_radius_m", m.nodes[static_cast<std::size_t>(i)].radius_m},
                     {"contact", m.nodes[static_cast<std::size_t>(i)].touches_ground()}});
  json winches = json::array();
  for (const auto& w : m.winches)
    winches.push_back({{"cable", m.cable_ids[static_cast<std::size_t>(w.cable)]},
                       {"control", ts::to_string(w.control)},
                       {"spool_radius_m", w.spool_radius_m},
                       {"gear_ratio", w.gear_ratio},
                       {"stall_torque_Nm", w.stall_torque_Nm},
                       {"no_load_speed_radps", w.no_load_speed_radps},
                       {"kp_per_m", w.kp_per_m},
                       {"max_rate_mps", w.max_rate_mps()}});
  return json{{"kind", "tensegrity"}, {"name", m.name},   {"nodes", m.node_ids}, {"node_positions", nodes},
              {"rods", rods},         {"cables", cables}, {"winches", winches}}
      .dump();
}

std::string model_kind(std::string_view yaml) {
  // a top-level `kind: cdpr` line (no indentation; optional quotes and a trailing comment)
  std::size_t at = 0;
  while (at < yaml.size()) {
    const std::size_t end = std::min(yaml.find('\n', at), yaml.size());
    std::string_view line = yaml.substr(at, end - at);
    at = end + 1;
    if (line.rfind("kind:", 0) != 0) continue;
    line.remove_prefix(5);
    const auto hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    std::string v;
    for (char c : line)
      if (!std::isspace(static_cast<unsigned char>(c)) && c != '"' && c != '\'') v += c;
    return v == "cdpr" ? "cdpr" : "tensegrity";
  }
  return "tensegrity";
}

EditResult edit_model(std::string_view yaml, std::string_view edits_json, const Limits& limits) {
  if (model_kind(yaml) == "cdpr") {
    check_yaml_size(yaml, limits);
    json edits = json::array();
    if (!edits_json.empty()) {
      edits = parse_json(edits_json, "edits");
      if (!edits.is_array()) throw BadRequest("edits: must be an array");
      if (edits.size() > 1000) throw Error("edits: more than 1000 edits in one request");
    }
    return detail::edit_cdpr_model(yaml, edits, limits);
  }
  auto file = load(yaml, limits);
  if (!edits_json.empty()) {
    const json edits = parse_json(edits_json, "edits");
    if (!edits.is_array()) throw BadRequest("edits: must be an array");
    if (edits.size() > 1000) throw Error("edits: more than 1000 edits in one request");
    for (std::size_t i = 0; i < edits.size(); ++i) apply_edit(file.model, edits[i], "edits[" + std::to_string(i) + "]");
    try {
      ts::validate(file.model);
    } catch (const Error& e) {
      throw Error(std::string("after the edits: ") + e.what());
    }
  }
  return {ts::to_yaml(file.model, &file.simulation), model_json(file.model), "tensegrity"};
}

RunRequest parse_run_request(std::string_view body, const Limits& limits) {
  if (body.size() > limits.max_body_bytes) throw Error("request body larger than " + std::to_string(limits.max_body_bytes) + " bytes");
  const json j = parse_json(body, "request");
  if (!j.is_object()) throw BadRequest("request: must be a JSON object");
  RunRequest r;
  const std::string yaml = text(j, "yaml", "request");
  if (model_kind(yaml) == "cdpr") {
    check_yaml_size(yaml, limits);
    const json edits = array_or(j, "edits", "request", json::array());
    if (edits.empty()) {
      r.cdpr = detail::parse_cdpr_run(j, limits);
    } else {
      if (edits.size() > 1000) throw Error("request.edits: more than 1000 edits in one request");
      json edited = j;
      try {
        edited["yaml"] = detail::edit_cdpr_model(yaml, edits, limits).yaml;
      } catch (const BadRequest& e) {
        throw BadRequest(std::string("request.") + e.what());
      } catch (const Error& e) {
        throw Error(std::string("request.") + e.what());
      }
      r.cdpr = detail::parse_cdpr_run(edited, limits);
    }
    return r;
  }
  r.file = load(yaml, limits);
  auto& m = r.file.model;
  auto& sim = r.file.simulation;
  // the page's table values, applied as on POST /api/model: a bad one refuses the run
  const json edits = array_or(j, "edits", "request", json::array());
  if (edits.size() > 1000) throw Error("request.edits: more than 1000 edits in one request");
  for (std::size_t i = 0; i < edits.size(); ++i) apply_edit(m, edits[i], "request.edits[" + std::to_string(i) + "]");
  if (!edits.empty()) {
    try {
      ts::validate(m);
    } catch (const Error& e) {
      throw Error(std::string("request.edits: after the edits: ") + e.what());
    }
  }
  const std::string mode = text_or(j, "mode", "request", "forward");
  if (mode != "forward" && mode != "inverse") throw Error("request.mode: must be \"forward\" or \"inverse\"");
  r.inverse = mode == "inverse";
  sim.duration_s = number(j, "duration_s", "request", &sim.duration_s);
  if (!(sim.duration_s > 0.0) || sim.duration_s > limits.max_duration_s)
    throw Error("request.duration_s: must be in (0, " + format_number(limits.max_duration_s, 6) + "] s");
  const double default_interval = 0.01;
  sim.output_interval_s = number(j, "output_interval_s", "request", &default_interval);
  if (!(sim.output_interval_s > 0.0)) throw Error("request.output_interval_s: must be > 0");
  if (sim.duration_s / sim.output_interval_s > limits.max_frames)
    throw Error("request: duration_s / output_interval_s = " + format_number(sim.duration_s / sim.output_interval_s, 6) +
                " frames, more than the limit of " + std::to_string(limits.max_frames));
  if (!r.inverse) {
    const json fwd = object_or(j, "forward", "request");
    const json drives = array_or(fwd, "drives", "request.forward", json::array());
    for (std::size_t i = 0; i < drives.size(); ++i) {
      const std::string where = "request.forward.drives[" + std::to_string(i) + "]";
      const int k = index_of(m.cable_ids, text(drives[i], "cable", where), "cable", where);
      ts::SinusoidDrive s{number(drives[i], "a", where), number(drives[i], "b", where), number(drives[i], "c", where),
                          number(drives[i], "d", where)};
      std::erase_if(m.drives, [k](const ts::CableDrive& d) { return d.cable == k; });
      m.drives.push_back({k, s});
    }
    try {
      ts::validate(m);
    } catch (const Error& e) {
      throw Error(std::string("request.forward.drives: ") + e.what());
    }
  } else {
    const json inv = object_or(j, "inverse", "request");
    auto& o = r.plan;
    const json cables = array_or(inv, "drive_cables", "request.inverse", json::array());
    if (cables.empty()) throw Error("request.inverse.drive_cables: a non-empty array of cable ids");
    if (static_cast<int>(cables.size()) > limits.max_drive_cables)
      throw Error("request.inverse.drive_cables: at most " + std::to_string(limits.max_drive_cables) +
                  " in the studio (3^m rollouts per period)");
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < cables.size(); ++i) {
      if (!cables[i].is_string())
        throw BadRequest("request.inverse.drive_cables[" + std::to_string(i) + "]: must be a string (a cable id)");
      ids.push_back(cables[i].get<std::string>());
    }
    // the planning policies of `tendyn plan` (tensegrity/planner.hpp): the planner owns its cables,
    // an impulse ground is planned (and replayed, run_job) with a fixed step
    o.drive_cables = ts::cable_indices(m, ids, "request.inverse.drive_cables");
    ts::remove_drives_on(m, o.drive_cables);
    o.u0_m = number(inv, "u0_m", "request.inverse", &o.u0_m);
    o.period_s = number(inv, "period_s", "request.inverse", &o.period_s);
    if (!(o.u0_m > 0.0) || o.u0_m > 0.1) throw Error("request.inverse.u0_m: must be in (0, 0.1] m");
    if (!(o.period_s >= 0.005)) throw Error("request.inverse.period_s: must be >= 0.005 s");
    o.duration_s = sim.duration_s;
    const json path = array_or(inv, "path", "request.inverse", json::array({json::array({0.0, 0.0}), json::array({1.0, 0.0})}));
    if (path.size() < 2 || path.size() > 100) throw Error("request.inverse.path: 2 to 100 points [[x, y], ...]");
    o.path.points.clear();
    for (std::size_t i = 0; i < path.size(); ++i) {
      const auto& p = path[i];
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number() || !std::isfinite(p[0].get<double>()) ||
          !std::isfinite(p[1].get<double>()))
        throw BadRequest("request.inverse.path[" + std::to_string(i) + "]: must be [x, y] in metres");
      o.path.points.emplace_back(p[0].get<double>(), p[1].get<double>());
    }
    try {
      o.planner = ts::planner_from_string(text_or(inv, "planner", "request.inverse", "exhaustive"));
    } catch (const BadRequest&) {
      throw;
    } catch (const Error& e) {
      throw Error(std::string("request.inverse.planner: ") + e.what());
    }
    o.rollout = ts::rollout_options(m, sim);
    o.threads = 0;
  }
  ts::validate(sim);
  return r;
}

namespace {

/// Records frames into its own scene (decimated to the output interval) and copies each new one
/// into the job's scene under the job's lock, so the server can stream them while the run goes on.
class JobRecorder final : public ts::Observer {
 public:
  JobRecorder(Job& job, const ts::Model& model, double interval_s) : job_(job), local_(make_scene(model)), rec_(local_, interval_s) {}
  void on_output(const ts::Model& m, const ts::State& s, const ts::Data& d, const ts::Energy& e) override {
    rec_.on_output(m, s, d, e);
    publish();
  }
  void finish() {
    rec_.finish();
    publish();
  }

 private:
  void publish() {
    std::lock_guard lock(job_.mutex);
    const auto np3 = 3 * static_cast<std::size_t>(local_.npoint()), nc = static_cast<std::size_t>(local_.ncable());
    for (auto f = static_cast<std::size_t>(job_.scene.nframe()); f < static_cast<std::size_t>(local_.nframe()); ++f) {
      const FrameEnergy e{local_.kinetic_J[f], local_.elastic_J[f], local_.gravitational_J[f], local_.total_J[f]};
      add_frame(job_.scene, local_.t_s[f], std::span<const double>(local_.positions_m).subspan(np3 * f, np3),
                std::span<const double>(local_.tension_N).subspan(nc * f, nc), std::span<const double>(local_.strain).subspan(nc * f, nc),
                local_.com_m.data() + 3 * f, &e);
    }
  }
  Job& job_;
  Scene local_;
  TensegritySceneRecorder rec_;
};

}  // namespace

namespace detail {

void add_frame_summary(const Scene& sc, json& summary, const std::vector<double>& slack_N) {
  const auto nf = static_cast<std::size_t>(sc.nframe()), nc = static_cast<std::size_t>(sc.ncable());
  // each cable's first frame with a zero tension (tension <= its slack threshold)
  json slack = json::array();
  std::vector<std::pair<double, std::size_t>> first;
  for (std::size_t k = 0; k < nc; ++k)
    for (std::size_t f = 0; f < nf; ++f)
      if (sc.tension_N[f * nc + k] <= slack_N[k]) {
        first.emplace_back(sc.t_s[f], k);
        break;
      }
  std::stable_sort(first.begin(), first.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [t, k] : first) slack.push_back({{"cable", sc.cables[k].name}, {"t_s", t}});
  summary["first_slack"] = first.empty() ? json(nullptr) : slack[0];
  summary["slack_cables"] = slack;
  // centre of mass: distance along the recorded track, displacement start -> end
  if (sc.com_m.size() == 3 * nf && nf > 0) {
    double travelled = 0.0, floor = 0.0;
    for (std::size_t f = 1; f < nf; ++f) {
      const double dx = sc.com_m[3 * f] - sc.com_m[3 * f - 3], dy = sc.com_m[3 * f + 1] - sc.com_m[3 * f - 2],
                   dz = sc.com_m[3 * f + 2] - sc.com_m[3 * f - 1];
      travelled += std::sqrt(dx * dx + dy * dy + dz * dz);
      floor += std::hypot(dx, dy);
    }
    const std::size_t e = 3 * (nf - 1);
    summary["com"] = {{"initial_m", {sc.com_m[0], sc.com_m[1], sc.com_m[2]}},
                      {"final_m", {sc.com_m[e], sc.com_m[e + 1], sc.com_m[e + 2]}},
                      {"displacement_m", std::sqrt(std::pow(sc.com_m[e] - sc.com_m[0], 2) + std::pow(sc.com_m[e + 1] - sc.com_m[1], 2) +
                                                   std::pow(sc.com_m[e + 2] - sc.com_m[2], 2))},
                      {"travelled_m", travelled},
                      {"floor_travelled_m", floor}};
  }
  if (sc.total_J.size() == nf && nf > 0) {
    const auto [lo, hi] = std::minmax_element(sc.total_J.begin(), sc.total_J.end());
    summary["energy_J"] = {{"initial", sc.total_J.front()},
                           {"final", sc.total_J.back()},
                           {"min", *lo},
                           {"max", *hi},
                           {"drift", sc.total_J.back() - sc.total_J.front()},
                           {"min_t_s", sc.t_s[static_cast<std::size_t>(lo - sc.total_J.begin())]},
                           {"max_t_s", sc.t_s[static_cast<std::size_t>(hi - sc.total_J.begin())]}};
  }
}

void run_tensegrity_job(const RunRequest& req, Job& job, const std::function<void()>& check_time) {
  ts::Model model = req.file.model;
  ts::SimulationOptions sim = req.file.simulation;
  json summary = {{"mode", req.inverse ? "inverse" : "forward"}};
  const double plan_share = req.inverse ? 0.8 : 0.0;
  {
    std::lock_guard lock(job.mutex);
    job.scene = make_scene(model);
    job.scene.title = model.name + (req.inverse ? " (planned)" : "");
    job.status = "running";
  }
  if (req.inverse) {
    const auto r = ts::plan(model, req.plan, [&](int done, int total) {
      {
        std::lock_guard lock(job.mutex);
        job.progress = plan_share * done / std::max(total, 1);
      }
      check_time();
    });
    for (const auto& d : r.as_drives(req.plan.drive_cables)) model.drives.push_back(d);
    sim = ts::rollout_options(model, sim);
    sim.duration_s = r.period_start_s.back() - r.period_start_s.front();
    summary["speed_mps"] = r.speed_mps;
    summary["progress_m"] = r.progress_m;
    summary["max_path_error_m"] = r.max_path_error_m;
    summary["rollouts"] = r.rollouts;
    summary["planning_wall_time_s"] = r.wall_time_s;
  }
  JobRecorder rec(job, model, sim.output_interval_s);
  const auto s = ts::simulate(model, sim, &rec, [&](double f) {
    {
      std::lock_guard lock(job.mutex);
      job.progress = plan_share + (1.0 - plan_share) * f;
    }
    check_time();
  });
  rec.finish();
  summary["duration_s"] = sim.duration_s;
  summary["steps"] = s.steps;
  summary["simulation_wall_time_s"] = s.wall_time_s;
  // the normal-mode monitor (simulate.hpp) sees every integration step, the frames only the
  // output times: its first slack event is the one reported, the frames' list follows
  const auto& mon = s.monitor;
  summary["normal_mode"] = mon.normal_mode;
  const auto cable_at = [&](int k, double t) { return json{{"cable", model.cable_ids[static_cast<std::size_t>(k)]}, {"t_s", t}}; };
  const json monitor_slack = mon.first_slack_cable >= 0 ? cable_at(mon.first_slack_cable, mon.first_slack_time_s) : json(nullptr);
  summary["first_overstrain"] =
      mon.first_overstrain_cable >= 0 ? cable_at(mon.first_overstrain_cable, mon.first_overstrain_time_s) : json(nullptr);
  summary["strain_limit"] = sim.strain_limit;
  summary["energy_max_abs_drift_J"] = s.max_abs_energy_drift_J;
  summary["com_final_m"] = {s.com_final_m.x(), s.com_final_m.y(), s.com_final_m.z()};
  std::lock_guard lock(job.mutex);
  // tension-only cables are slack at a tension of exactly 0; signed-force (paper-law) and
  // spring elements never count as slack from their force
  std::vector<double> slack_N(static_cast<std::size_t>(model.ncable()), -std::numeric_limits<double>::infinity());
  for (int k = 0; k < model.ncable(); ++k)
    if (model.cables[static_cast<std::size_t>(k)].tension_only && model.cable_force_sign == ts::CableForceSign::kClampTension)
      slack_N[static_cast<std::size_t>(k)] = 0.0;
  detail::add_frame_summary(job.scene, summary, slack_N);
  if (!monitor_slack.is_null()) summary["first_slack"] = monitor_slack;  // exact step time
  summary["frames"] = job.scene.nframe();
  job.summary_json = summary.dump();
}

}  // namespace detail

void run_job(const RunRequest& req, Job& job, const Limits& limits) {
  const auto start = std::chrono::steady_clock::now();
  auto check_time = [&] {
    if (job.cancel.load()) throw Error("run cancelled");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (wall > limits.max_wall_s)
      throw Error("run stopped: wall time above the studio's limit of " + std::to_string(static_cast<int>(limits.max_wall_s)) +
                  " s (shorten the duration or run it with tendyn simulate / tendyn plan)");
  };
  try {
    if (req.cdpr) {
      {
        std::lock_guard lock(job.mutex);
        job.status = "running";
      }
      detail::run_cdpr_job(*req.cdpr, job, check_time);
    } else {
      detail::run_tensegrity_job(req, job, check_time);
    }
    std::lock_guard lock(job.mutex);
    job.progress = 1.0;
    job.status = "done";
  } catch (const std::exception& e) {
    std::lock_guard lock(job.mutex);
    job.error = e.what();
    job.status = job.cancel.load() ? "cancelled" : "error";
  }
}

std::string job_json(Job& job, int from) {
  std::lock_guard lock(job.mutex);
  nlohmann::ordered_json head = {{"status", job.status}, {"progress", job.progress}, {"frame_count", job.scene.nframe()}};
  if (!job.error.empty()) head["error"] = job.error;
  // The other members are JSON text already (scene header, frames, summary): appended to the open object.
  std::string o = head.dump();
  o.pop_back();
  if (from == 0 && job.status != "queued") o += ",\"scene\":" + scene_header_json(job.scene);
  o += ",\"from\":" + std::to_string(std::max(from, 0));
  o += ",\"frames\":" + frames_json(job.scene, from, job.scene.nframe());
  if (!job.summary_json.empty()) o += ",\"summary\":" + job.summary_json;
  o += "}";
  return o;
}

std::string run_csv(Job& job) {
  std::lock_guard lock(job.mutex);
  const Scene& sc = job.scene;
  const auto nf = static_cast<std::size_t>(sc.nframe()), nc = static_cast<std::size_t>(sc.ncable()),
             np = static_cast<std::size_t>(sc.npoint());
  const bool com = sc.com_m.size() == 3 * nf && nf > 0, energy = sc.total_J.size() == nf && nf > 0;
  io::CsvLine line(9);
  line.text("t_s");
  if (com) line.text("com_x_m").text("com_y_m").text("com_z_m");
  if (energy) line.text("kinetic_J").text("elastic_J").text("gravitational_J").text("total_J");
  const std::string force = sc.cable_force_signed ? ".force_N" : ".tension_N";
  for (const auto& c : sc.cables) line.text(c.name + force).text(c.name + ".strain");
  for (const auto& p : sc.points) line.text(p + ".x_m").text(p + ".y_m").text(p + ".z_m");
  std::string out = line.str() + "\n";
  for (std::size_t f = 0; f < nf; ++f) {
    line.clear();
    line.num(sc.t_s[f]);
    if (com) line.num(sc.com_m[3 * f]).num(sc.com_m[3 * f + 1]).num(sc.com_m[3 * f + 2]);
    if (energy) line.num(sc.kinetic_J[f]).num(sc.elastic_J[f]).num(sc.gravitational_J[f]).num(sc.total_J[f]);
    for (std::size_t k = 0; k < nc; ++k) line.num(sc.tension_N[f * nc + k]).num(sc.strain[f * nc + k]);
    for (std::size_t i = 0; i < 3 * np; ++i) line.num(sc.positions_m[f * 3 * np + i]);
    out += line.str();
    out += '\n';
  }
  return out;
}

std::string run_json(Job& job) {
  std::lock_guard lock(job.mutex);
  std::string o = scene_json(job.scene);
  while (!o.empty() && o.back() != '}') o.pop_back();
  if (o.empty()) throw Error("run_json: the scene's JSON is not an object");
  if (!job.summary_json.empty()) {
    o.pop_back();
    o += ",\"summary\":" + job.summary_json + "}";
  }
  return o + "\n";
}

namespace {

std::string lower(std::string_view v) {
  std::string r(v);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool is_wildcard(const std::string& host) { return host == "0.0.0.0" || host == "::" || host == "[::]"; }

/// "name:port" forms this server is reached by (lower case): the loopback names and --host.
std::vector<std::string> allowed_authorities(const Listen& listen) {
  std::vector<std::string> names = {"127.0.0.1", "localhost", "[::1]"};
  if (!listen.host.empty() && !is_wildcard(listen.host)) {
    std::string h = lower(listen.host);
    if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";  // IPv6 literal
    if (std::find(names.begin(), names.end(), h) == names.end()) names.push_back(h);
  }
  std::vector<std::string> out;
  for (const auto& n : names) {
    out.push_back(n + ":" + std::to_string(listen.port));
    if (listen.port == 80) out.push_back(n);
  }
  return out;
}

}  // namespace

HeaderVerdict check_request_headers(std::string_view method, const std::string* host, const std::string* origin,
                                    const std::string* content_type, const Listen& listen) {
  const bool wildcard = is_wildcard(listen.host);
  const auto allowed = allowed_authorities(listen);
  const auto allowed_host = [&](const std::string& h) { return std::find(allowed.begin(), allowed.end(), lower(h)) != allowed.end(); };
  if (host == nullptr || host->empty())
    return {403, "missing Host header (the studio answers requests to 127.0.0.1, localhost or [::1] only)"};
  if (!wildcard && !allowed_host(*host))
    return {403, "Host '" + *host + "' is not this machine's loopback address with port " + std::to_string(listen.port) +
                     " (DNS rebinding protection: open the studio at http://127.0.0.1:" + std::to_string(listen.port) + "/)"};
  if (origin != nullptr) {
    const std::string o = lower(*origin);
    const bool same = o.rfind("http://", 0) == 0 && (wildcard ? o.substr(7) == lower(*host) : allowed_host(o.substr(7)));
    if (!same) return {403, "Origin '" + *origin + "' is not the studio's own page (cross-site requests are refused)"};
  }
  if (method == "POST") {
    const std::string ct = content_type ? lower(*content_type) : std::string();
    const auto semi = ct.find(';');
    std::string mime = ct.substr(0, semi);
    while (!mime.empty() && std::isspace(static_cast<unsigned char>(mime.back()))) mime.pop_back();
    if (mime != "application/json")
      return {415, "Content-Type must be application/json (got '" + (content_type ? *content_type : std::string()) + "')"};
  }
  return {};
}

}  // namespace tendyn::viz::studio
