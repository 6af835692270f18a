#include <charconv>
#include <tendyn/core/format.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/mass_parts.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include "io/yaml_util.hpp"

#include <yaml-cpp/yaml.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <numbers>
#include <optional>
#include <set>

namespace tendyn::tensegrity {

using io::YamlNode;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

double positive(const YamlNode& n) {
  const double v = n.as_double();
  if (!(v > 0.0)) n.fail("must be > 0 (got " + n.as_string() + ")");
  return v;
}
double non_negative(const YamlNode& n) {
  const double v = n.as_double();
  if (v < 0.0) n.fail("must be >= 0 (got " + n.as_string() + ")");
  return v;
}
std::string read_id(const YamlNode& n, std::set<std::string>& seen, const char* kind) {
  const auto idn = n.at("id");
  const std::string id = idn.as_string();
  if (id.empty()) idn.fail(std::string(kind) + " id must not be empty");
  if (!seen.insert(id).second) idn.fail("duplicate " + std::string(kind) + " id '" + id + "'");
  return id;
}

// An enum value through its name table (x_from_string); its error is reported at the node (file:line:col).
template <class Enum>
Enum read_enum(const YamlNode& n, Enum (*from_string)(const std::string&)) {
  try {
    return from_string(n.as_string());
  } catch (const Error& e) {
    n.fail(e.what());
  }
}

void read_simulation(const YamlNode& s, SimulationOptions& o) {
  s.require_keys(
      {"duration", "dt", "integrator", "output_interval", "strain_limit", "slack_tolerance", "rtol", "atol", "energy_growth_limit"});
  if (auto v = s.get("duration")) o.duration_s = non_negative(*v);
  if (auto v = s.get("dt")) o.dt_s = positive(*v);
  if (auto v = s.get("integrator")) o.integrator = read_enum(*v, &integrator_from_string);
  if (auto v = s.get("output_interval")) o.output_interval_s = non_negative(*v);
  if (auto v = s.get("strain_limit")) o.strain_limit = positive(*v);
  if (auto v = s.get("slack_tolerance")) o.slack_tolerance = non_negative(*v);
  if (auto v = s.get("rtol")) o.tolerance.rtol = positive(*v);
  if (auto v = s.get("atol")) o.tolerance.atol = positive(*v);
  if (auto v = s.get("energy_growth_limit")) o.energy_growth_limit = positive(*v);
}

/// Entries per list (nodes, rods, cables, drives); docs/MODEL_FORMAT.md "Limits".
constexpr std::size_t kMaxElements = 100000;

// Body frames of rods with body points or a full inertia tensor, from the initial pose: B has the
// rod's axis as z (the minimal rotation of world z onto it, as state_from_node_positions) and its
// origin at the centre of mass. Sets Rod::inertia_B_kgm2, Node::p_B_m of the rod's nodes (ends of
// general rods, body points). `general`: (rod, com_W, I_W about com_W in world axes, place).
template <class General>
void place_body_geometry(Model& m, const Eigen::MatrixX3d& P, const std::vector<General>& general, const YamlNode& nodes) {
  for (const auto& g : general) {
    Rod& r = m.rods[static_cast<std::size_t>(g.rod)];
    if (!g.com_W.allFinite() || !g.I_W.allFinite()) g.where.fail("com and tensor must be finite");
    const Eigen::Vector3d p0 = P.row(r.node[0]).transpose(), p1 = P.row(r.node[1]).transpose();
    const Eigen::Matrix3d R = quat_from_two_vectors(Eigen::Vector3d::UnitZ(), (p1 - p0).normalized()).toRotationMatrix();
    r.inertia_B_kgm2 = R.transpose() * g.I_W * R;
    r.inertia_B_kgm2 = 0.5 * (r.inertia_B_kgm2 + r.inertia_B_kgm2.transpose()).eval();
    for (int e = 0; e < 2; ++e)
      m.nodes[static_cast<std::size_t>(r.node[e])].p_B_m = R.transpose() * (P.row(r.node[e]).transpose() - g.com_W);
  }
  for (int i = 0; i < m.nnode(); ++i) {
    Node& n = m.nodes[static_cast<std::size_t>(i)];
    if (!n.is_body_point()) continue;
    const Rod& r = m.rods[static_cast<std::size_t>(n.rod)];
    const Eigen::Vector3d p0 = P.row(r.node[0]).transpose(), p1 = P.row(r.node[1]).transpose();
    const Eigen::Matrix3d R = quat_from_two_vectors(Eigen::Vector3d::UnitZ(), (p1 - p0).normalized()).toRotationMatrix();
    const Eigen::Vector3d p_B0 = m.p_BN(r.node[0]);  // end 0 from C, body frame
    const auto entry = nodes[static_cast<std::size_t>(i)];
    if (auto off = entry.get("offset"))
      n.p_B_m = p_B0 + Eigen::Vector3d(off->as_vector(3));
    else
      n.p_B_m = p_B0 + R.transpose() * (P.row(i).transpose() - p0);
  }
}

// `parts:` of a rod (docs/MODEL_FORMAT.md "Rods from parts"): each part's mass, centre and
// inertia in world axes at the initial pose; p0, p1 the rod's end positions (the default axis).
MassPart read_rod_parts(const YamlNode& list, const Eigen::Vector3d& p0, const Eigen::Vector3d& p1) {
  list.require_sequence(kMaxElements);
  if (list.size() == 0) list.fail("at least one part is needed");
  static const std::map<std::string, PartShape> kShapes = {{"sphere", PartShape::kSphere},
                                                           {"capsule", PartShape::kCapsule},
                                                           {"cylinder", PartShape::kCylinder},
                                                           {"tube", PartShape::kTube},
                                                           {"thin_cylinder", PartShape::kThinCylinder},
                                                           {"point", PartShape::kPoint}};
  std::vector<MassPart> parts;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto e = list[i];
    e.require_keys({"type", "mass", "density", "radius", "inner_radius", "from", "to", "position", "end"});
    const auto tn = e.at("type");
    const auto it = kShapes.find(tn.as_string());
    if (it == kShapes.end())
      tn.fail("unknown part type '" + tn.as_string() + "' (valid: sphere, capsule, cylinder, tube, thin_cylinder, point)");
    const PartShape shape = it->second;
    const bool axial =
        shape == PartShape::kCapsule || shape == PartShape::kCylinder || shape == PartShape::kTube || shape == PartShape::kThinCylinder;
    const bool has_radius = shape != PartShape::kThinCylinder && shape != PartShape::kPoint;
    // keys that do not belong to the shape
    auto refuse = [&](const char* key, const char* why) {
      if (e.has(key)) e.at(key).fail(std::string("'") + key + "' " + why + " (part type '" + tn.as_string() + "')");
    };
    if (!has_radius) refuse("radius", "does not apply");
    if (shape != PartShape::kTube) refuse("inner_radius", "is for tubes only");
    if (axial) {
      refuse("position", "does not apply: give 'from' and 'to', or neither for the rod's axis");
      refuse("end", "does not apply: give 'from' and 'to', or neither for the rod's axis");
    } else {
      refuse("from", "does not apply: give 'position' or 'end'");
      refuse("to", "does not apply: give 'position' or 'end'");
    }
    if (e.has("mass") == e.has("density")) e.fail("a part takes exactly one of 'mass' [kg] and 'density' [kg/m^3]");
    if (!has_radius && e.has("density")) e.at("density").fail("a " + tn.as_string() + " has no volume: give 'mass'");
    Eigen::Vector3d size = Eigen::Vector3d::Zero();
    if (has_radius) size[0] = positive(e.at("radius"));
    if (shape == PartShape::kTube) {
      size[2] = non_negative(e.at("inner_radius"));
      if (!(size[2] < size[0])) e.at("inner_radius").fail("must be less than radius");
    }
    Eigen::Vector3d centre, axis = Eigen::Vector3d::UnitZ();
    if (axial) {
      Eigen::Vector3d a = p0, b = p1;
      if (e.has("from") != e.has("to")) e.fail("give both 'from' and 'to' (world, initial pose), or neither for the rod's axis");
      if (e.has("from")) a = e.at("from").as_vector(3), b = e.at("to").as_vector(3);
      const double len = (b - a).norm();
      if (!(len > 0.0)) (e.has("from") ? e.at("to") : e).fail("the part has zero length");
      size[1] = len / 2;
      centre = (a + b) / 2;
      axis = (b - a) / len;
    } else {
      if (e.has("position") == e.has("end")) e.fail("give exactly one of 'position' (world, initial pose) and 'end' (0 or 1)");
      if (e.has("end")) {
        const int end = e.at("end").as_int();
        if (end != 0 && end != 1) e.at("end").fail("must be 0 or 1");
        centre = end == 0 ? p0 : p1;
      } else {
        centre = e.at("position").as_vector(3);
      }
    }
    const double mass = e.has("mass") ? positive(e.at("mass")) : positive(e.at("density")) * part_volume(shape, size);
    const Eigen::Matrix3d R = quat_from_two_vectors(Eigen::Vector3d::UnitZ(), axis).toRotationMatrix();
    parts.push_back(make_part(shape, size, mass, centre, R));
  }
  const MassPart total = combine_parts(parts);
  // a line of mass (thin cylinders, points on the axis) has no moment about its line: the rod would
  // spin without bound about it
  const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(total.inertia_kgm2, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(ev.minCoeff() > 1e-9 * ev.maxCoeff()))
    list.fail("the parts give no moment of inertia about one axis (principal moments " + format_number(ev[0], 6) + ", " +
              format_number(ev[1], 6) + ", " + format_number(ev[2], 6) +
              " kg m^2): a thin cylinder or points on one line need a part with a radius, e.g. end-caps");
  return total;
}

