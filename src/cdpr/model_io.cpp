// CDPR model files (format: include/tendyn/cdpr/model_io.hpp and docs/CDPR.md).
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>

#include "io/yaml_util.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <limits>

namespace tendyn::cdpr {

namespace {

ModelFile parse_node(const io::YamlNode& root) {
  root.require_map();
  root.require_keys({"kind", "name", "motion", "description", "source", "tension", "platform", "gravity", "pose", "cables"});
  const std::string kind = root.at("kind").as_string();
  if (kind != "cdpr") root.at("kind").fail("expected 'cdpr' (got '" + kind + "')");
  ModelFile mf;
  Model& m = mf.model;
  m.name = root.get_string("name", "cdpr");
  const std::string motion = root.get_string("motion", "spatial");
  try {
    m.motion = motion_from_string(motion);
  } catch (const Error& e) {
    root.at("motion").fail(e.what());
  }
  if (m.motion == Motion::kPlanar) m.gravity_W = Eigen::Vector3d(0.0, -9.81, 0.0);
  const int dim = m.motion == Motion::kSpatial ? 3 : 2;
  mf.source = root.get_string("source", "");
  if (auto t = root.get("tension")) {
    t->require_keys({"min", "max"});
    m.f_min_N = t->get_double("min", 0.0);
    if (m.f_min_N < 0.0) t->at("min").fail("must be >= 0 (got " + format_number(m.f_min_N, 6) + ")");
    if (t->has("max")) {
      m.f_max_N = t->at("max").as_double();
      if (!(m.f_max_N > m.f_min_N)) t->at("max").fail("must be > min (got " + format_number(m.f_max_N, 6) + ")");
    }
  }
  if (auto p = root.get("platform")) {
    p->require_keys({"mass", "com"});
    m.platform_mass_kg = p->get_double("mass", 0.0);
    if (auto c = p->get("com")) m.p_PC.head(dim) = c->as_vector(dim);
    if (m.platform_mass_kg < 0.0) p->at("mass").fail("must be >= 0");
  }
  if (auto g = root.get("gravity")) {
    const Eigen::VectorXd gv = g->as_vector(dim);
    m.gravity_W.setZero();
    m.gravity_W.head(dim) = gv;
  }
  const io::YamlNode cables = root.at("cables");
  cables.require_sequence();
  const int n = static_cast<int>(cables.size());
  if (n < 1) cables.fail("needs at least one cable");
  if (n > 64) cables.fail("at most 64 cables are supported");
  m.p_WA.setZero(3, n);
  m.p_PB.setZero(3, n);
  for (int i = 0; i < n; ++i) {
    const io::YamlNode c = cables[static_cast<std::size_t>(i)];
    c.require_keys({"name", "group", "anchor", "attachment"});
    m.cable_names.push_back(c.get_string("name", "c" + std::to_string(i + 1)));
    m.cable_groups.push_back(c.get_string("group", ""));
    m.p_WA.col(i).head(dim) = c.at("anchor").as_vector(dim);
    m.p_PB.col(i).head(dim) = c.at("attachment").as_vector(dim);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) {
      if (m.cable_names[i] == m.cable_names[j])
        cables[static_cast<std::size_t>(i)].at("name").fail("duplicate cable name '" + m.cable_names[i] + "'");
      if ((m.p_WA.col(i) - m.p_WA.col(j)).norm() < 1e-9)
        cables[static_cast<std::size_t>(i)].at("anchor").fail("coincides with the anchor of cable '" + m.cable_names[j] + "'");
    }
  if (auto p = root.get("pose")) {
    mf.default_pose = p->as_vector(m.motion == Motion::kSpatial ? 6 : 3);
  }
  try {
    validate(m);
  } catch (const Error& e) {
    root.fail(e.what());
  }
  return mf;
}

}  // namespace

ModelFile load_model(const std::string& file) { return parse_node(io::YamlNode::load_file(file)); }

ModelFile parse_model(const std::string& text, const std::string& name) { return parse_node(io::YamlNode::load_string(text, name)); }

namespace {

std::string shortest(double v) {  // the shortest text that reads back to v (std::to_chars)
  if (v == 0.0) return "0";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string yaml_list(const Eigen::Vector3d& v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + shortest(v[i]);
  return s + "]";
}

}  // namespace

std::string to_yaml(const ModelFile& file) {
  const Model& m = file.model;
  const int n = m.motion == Motion::kSpatial ? 3 : 2;
  const auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(); };  // a YAML double-quoted scalar
  std::string y = "kind: cdpr\nname: " + quoted(m.name) + "\nmotion: " + to_string(m.motion) + "\n";
  if (!file.source.empty()) y += "source: " + quoted(file.source) + "\n";
  y += "tension: {min: " + shortest(m.f_min_N) + (std::isfinite(m.f_max_N) ? ", max: " + shortest(m.f_max_N) : std::string()) + "}\n";
  y += "platform: {mass: " + shortest(m.platform_mass_kg) + ", com: " + yaml_list(m.p_PC, n) + "}\n";
  y += "gravity: " + yaml_list(m.gravity_W, n) + "\n";
  if (file.default_pose.size() > 0) {
    y += "pose: [";
    for (Eigen::Index i = 0; i < file.default_pose.size(); ++i) y += (i ? ", " : "") + shortest(file.default_pose[i]);
    y += "]\n";
  }
  y += "cables:\n";
  for (int i = 0; i < m.ncable(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    y += "  - {name: " + quoted(m.cable_names[k]);
    if (!m.cable_groups[k].empty()) y += ", group: " + quoted(m.cable_groups[k]);
    y += ", anchor: " + yaml_list(m.p_WA.col(i), n) + ", attachment: " + yaml_list(m.p_PB.col(i), n) + "}\n";
  }
  return y;
}

}  // namespace tendyn::cdpr