// A model with the file's name, gravity and damping law.
Model model_header(const YamlNode& root) {
  Model m;
  m.name = root.get_string("name", "tensegrity");
  if (auto g = root.get("gravity")) m.gravity_W = g->as_vector(3);
  if (auto d = root.get("damping_law")) m.damping_law = read_enum(*d, &damping_law_from_string);
  return m;
}

// The elements of a model file (read_elements), section by section: nodes, rods, body points,
// cables. Keeps what the sections share: ids seen, node positions, fixed flags, rod velocities,
// general inertias.
struct ElementReader {
  struct GeneralInertia {
    int rod;
    Eigen::Vector3d com_W;
    Eigen::Matrix3d I_W;  // about com_W, world axes, initial pose
    YamlNode where;
  };
  const YamlNode& root;
  Model m;
  std::set<std::string> seen;
  std::map<std::string, int> node_index;
  std::vector<Eigen::Vector3d> pos;
  std::vector<bool> fixed;
  std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> rod_vel;
  std::vector<GeneralInertia> general;
  YamlNode nodes;

  // name, gravity and damping law read first, then the nodes' list
  ElementReader(const YamlNode& r) : root(r), m(model_header(r)), nodes(r.at("nodes")) {}
  void read_nodes();
  int lookup(const YamlNode& ref) const;
  void read_rods();
  void read_rod(const YamlNode& r, std::size_t j);
  void attach_body_points();
  void read_cables();
};

void ElementReader::read_nodes() {
  nodes.require_sequence(kMaxElements);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto n = nodes[i];
    n.require_keys({"id", "position", "fixed", "force", "radius", "on", "offset", "contact"});
    const auto id = read_id(n, seen, "node");
    node_index[id] = static_cast<int>(i);
    m.node_ids.push_back(id);
    if (n.has("on")) {
      if (n.has("position") == n.has("offset"))
        n.fail("a body point ('on') takes exactly one of 'position' (world, initial pose) and 'offset' (rod frame)");
      if (n.has("fixed")) n.at("fixed").fail("a body point ('on') cannot be fixed");
    } else {
      for (const char* key : {"offset", "contact"})
        if (n.has(key)) n.at(key).fail(std::string("'") + key + "' needs 'on: ROD' (a point fixed on a rod's body)");
    }
    pos.emplace_back(n.has("position") ? Eigen::Vector3d(n.at("position").as_vector(3)) : Eigen::Vector3d::Zero());
    fixed.push_back(n.get_bool("fixed", false));
    m.f_W_ext_node.emplace_back(n.has("force") ? Eigen::Vector3d(n.at("force").as_vector(3)) : Eigen::Vector3d::Zero());
    Node node;
    node.p_W_anchor = pos.back();
    if (auto v = n.get("radius")) {
      if (fixed.back()) v->fail("a fixed node has no end-cap");
      node.radius_m = non_negative(*v);
    }
    node.contact = n.get_bool("contact", false);
    m.nodes.push_back(node);
  }
}

// The index of the node a reference names (an error naming the reference when there is none).
int ElementReader::lookup(const YamlNode& ref) const {
  const auto id = ref.as_string();
  auto it = node_index.find(id);
  if (it == node_index.end()) ref.fail("names node '" + id + "', which is not defined in 'nodes'");
  return it->second;
}

void ElementReader::read_rods() {
  const auto rods = root.at("rods");
  rods.require_sequence(kMaxElements);
  if (rods.size() == 0) rods.fail("at least one rod is needed");
  seen.clear();
  for (std::size_t j = 0; j < rods.size(); ++j) read_rod(rods[j], j);
}

// Rod j of the file: mass and inertia (given, from the radii, or from parts), its two end nodes.
void ElementReader::read_rod(const YamlNode& r, std::size_t j) {
  r.require_keys({"id", "mass", "length", "com_ratio", "radius_outer", "radius_inner", "inertia_transverse", "inertia_axial", "nodes",
                  "velocity", "angular_velocity", "inertia", "parts"});
  m.rod_ids.push_back(read_id(r, seen, "rod"));
  const bool from_parts = r.has("parts");
  if (from_parts) {
    for (const char* key : {"mass", "com_ratio", "radius_outer", "radius_inner", "inertia_transverse", "inertia_axial", "inertia"})
      if (r.has(key)) r.at(key).fail(std::string("'") + key + "' cannot be combined with 'parts' (the parts give mass and inertia)");
  }
  const double mass = from_parts ? 1.0 : positive(r.at("mass"));
  const double len = positive(r.at("length"));
  Rod rod;
  if (auto ro = r.get("radius_outer")) {
    const double r1 = positive(*ro);
    const double r2 = r.has("radius_inner") ? non_negative(r.at("radius_inner")) : 0.0;
    if (r2 > r1) r.at("radius_inner").fail("must not exceed radius_outer");
    rod = make_hollow_rod(mass, len, r1, r2);
  } else {
    if (r.has("radius_inner")) r.at("radius_inner").fail("given without radius_outer");
    rod = make_thin_rod(mass, len);
  }
  if (auto v = r.get("inertia_transverse")) rod.inertia_transverse_kgm2 = positive(*v);
  if (auto v = r.get("inertia_axial")) rod.inertia_axial_kgm2 = non_negative(*v);
  if (auto v = r.get("com_ratio")) {
    rod.com_ratio = v->as_double();
    if (rod.com_ratio < 0.0 || rod.com_ratio > 1.0) v->fail("must be in [0, 1]");
  }
  if (auto in = r.get("inertia")) {
    for (const char* key : {"com_ratio", "radius_outer", "radius_inner", "inertia_transverse", "inertia_axial"})
      if (r.has(key)) r.at(key).fail(std::string("'") + key + "' cannot be combined with 'inertia' (the full tensor)");
    in->require_keys({"com", "tensor"});
    rod.general_inertia = true;
    general.push_back({static_cast<int>(j), in->at("com").as_vector(3), in->at("tensor").as_matrix(3, 3), *in});
  }
  const auto nn = r.at("nodes");
  nn.require_sequence();
  if (nn.size() != 2) nn.fail("a rod has exactly two nodes (end 0, end 1)");
  for (int e = 0; e < 2; ++e) {
    const auto ref = nn[static_cast<std::size_t>(e)];
    const int idx = lookup(ref);
    if (fixed[static_cast<std::size_t>(idx)]) ref.fail("node '" + ref.as_string() + "' is fixed and cannot be a rod end");
    Node& node = m.nodes[static_cast<std::size_t>(idx)];
    if (node.rod >= 0)
      ref.fail("node '" + ref.as_string() + "' is already an end of rod '" + m.rod_ids[static_cast<std::size_t>(node.rod)] + "'");
    if (nodes[static_cast<std::size_t>(idx)].has("on"))
      ref.fail("node '" + ref.as_string() + "' is a body point ('on') and cannot be a rod end");
    node.rod = static_cast<int>(j);
    node.end = e;
    rod.node[e] = idx;
  }
  const double dist = (pos[static_cast<std::size_t>(rod.node[1])] - pos[static_cast<std::size_t>(rod.node[0])]).norm();
  if (std::abs(dist - len) > 1e-6 * len)
    r.at("length").fail("is " + r.at("length").as_string() + " m but its nodes are " + format_number(dist, 6) +
                        " m apart (move the nodes or fix the length)");
  if (from_parts) {
    const auto list = r.at("parts");
    const MassPart total = read_rod_parts(list, pos[static_cast<std::size_t>(rod.node[0])], pos[static_cast<std::size_t>(rod.node[1])]);
    rod.mass_kg = total.mass_kg;
    rod.general_inertia = true;
    general.push_back({static_cast<int>(j), total.com_m, total.inertia_kgm2, list});
  }
  rod_vel.emplace_back(r.has("velocity") ? Eigen::Vector3d(r.at("velocity").as_vector(3)) : Eigen::Vector3d::Zero(),
                       r.has("angular_velocity") ? Eigen::Vector3d(r.at("angular_velocity").as_vector(3)) : Eigen::Vector3d::Zero());
  m.rods.push_back(rod);
}

// Body points ('on: ROD') on their rods; every other node a rod end or fixed.
void ElementReader::attach_body_points() {
  std::map<std::string, int> rod_index;
  for (std::size_t j = 0; j < m.rod_ids.size(); ++j) rod_index[m.rod_ids[j]] = static_cast<int>(j);
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (auto on = nodes[i].get("on")) {
      const auto it = rod_index.find(on->as_string());
      if (it == rod_index.end()) on->fail("names rod '" + on->as_string() + "', which is not defined in 'rods'");
      m.nodes[i].rod = it->second;
      m.nodes[i].end = Node::kBodyPoint;
      continue;
    }
    if (m.nodes[i].contact) nodes[i].at("contact").fail("rod ends always touch the ground; 'contact' is for body points");
    if (m.nodes[i].rod < 0 && !fixed[i])
      nodes[i].fail("node '" + m.node_ids[i] + "' is neither a rod end nor fixed (set fixed: true for a world anchor)");
  }
}

void ElementReader::read_cables() {
  seen.clear();
  if (auto cables = root.get("cables")) {
    cables->require_sequence(kMaxElements);
    for (std::size_t k = 0; k < cables->size(); ++k) {
      const auto c = (*cables)[k];
      c.require_keys(
          {"id", "nodes", "stiffness", "damping", "rest_length", "tension_only", "rest_length_min", "rest_length_max", "rest_rate_max"});
      m.cable_ids.push_back(read_id(c, seen, "cable"));
      Cable cab;
      const auto nn = c.at("nodes");
      nn.require_sequence();
      if (nn.size() != 2) nn.fail("a cable joins exactly two nodes");
      cab.node[0] = lookup(nn[0]);
      cab.node[1] = lookup(nn[1]);
      if (cab.node[0] == cab.node[1]) nn.fail("both ends on the same node");
      if (m.nodes[static_cast<std::size_t>(cab.node[0])].is_anchor() && m.nodes[static_cast<std::size_t>(cab.node[1])].is_anchor())
        nn.fail("joins two fixed nodes");
      cab.stiffness_Npm = non_negative(c.at("stiffness"));
      cab.damping_Nspm = c.has("damping") ? non_negative(c.at("damping")) : 0.0;
      cab.rest_length_m = non_negative(c.at("rest_length"));
      cab.tension_only = c.get_bool("tension_only", true);
      if (auto v = c.get("rest_length_min")) cab.rest_length_min_m = non_negative(*v);
      if (auto v = c.get("rest_length_max")) cab.rest_length_max_m = positive(*v);
      if (auto v = c.get("rest_rate_max")) cab.rest_rate_max_mps = positive(*v);
      if (cab.rest_length_max_m < cab.rest_length_min_m) c.at("rest_length_max").fail("must be >= rest_length_min");
      m.cables.push_back(cab);
    }
  }
}

Model read_elements(const YamlNode& root) {
  ElementReader E(root);
  Model& m = E.m;
  E.read_nodes();
  E.read_rods();
  E.attach_body_points();
  E.read_cables();
  Eigen::MatrixX3d P(static_cast<Eigen::Index>(E.pos.size()), 3);
  for (std::size_t i = 0; i < E.pos.size(); ++i) P.row(static_cast<Eigen::Index>(i)) = E.pos[i].transpose();
  place_body_geometry(m, P, E.general, E.nodes);
  m.initial_state = state_from_node_positions(m, P);
  for (int j = 0; j < m.nrod(); ++j) {
    m.initial_state.v_WC(j) = E.rod_vel[static_cast<std::size_t>(j)].first;
    m.initial_state.w_W(j) = E.rod_vel[static_cast<std::size_t>(j)].second;
  }
  return m;
}

// Where a model-level check (validate(Model)) failed: "rod 'r1': ..." names an element; its entry in
// the rods/cables/nodes list gives file:line:col. A builder or matrices model: that section.
std::string model_check_place(const YamlNode& root, const std::string& message) {
  for (const auto& [kind, list] : {std::pair<const char*, const char*>{"rod '", "rods"}, {"cable '", "cables"}, {"node '", "nodes"}}) {
    const std::string k = kind;
    if (message.rfind(k, 0) != 0) continue;
    const auto end = message.find('\'', k.size());
    if (end == std::string::npos || !root.has(list)) break;
    const std::string id = message.substr(k.size(), end - k.size());
    const auto items = root.at(list);
    if (!items.is_sequence()) break;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].is_map() && items[i].has("id") && items[i].at("id").is_scalar() && items[i].at("id").as_string() == id)
        return items[i].where();
    break;
  }
  for (const char* section : {"builder", "matrices"})
    if (root.has(section)) return root.at(section).where();
  return root.file();
}

constexpr double kMaxBuilderExtent = 1e4;  // docs/MODEL_FORMAT.md

Model read_builder(const YamlNode& b) {
  b.require_map();
  const auto type = b.at("type");
  const auto t = type.as_string();
  if (t == "prism") {
    b.require_keys({"type",
                    "n",
                    "rod_mass",
                    "rod_length",
                    "rod_radius_outer",
                    "rod_radius_inner",
                    "stiffness",
                    "stiffness_top",
                    "stiffness_bottom",
                    "stiffness_side",
                    "damping",
                    "rest_length",
                    "rest_top",
                    "rest_bottom",
                    "rest_side",
                    "psi_deg",
                    "layout",
                    "radius",
                    "pivot",
                    "height",
                    "damping_law"});
    PrismParams p;
    if (auto v = b.get("n")) {
      p.n = v->as_int();
      if (p.n < 3 || p.n > 10000) v->fail("must be in [3, 10000]");
    }
    if (auto v = b.get("rod_mass")) p.rod_mass_kg = positive(*v);
    if (auto v = b.get("rod_length")) p.rod_length_m = positive(*v);
    if (auto v = b.get("rod_radius_outer")) p.rod_radius_outer_m = non_negative(*v);
    if (auto v = b.get("rod_radius_inner")) p.rod_radius_inner_m = non_negative(*v);
    if (auto v = b.get("stiffness")) p.stiffness_Npm = non_negative(*v);
    if (auto v = b.get("stiffness_top")) p.stiffness_top_Npm = positive(*v);
    if (auto v = b.get("stiffness_bottom")) p.stiffness_bottom_Npm = positive(*v);
    if (auto v = b.get("stiffness_side")) p.stiffness_side_Npm = positive(*v);
    if (auto v = b.get("damping")) p.damping_Nspm = non_negative(*v);
    if (auto v = b.get("rest_length")) p.rest_length_m = non_negative(*v);
    if (auto v = b.get("rest_top")) p.rest_top_m = positive(*v);
    if (auto v = b.get("rest_bottom")) p.rest_bottom_m = positive(*v);
    if (auto v = b.get("rest_side")) p.rest_side_m = positive(*v);
    if (auto v = b.get("psi_deg")) p.psi_rad = v->as_double() * kDeg;
    if (auto v = b.get("layout")) p.layout = read_enum(*v, &prism_layout_from_string);
    if (auto v = b.get("radius")) p.radius_m = positive(*v);
    if (auto v = b.get("pivot")) {
      p.pivot = v->as_double();
      if (p.pivot < 0.0 || p.pivot > 1.0) v->fail("must be in [0, 1]");
    }
    if (auto v = b.get("height")) p.height_m = v->as_double();
    if (auto v = b.get("damping_law")) p.damping_law = read_enum(*v, &damping_law_from_string);
    // positions are written with 12 significant digits (export --yaml) and read back against the
    // rod length to 1e-6: a prism placed 1e4 rod lengths or more away would not round-trip
    for (const char* key : {"height", "radius"})
      if (auto v = b.get(key)) {
        const double x = std::abs(v->as_double()), limit = kMaxBuilderExtent * p.rod_length_m;
        if (x > limit) {
          v->fail("must be at most " + format_number(kMaxBuilderExtent, 6) + " rod lengths in magnitude (" + format_number(limit, 6) +
                  " m; got " + format_number(v->as_double(), 6) + " m)");
        }
      }
    try {
      return make_prism(p);
    } catch (const Error& e) {
      b.fail(e.what());
    }
  }
  if (t == "expanded-octahedron") {
    b.require_keys({"type", "rod_mass", "rod_length", "rod_radius_outer", "rod_radius_inner", "stiffness", "damping", "rest_length",
                    "spacing_scale", "perturbation", "damping_law"});
    OctahedronParams p;
    if (auto v = b.get("rod_mass")) p.rod_mass_kg = positive(*v);
    if (auto v = b.get("rod_length")) p.rod_length_m = positive(*v);
    if (auto v = b.get("rod_radius_outer")) p.rod_radius_outer_m = non_negative(*v);
    if (auto v = b.get("rod_radius_inner")) p.rod_radius_inner_m = non_negative(*v);
    if (auto v = b.get("stiffness")) p.stiffness_Npm = non_negative(*v);
    if (auto v = b.get("damping")) p.damping_Nspm = non_negative(*v);
    if (auto v = b.get("rest_length")) p.rest_length_m = non_negative(*v);
    if (auto v = b.get("spacing_scale")) p.spacing_scale = positive(*v);
    if (auto v = b.get("perturbation")) p.perturbation_m = non_negative(*v);
    if (auto v = b.get("damping_law")) p.damping_law = read_enum(*v, &damping_law_from_string);
    try {
      return make_expanded_octahedron(p);
    } catch (const Error& e) {
      b.fail(e.what());
    }
  }
  type.fail("unknown builder '" + t + "' (valid: prism, expanded-octahedron)");
}

Model read_matrices(const YamlNode& mx) {
  mx.require_keys({"R", "E", "S", "Gamma", "P", "positions", "rod", "compression", "index_base"});
  const int base = mx.has("index_base") ? mx.at("index_base").as_int() : 1;
  if (base != 0 && base != 1) mx.at("index_base").fail("must be 0 or 1");
  const Eigen::MatrixXd Pn = mx.at("positions").as_matrix(-1, 3);
  const int n = static_cast<int>(Pn.rows());
  auto read_idx = [&](const YamlNode& node) {
    const Eigen::MatrixXd d = node.as_matrix(-1, 2);
    Eigen::MatrixX2i out(d.rows(), 2);
    for (int i = 0; i < d.rows(); ++i)
      for (int c = 0; c < 2; ++c) {
        const double v = d(i, c);
        if (v != std::floor(v) || v - base < 0 || v - base >= n)
          node[static_cast<std::size_t>(i)].fail("node index " + std::to_string(v) + " out of range (" + std::to_string(n) +
                                                 " nodes, base " + std::to_string(base) + ")");
        out(i, c) = static_cast<int>(v) - base;
      }
    return out;
  };
  const Eigen::MatrixX2i R = read_idx(mx.at("R"));
  const Eigen::MatrixX2i E = mx.has("E") ? read_idx(mx.at("E")) : Eigen::MatrixX2i(0, 2);
  const Eigen::MatrixXd S = mx.at("S").as_matrix(n, n);
  for (int i = 0; i < n; ++i)  // MODEL_FORMAT.md: a cable joins two different nodes
    if (S(i, i) != 0.0)
      mx.at("S")[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)].fail(
          "the diagonal of S must be 0 (a cable joins two different nodes)");
  const Eigen::MatrixXd G = mx.has("Gamma") ? mx.at("Gamma").as_matrix(n, n) : Eigen::MatrixXd::Zero(n, n);
  const Eigen::MatrixXd P = mx.at("P").as_matrix(n, n);
  const auto rod = mx.at("rod");
  rod.require_keys({"mass", "radius_outer", "radius_inner"});
  std::vector<Rod> rods;
  for (int j = 0; j < R.rows(); ++j) {
    const double L = (Pn.row(R(j, 1)) - Pn.row(R(j, 0))).norm();
    const double mass = positive(rod.at("mass"));
    rods.push_back(rod.has("radius_outer") ? make_hollow_rod(mass, L, positive(rod.at("radius_outer")),
                                                             rod.has("radius_inner") ? non_negative(rod.at("radius_inner")) : 0.0)
                                           : make_thin_rod(mass, L));
  }
  std::vector<std::pair<int, int>> comp;
  if (mx.has("compression")) {
    const auto c = read_idx(mx.at("compression"));
    for (int i = 0; i < c.rows(); ++i) comp.emplace_back(c(i, 0), c(i, 1));
  }
  try {
    return model_from_matrices(R, S, G, P, Pn, rods, E, comp);
  } catch (const Error& e) {
    mx.fail(e.what());
  }
}

// A drive table file: rows "t_s,u_m" (two numbers, strictly increasing times), an optional
// header line, '#' comments; read with io::CsvReader (256 MiB bound, path:line:col errors).
TableDrive read_table_csv(const YamlNode& where, const std::string& path) {
  std::optional<io::CsvReader> csv;
  try {
    csv.emplace(path, io::CsvLimits{}, io::CsvHeader::kOptional);
  } catch (const Error& e) {
    where.fail(std::string("drive table: ") + e.what());
  }
  if (csv->ncolumn() != 2)
    throw Error(csv->path() + ": a drive table has 2 columns (t_s,u_m), this one has " + std::to_string(csv->ncolumn()));
  TableDrive t;
  while (csv->next()) {
    const double t_s = csv->number(0), u_m = csv->number(1);
    if (!t.t_s.empty() && !(t_s > t.t_s.back())) throw Error(csv->where(0) + ": times must increase strictly");
    t.t_s.push_back(t_s);
    t.u_m.push_back(u_m);
  }
  if (t.t_s.size() < 2) throw Error(csv->path() + ": a drive table needs at least 2 rows");
  return t;
}

void read_drives(const YamlNode& list, Model& m, const std::string& base_dir) {
  list.require_sequence(kMaxElements);
  std::set<int> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto d = list[i];
    d.require_keys({"cable", "sinusoid", "table"});
    const auto cn = d.at("cable");
    const auto id = cn.as_string();
    const auto it = std::find(m.cable_ids.begin(), m.cable_ids.end(), id);
    if (it == m.cable_ids.end()) cn.fail("names cable '" + id + "', which the model does not have");
    CableDrive drive;
    drive.cable = static_cast<int>(it - m.cable_ids.begin());
    if (!seen.insert(drive.cable).second) cn.fail("cable '" + id + "' has two drives");
    if (d.has("sinusoid") == d.has("table")) d.fail("give exactly one of 'sinusoid' or 'table'");
    if (auto sn = d.get("sinusoid")) {
      sn->require_keys({"a", "b", "c", "d"});
      SinusoidDrive s;
      s.a_m = sn->get_double("a", 0.0);
      s.b_radps = sn->get_double("b", 0.0);
      s.c_rad = sn->get_double("c", 0.0);
      s.d_m = sn->get_double("d", 0.0);
      drive.u = s;
    } else {
      const auto tn = d.at("table");
      if (tn.is_scalar()) {
        std::string path = tn.as_string();
        if (!path.empty() && path[0] != '/' && !base_dir.empty()) path = base_dir + "/" + path;
        drive.u = read_table_csv(tn, path);
      } else {
        const Eigen::MatrixXd rows = tn.as_matrix(-1, 2);
        TableDrive t;
        for (int r = 0; r < rows.rows(); ++r) {
          t.t_s.push_back(rows(r, 0));
          t.u_m.push_back(rows(r, 1));
        }
        drive.u = t;
      }
    }
    m.drives.push_back(drive);
  }
}

Ground read_ground(const YamlNode& g) {
  g.require_keys({"type", "height", "friction", "friction_law", "restitution", "max_penetration", "baumgarte", "stiffness", "damping",
                  "slip_velocity"});
  Ground out;
  out.type = read_enum(g.at("type"), &ground_type_from_string);
  if (auto v = g.get("height")) out.height_m = v->as_double();
  if (auto v = g.get("friction")) out.friction = non_negative(*v);
  if (auto v = g.get("friction_law")) out.friction_law = read_enum(*v, &friction_law_from_string);
  if (auto v = g.get("restitution")) {
    out.restitution = v->as_double();
    if (out.restitution < 0.0 || out.restitution > 1.0) v->fail("must be in [0, 1]");
  }
  if (auto v = g.get("max_penetration")) out.max_penetration_m = positive(*v);
  if (auto v = g.get("baumgarte")) {
    out.baumgarte = positive(*v);
    if (out.baumgarte > 1.0) v->fail("must be in (0, 1]");
  }
  if (auto v = g.get("stiffness")) out.stiffness_Npm = positive(*v);
  if (auto v = g.get("damping")) out.damping_Nspm = non_negative(*v);
  if (auto v = g.get("slip_velocity")) out.slip_velocity_mps = positive(*v);
  return out;
}

// winches: [{cable, spool_radius, gear_ratio, stall_torque, no_load_speed, rotor_inertia, ...}]
void read_winches(const YamlNode& list, Model& m) {
  list.require_sequence(kMaxElements);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto w = list[i];
    w.require_keys({"cable", "spool_radius", "gear_ratio", "stall_torque", "no_load_speed", "rotor_inertia", "coulomb_friction",
                    "viscous_friction", "friction_speed", "backdrivable", "control", "kp", "ki", "kd", "command_limit", "rate_limit"});
    Winch wi;
    const auto c = w.at("cable");
    const auto it = std::find(m.cable_ids.begin(), m.cable_ids.end(), c.as_string());
    if (it == m.cable_ids.end()) c.fail("names cable '" + c.as_string() + "', which is not defined in 'cables'");
    wi.cable = static_cast<int>(it - m.cable_ids.begin());
    for (std::size_t j = 0; j < i; ++j)
      if (m.winches[j].cable == wi.cable) c.fail("cable '" + c.as_string() + "' already has a winch");
    if (auto v = w.get("spool_radius")) wi.spool_radius_m = positive(*v);
    if (auto v = w.get("gear_ratio")) wi.gear_ratio = positive(*v);
    if (auto v = w.get("stall_torque")) wi.stall_torque_Nm = positive(*v);
    if (auto v = w.get("no_load_speed")) wi.no_load_speed_radps = positive(*v);
    if (auto v = w.get("rotor_inertia")) wi.rotor_inertia_kgm2 = positive(*v);
    if (auto v = w.get("coulomb_friction")) wi.coulomb_friction_Nm = non_negative(*v);
    if (auto v = w.get("viscous_friction")) wi.viscous_friction_Nmsprad = non_negative(*v);
    if (auto v = w.get("friction_speed")) wi.friction_speed_radps = positive(*v);
    wi.backdrivable = w.get_bool("backdrivable", true);
    if (auto v = w.get("control")) wi.control = read_enum(*v, &winch_control_from_string);
    if (auto v = w.get("kp")) wi.kp_per_m = non_negative(*v);
    if (auto v = w.get("ki")) wi.ki_per_ms = non_negative(*v);
    if (auto v = w.get("kd")) wi.kd_s_per_m = non_negative(*v);
    if (auto v = w.get("command_limit")) {
      wi.command_limit = positive(*v);
      if (wi.command_limit > 1.0) v->fail("must be in (0, 1] (a fraction of the full voltage)");
    }
    if (auto v = w.get("rate_limit")) {
      wi.rate_limit_mps = positive(*v);
      if (wi.control != Winch::Control::kPosition) v->fail("is a limit of the position loop (control: position)");
    }
    if (wi.coulomb_friction_Nm >= wi.stall_torque_Nm * wi.command_limit)
      w.fail("Coulomb friction is not below the motor's torque at the command limit: the motor can never turn");
    m.winches.push_back(wi);
  }
  m.initial_state.x.conservativeResize(m.nx());
  m.initial_state.x.tail(3 * m.nwinch()).setZero();  // at rest, nothing reeled out
}

// actuators: [{name, cable, gear, gain: [g0, g1, g2], bias: [b0, b1, b2], ctrl, ctrl_range: [lo, hi],
// force_range: [lo, hi]}] (ForceActuator; a range given means limited)
void read_force_actuators(const YamlNode& list, Model& m) {
  list.require_sequence(kMaxElements);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto a = list[i];
    a.require_keys({"name", "cable", "gear", "gain", "bias", "ctrl", "ctrl_range", "force_range", "dynamics", "time_constant", "act"});
    ForceActuator fa;
    const auto c = a.at("cable");
    const auto it = std::find(m.cable_ids.begin(), m.cable_ids.end(), c.as_string());
    if (it == m.cable_ids.end()) c.fail("names cable '" + c.as_string() + "', which is not defined in 'cables'");
    fa.cable = static_cast<int>(it - m.cable_ids.begin());
    if (m.force_actuator_on(fa.cable) >= 0) c.fail("cable '" + c.as_string() + "' already has a force actuator");
    for (const Winch& w : m.winches)
      if (w.cable == fa.cable) c.fail("cable '" + c.as_string() + "' has a winch (one actuator per cable)");
    const std::string name = a.get_string("name", c.as_string());
    if (std::find(m.actuator_ids.begin(), m.actuator_ids.end(), name) != m.actuator_ids.end())
      a.fail("actuator name '" + name + "' used twice");
    if (auto v = a.get("gear")) {
      fa.gear = v->as_double();
      if (fa.gear == 0.0) v->fail("must not be 0");
    }
    if (auto v = a.get("gain")) {
      const Eigen::VectorXd g = v->as_vector(3);
      fa.gain = {g[0], g[1], g[2]};
    }
    if (auto v = a.get("bias")) {
      const Eigen::VectorXd b = v->as_vector(3);
      fa.bias = {b[0], b[1], b[2]};
    }
    fa.ctrl = a.get_double("ctrl", 0.0);
    auto range = [&](const char* key, bool& limited, double& lo, double& hi) {  // a range given: limited
      if (auto v = a.get(key)) {
        const Eigen::VectorXd r = v->as_vector(2);
        if (!(r[0] <= r[1])) v->fail("lower bound above upper bound");
        limited = true;
        lo = r[0];
        hi = r[1];
      }
    };
    range("ctrl_range", fa.ctrl_limited, fa.ctrl_min, fa.ctrl_max);
    range("force_range", fa.force_limited, fa.force_min_N, fa.force_max_N);
    if (auto v = a.get("dynamics")) fa.dynamics = read_enum(*v, &actuator_dynamics_from_string);
    if (auto v = a.get("time_constant")) {
      if (fa.dynamics != ForceActuator::Dynamics::kFilter) v->fail("is the filter's (dynamics: filter)");
      fa.time_constant_s = positive(*v);
    }
    const auto act = a.get("act");
    if (act && fa.dynamics == ForceActuator::Dynamics::kNone) act->fail("is the initial activation of an actuator with dynamics");
    m.force_actuators.push_back(fa);
    m.actuator_ids.push_back(name);
    if (fa.dynamics != ForceActuator::Dynamics::kNone) {  // the activation's state number, after the rods' and winches'
      m.initial_state.x.conservativeResize(m.nx());
      m.initial_state.x[m.nx() - 1] = act ? act->as_double() : 0.0;
    }
  }
}

ModelFile read_root(const YamlNode& root) {
  root.require_map();
  root.require_keys({"tendyn", "name", "gravity", "damping_law", "cable_force_sign", "rods", "nodes", "cables", "builder", "matrices",
                     "simulation", "description", "drives", "ground", "winches", "actuators"});
  if (auto k = root.get("tendyn"))
    if (k->as_string() != "tensegrity") k->fail("this reader takes 'tensegrity' models, not '" + k->as_string() + "'");
  ModelFile f;
  const int forms = (root.has("rods") || root.has("nodes") ? 1 : 0) + (root.has("builder") ? 1 : 0) + (root.has("matrices") ? 1 : 0);
  if (forms != 1) root.fail("give exactly one of: rods/nodes/cables lists, 'builder', or 'matrices'");
  if (root.has("builder")) {
    f.model = read_builder(root.at("builder"));
    if (auto g = root.get("gravity")) f.model.gravity_W = g->as_vector(3);
    if (auto n = root.get("name")) f.model.name = n->as_string();
  } else if (root.has("matrices")) {
    f.model = read_matrices(root.at("matrices"));
    if (auto g = root.get("gravity")) f.model.gravity_W = g->as_vector(3);
    if (auto d = root.get("damping_law")) f.model.damping_law = read_enum(*d, &damping_law_from_string);
    if (auto n = root.get("name")) f.model.name = n->as_string();
  } else {
    f.model = read_elements(root);
  }
  if (auto c = root.get("cable_force_sign")) f.model.cable_force_sign = read_enum(*c, &cable_force_sign_from_string);
  if (auto s = root.get("simulation")) read_simulation(*s, f.simulation);
  if (auto g = root.get("ground")) f.model.ground = read_ground(*g);
  if (auto w = root.get("winches")) read_winches(*w, f.model);
  if (auto a = root.get("actuators")) read_force_actuators(*a, f.model);
  if (auto d = root.get("drives")) {
    const auto slash = root.file().find_last_of('/');
    read_drives(*d, f.model, slash == std::string::npos ? std::string() : root.file().substr(0, slash));
  }
  try {
    validate(f.model);
  } catch (const Error& e) {
    throw Error(model_check_place(root, e.what()) + ": " + e.what());
  }
  return f;
}

}  // namespace

ModelFile load_model_file(const std::string& path) {
  if (is_mjcf_path(path)) return load_mjcf_file(path);  // MuJoCo MJCF by extension (mjcf_import.hpp)
  return read_root(YamlNode::load_file(path));
}

ModelFile load_model_string(const std::string& text, const std::string& name) { return read_root(YamlNode::load_string(text, name)); }

namespace {
/// A number written in the shortest form that reads back to the same double (std::to_chars), so
/// that canonical YAML shows 9.81, not 9.8100000000000005.
struct Num {
  double v;
};
YAML::Emitter& operator<<(YAML::Emitter& out, Num n) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, n.v);
  return out << std::string(buf, r.ptr);
}
std::vector<Num> nums(std::initializer_list<double> v) {
  std::vector<Num> out;
  for (double x : v) out.push_back({x});
  return out;
}
}  // namespace

// nodes: positions at the initial state (d holds its kinematics), anchors, body points, end-caps, forces
static void emit_nodes(YAML::Emitter& out, const Model& m, const Data& d) {
  out << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
  for (int i = 0; i < m.nnode(); ++i) {
    out << YAML::BeginMap << YAML::Key << "id" << YAML::Value << m.node_ids[static_cast<std::size_t>(i)];
    const Eigen::Vector3d p = d.p_W_node.col(i);
    out << YAML::Key << "position" << YAML::Value << YAML::Flow << nums({p.x(), p.y(), p.z()});
    const Node& node = m.nodes[static_cast<std::size_t>(i)];
    if (node.is_anchor()) out << YAML::Key << "fixed" << YAML::Value << true;
    if (node.is_body_point()) out << YAML::Key << "on" << YAML::Value << m.rod_ids[static_cast<std::size_t>(node.rod)];
    if (node.radius_m > 0.0) out << YAML::Key << "radius" << YAML::Value << Num{node.radius_m};
    if (node.contact) out << YAML::Key << "contact" << YAML::Value << true;
    if (!m.f_W_ext_node.empty() && !m.f_W_ext_node[static_cast<std::size_t>(i)].isZero()) {
      const auto& f = m.f_W_ext_node[static_cast<std::size_t>(i)];
      out << YAML::Key << "force" << YAML::Value << YAML::Flow << nums({f.x(), f.y(), f.z()});
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// rods: mass, length, inertia (the full tensor in world axes at the initial pose), ends, velocities
static void emit_rods(YAML::Emitter& out, const Model& m) {
  out << YAML::Key << "rods" << YAML::Value << YAML::BeginSeq;
  for (int j = 0; j < m.nrod(); ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    out << YAML::BeginMap << YAML::Key << "id" << YAML::Value << m.rod_ids[static_cast<std::size_t>(j)];
    out << YAML::Key << "mass" << YAML::Value << Num{r.mass_kg} << YAML::Key << "length" << YAML::Value << Num{r.length_m};
    if (r.general_inertia) {  // world axes at the initial pose, about the centre of mass
      const Eigen::Matrix3d R = m.initial_state.q_WB(j).normalized().toRotationMatrix();
      const Eigen::Matrix3d I = R * r.inertia_B_kgm2 * R.transpose();
      const Eigen::Vector3d c = m.initial_state.p_WC(j);
      out << YAML::Key << "inertia" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "com" << YAML::Value << YAML::Flow << nums({c.x(), c.y(), c.z()});
      out << YAML::Key << "tensor" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (int a = 0; a < 3; ++a) out << YAML::Flow << nums({I(a, 0), I(a, 1), I(a, 2)});
      out << YAML::EndSeq << YAML::EndMap;
    } else {
      out << YAML::Key << "com_ratio" << YAML::Value << Num{r.com_ratio};
      out << YAML::Key << "inertia_transverse" << YAML::Value << Num{r.inertia_transverse_kgm2};
      out << YAML::Key << "inertia_axial" << YAML::Value << Num{r.inertia_axial_kgm2};
    }
    out << YAML::Key << "nodes" << YAML::Value << YAML::Flow
        << std::vector<std::string>{m.node_ids[static_cast<std::size_t>(r.node[0])], m.node_ids[static_cast<std::size_t>(r.node[1])]};
    const Eigen::Vector3d v = m.initial_state.v_WC(j), w = m.initial_state.w_W(j);
    if (!v.isZero()) out << YAML::Key << "velocity" << YAML::Value << YAML::Flow << nums({v.x(), v.y(), v.z()});
    if (!w.isZero()) out << YAML::Key << "angular_velocity" << YAML::Value << YAML::Flow << nums({w.x(), w.y(), w.z()});
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// cables
static void emit_cables(YAML::Emitter& out, const Model& m) {
  out << YAML::Key << "cables" << YAML::Value << YAML::BeginSeq;
  for (int k = 0; k < m.ncable(); ++k) {
    const Cable& c = m.cables[static_cast<std::size_t>(k)];
    out << YAML::BeginMap << YAML::Key << "id" << YAML::Value << m.cable_ids[static_cast<std::size_t>(k)];
    out << YAML::Key << "nodes" << YAML::Value << YAML::Flow
        << std::vector<std::string>{m.node_ids[static_cast<std::size_t>(c.node[0])], m.node_ids[static_cast<std::size_t>(c.node[1])]};
    out << YAML::Key << "stiffness" << YAML::Value << Num{c.stiffness_Npm} << YAML::Key << "damping" << YAML::Value << Num{c.damping_Nspm};
    out << YAML::Key << "rest_length" << YAML::Value << Num{c.rest_length_m};
    if (!c.tension_only) out << YAML::Key << "tension_only" << YAML::Value << false;
    if (c.rest_length_min_m > 0.0) out << YAML::Key << "rest_length_min" << YAML::Value << Num{c.rest_length_min_m};
    if (std::isfinite(c.rest_length_max_m)) out << YAML::Key << "rest_length_max" << YAML::Value << Num{c.rest_length_max_m};
    if (std::isfinite(c.rest_rate_max_mps)) out << YAML::Key << "rest_rate_max" << YAML::Value << Num{c.rest_rate_max_mps};
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// drives (none: nothing)
static void emit_drives(YAML::Emitter& out, const Model& m) {
  if (!m.drives.empty()) {
    out << YAML::Key << "drives" << YAML::Value << YAML::BeginSeq;
    for (const auto& d : m.drives) {
      out << YAML::BeginMap << YAML::Key << "cable" << YAML::Value << m.cable_ids[static_cast<std::size_t>(d.cable)];
      if (const auto* sd = std::get_if<SinusoidDrive>(&d.u)) {
        out << YAML::Key << "sinusoid" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "a" << YAML::Value << Num{sd->a_m}
            << YAML::Key << "b" << YAML::Value << Num{sd->b_radps} << YAML::Key << "c" << YAML::Value << Num{sd->c_rad} << YAML::Key << "d"
            << YAML::Value << Num{sd->d_m} << YAML::EndMap;
      } else {
        const auto& t = std::get<TableDrive>(d.u);
        out << YAML::Key << "table" << YAML::Value << YAML::BeginSeq;
        for (std::size_t i = 0; i < t.t_s.size(); ++i) out << YAML::Flow << nums({t.t_s[i], t.u_m[i]});
        out << YAML::EndSeq;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
}

// winches (none: nothing)
static void emit_winches(YAML::Emitter& out, const Model& m) {
  if (!m.winches.empty()) {
    out << YAML::Key << "winches" << YAML::Value << YAML::BeginSeq;
    for (const auto& w : m.winches) {
      out << YAML::BeginMap << YAML::Key << "cable" << YAML::Value << m.cable_ids[static_cast<std::size_t>(w.cable)];
      out << YAML::Key << "spool_radius" << YAML::Value << Num{w.spool_radius_m} << YAML::Key << "gear_ratio" << YAML::Value
          << Num{w.gear_ratio};
      out << YAML::Key << "stall_torque" << YAML::Value << Num{w.stall_torque_Nm} << YAML::Key << "no_load_speed" << YAML::Value
          << Num{w.no_load_speed_radps};
      out << YAML::Key << "rotor_inertia" << YAML::Value << Num{w.rotor_inertia_kgm2};
      out << YAML::Key << "coulomb_friction" << YAML::Value << Num{w.coulomb_friction_Nm} << YAML::Key << "viscous_friction" << YAML::Value
          << Num{w.viscous_friction_Nmsprad} << YAML::Key << "friction_speed" << YAML::Value << Num{w.friction_speed_radps};
      if (!w.backdrivable) out << YAML::Key << "backdrivable" << YAML::Value << false;
      out << YAML::Key << "control" << YAML::Value << to_string(w.control);
      out << YAML::Key << "kp" << YAML::Value << Num{w.kp_per_m} << YAML::Key << "ki" << YAML::Value << Num{w.ki_per_ms} << YAML::Key
          << "kd" << YAML::Value << Num{w.kd_s_per_m} << YAML::Key << "command_limit" << YAML::Value << Num{w.command_limit};
      if (std::isfinite(w.rate_limit_mps)) out << YAML::Key << "rate_limit" << YAML::Value << Num{w.rate_limit_mps};
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
}

// force actuators (none: nothing); a range only when limited
static void emit_force_actuators(YAML::Emitter& out, const Model& m) {
  if (m.force_actuators.empty()) return;
  out << YAML::Key << "actuators" << YAML::Value << YAML::BeginSeq;
  for (int k = 0; k < m.nactuator(); ++k) {
    const ForceActuator& a = m.force_actuators[static_cast<std::size_t>(k)];
    out << YAML::BeginMap;
    if (!m.actuator_ids.empty()) out << YAML::Key << "name" << YAML::Value << m.actuator_ids[static_cast<std::size_t>(k)];
    out << YAML::Key << "cable" << YAML::Value << m.cable_ids[static_cast<std::size_t>(a.cable)];
    out << YAML::Key << "gear" << YAML::Value << Num{a.gear};
    out << YAML::Key << "gain" << YAML::Value << YAML::Flow << nums({a.gain[0], a.gain[1], a.gain[2]});
    out << YAML::Key << "bias" << YAML::Value << YAML::Flow << nums({a.bias[0], a.bias[1], a.bias[2]});
    out << YAML::Key << "ctrl" << YAML::Value << Num{a.ctrl};
    if (a.ctrl_limited) out << YAML::Key << "ctrl_range" << YAML::Value << YAML::Flow << nums({a.ctrl_min, a.ctrl_max});
    if (a.force_limited) out << YAML::Key << "force_range" << YAML::Value << YAML::Flow << nums({a.force_min_N, a.force_max_N});
    if (a.dynamics != ForceActuator::Dynamics::kNone) {
      out << YAML::Key << "dynamics" << YAML::Value << to_string(a.dynamics);
      if (a.dynamics == ForceActuator::Dynamics::kFilter) out << YAML::Key << "time_constant" << YAML::Value << Num{a.time_constant_s};
      out << YAML::Key << "act" << YAML::Value << Num{m.initial_state.x[m.activation_offset(k)]};
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// ground (none: nothing)
static void emit_ground(YAML::Emitter& out, const Model& m) {
  if (m.ground.type != Ground::Type::kNone) {
    const Ground& g = m.ground;
    out << YAML::Key << "ground" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << to_string(g.type);
    out << YAML::Key << "height" << YAML::Value << Num{g.height_m} << YAML::Key << "friction" << YAML::Value << Num{g.friction};
    if (g.friction_law != Ground::FrictionLaw::kCoulomb) out << YAML::Key << "friction_law" << YAML::Value << to_string(g.friction_law);
    out << YAML::Key << "restitution" << YAML::Value << Num{g.restitution} << YAML::Key << "max_penetration" << YAML::Value
        << Num{g.max_penetration_m} << YAML::Key << "baumgarte" << YAML::Value << Num{g.baumgarte};
    out << YAML::Key << "stiffness" << YAML::Value << Num{g.stiffness_Npm} << YAML::Key << "damping" << YAML::Value << Num{g.damping_Nspm}
        << YAML::Key << "slip_velocity" << YAML::Value << Num{g.slip_velocity_mps};
    out << YAML::EndMap;
  }
}

std::string to_yaml(const Model& m, const SimulationOptions* sim) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "tendyn" << YAML::Value << "tensegrity";
  out << YAML::Key << "name" << YAML::Value << m.name;
  out << YAML::Key << "gravity" << YAML::Value << YAML::Flow << nums({m.gravity_W.x(), m.gravity_W.y(), m.gravity_W.z()});
  out << YAML::Key << "damping_law" << YAML::Value << to_string(m.damping_law);
  if (m.cable_force_sign != CableForceSign::kClampTension)
    out << YAML::Key << "cable_force_sign" << YAML::Value << to_string(m.cable_force_sign);
  Data d = make_data(m);
  forward_kinematics(m, m.initial_state, d);
  emit_nodes(out, m, d);
  emit_rods(out, m);
  emit_cables(out, m);
  emit_drives(out, m);
  emit_winches(out, m);
  emit_force_actuators(out, m);
  emit_ground(out, m);
  if (sim) {
    out << YAML::Key << "simulation" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "duration" << YAML::Value << Num{sim->duration_s} << YAML::Key << "dt" << YAML::Value << Num{sim->dt_s};
    out << YAML::Key << "integrator" << YAML::Value << to_string(sim->integrator);
    out << YAML::Key << "output_interval" << YAML::Value << Num{sim->output_interval_s};
    out << YAML::Key << "strain_limit" << YAML::Value << Num{sim->strain_limit};
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

ModelFile default_model() {
  PrismParams p;  // document 000's parameters; radius and pivot: see docs/VALIDATION.md
  p.damping_Nspm = 5.0;
  p.damping_law = DampingLaw::kRelativeVelocity;
  ModelFile f;
  f.model = make_prism(p);
  f.model.name = "prism3-doc000";
  f.simulation.duration_s = 10.0;
  f.simulation.dt_s = 1e-3;
  f.simulation.output_interval_s = 0.01;
  return f;
}

}  // namespace tendyn::tensegrity
