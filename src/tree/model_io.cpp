#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/markup.hpp>
#include <tendyn/tree/model_io.hpp>

#include "io/yaml_util.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "io/xml_lite.hpp"

namespace tendyn::tree {
namespace xml = io::xml;

namespace {

Eigen::Matrix3d inertia_from_6(double ixx, double iyy, double izz, double ixy, double ixz, double iyz) {
  Eigen::Matrix3d I;
  I << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
  return I;
}

// URDF files: the size is checked before reading (xml::kMaxBytes), a directory is named as such.
std::string read_file(const std::string& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw Error(file + ": is a directory, not a model file");
  const auto size = std::filesystem::file_size(file, ec);
  if (!ec && size > xml::kMaxBytes)
    throw Error(file + ": " + std::to_string(size) + " bytes, larger than the limit of " + std::to_string(xml::kMaxBytes) +
                " bytes for a URDF file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------- YAML
Model model_from_yaml(const io::YamlNode& root, BaseMode mode) {
  root.require_map();
  root.require_keys({"name", "gravity", "links", "reachability", "description"});
  ModelBuilder b(root.get_string("name", "tree"));
  if (auto g = root.get("gravity")) b.set_gravity(g->as_vector(3));
  const io::YamlNode links = root.at("links");
  links.require_sequence();
  if (links.size() == 0) links.fail("needs at least one link");
  if (links.size() > static_cast<std::size_t>(kMaxLinks))
    links.fail(std::to_string(links.size()) + " links, more than the limit of " + std::to_string(kMaxLinks));
  for (std::size_t k = 0; k < links.size(); ++k) {
    const io::YamlNode ln = links[k];
    ln.require_map();
    ln.require_keys({"name", "parent", "joint", "mass", "com", "inertia"});
    Link l;
    l.name = ln.at("name").as_string();
    l.mass_kg = ln.get_double("mass", 0.0);
    if (l.mass_kg < 0.0) ln.at("mass").fail("must be >= 0 (got " + format_number(l.mass_kg, 6) + ")");
    if (auto c = ln.get("com")) l.p_LC_m = c->as_vector(3);
    if (auto in = ln.get("inertia")) {
      in->require_map();
      in->require_keys({"ixx", "iyy", "izz", "ixy", "ixz", "iyz"});
      l.inertia_C_kgm2 = inertia_from_6(in->at("ixx").as_double(), in->at("iyy").as_double(), in->at("izz").as_double(),
                                        in->get_double("ixy", 0.0), in->get_double("ixz", 0.0), in->get_double("iyz", 0.0));
    }
    const std::string parent = ln.get_string("parent", "world");
    Joint j;
    Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    std::string type = "fixed";
    if (auto jn = ln.get("joint")) {
      jn->require_map();
      jn->require_keys({"name", "type", "axis", "xyz", "rpy"});
      j.name = jn->get_string("name", "");
      type = jn->at("type").as_string();
      if (auto a = jn->get("axis")) {
        const Eigen::Vector3d ax = a->as_vector(3);
        if (!(ax.norm() > 1e-12)) a->fail("axis must be non-zero");
        j.axis = ax.normalized();
      }
      if (auto x = jn->get("xyz")) p = x->as_vector(3);
      if (auto r = jn->get("rpy")) R = rpy_to_matrix(r->as_vector(3));
      j.R_PJ = R;
      j.p_PJ_m = p;
    }
    if (type == "floating6") {
      if (parent != "world" && !parent.empty()) ln.at("joint").fail("floating6 joints must attach to the world");
      b.add_floating6(l, parent, R, p);
      continue;
    }
    try {
      j.type = joint_type_from_string(type);
    } catch (const Error&) {
      ln.at("joint").at("type").fail("unknown joint type '" + type + "' (valid: " + enum_valid_names(enum_names(JointType{})) +
                                     ", floating6)");
    }
    b.add_link(l, parent, j);
  }
  Model m;
  try {
    m = b.build();
  } catch (const Error& e) {
    throw Error(root.file() + ": " + e.what());
  }
  if (auto dn = root.get("reachability")) {
    const Eigen::MatrixXd Dd = dn->as_matrix();
    // checked before the cast: a double outside int's range cast to int is undefined behaviour
    if (!(Dd.array() == 0.0 || Dd.array() == 1.0).all()) dn->fail("entries must be 0 or 1");
    const Eigen::MatrixXi D = Dd.cast<int>();
    try {
      (void)parents_from_reachability(D);
    } catch (const Error& e) {
      dn->fail(e.what());
    }
    if (D.rows() != m.reachability.rows() || D != m.reachability)
      dn->fail(
          "does not match the tree given by the links' parents (links numbered depth-first, "
          "floating6 expanded to 6 links)");
  }
  return convert_base(m, mode);
}

// ---------------------------------------------------------------- URDF
struct UrdfCtx {
  std::string file;
  [[noreturn]] void fail(const xml::Element& e, const std::string& msg) const { throw Error(where(e) + ": <" + e.name + ">: " + msg); }
  std::string where(const xml::Element& e) const { return file + ":" + std::to_string(e.line) + ":" + std::to_string(e.col); }
  std::string req(const xml::Element& e, const std::string& key) const {
    auto v = e.attr(key);
    if (!v) fail(e, "missing attribute '" + key + "'");
    return *v;
  }
  double number(const xml::Element& e, const std::string& key, const std::string& text) const {
    std::istringstream is(text);
    double x = 0.0;
    is >> x;
    std::string rest;
    if (is.fail() || (is >> rest) || !std::isfinite(x)) fail(e, "attribute '" + key + "' is not a finite number: '" + text + "'");
    return x;
  }
  double number(const xml::Element& e, const std::string& key) const { return number(e, key, req(e, key)); }
  Eigen::Vector3d vec3(const xml::Element& e, const std::string& key, const Eigen::Vector3d& def) const {
    auto v = e.attr(key);
    if (!v) return def;
    std::istringstream is(*v);
    Eigen::Vector3d r;
    for (int k = 0; k < 3; ++k) {
      std::string tok;
      if (!(is >> tok)) fail(e, "attribute '" + key + "' needs 3 numbers: '" + *v + "'");
      r[k] = number(e, key, tok);
    }
    std::string extra;
    if (is >> extra) fail(e, "attribute '" + key + "' needs 3 numbers: '" + *v + "'");
    return r;
  }
  void origin(const xml::Element& parent, Eigen::Matrix3d& R, Eigen::Vector3d& p) const {
    R.setIdentity();
    p.setZero();
    if (const xml::Element* o = parent.child("origin")) {
      p = vec3(*o, "xyz", Eigen::Vector3d::Zero());
      R = rpy_to_matrix(vec3(*o, "rpy", Eigen::Vector3d::Zero()));
    }
  }
};

Model model_from_urdf(const std::string& text, const std::string& file, BaseMode mode) {
  UrdfCtx cx{file};
  io::require_utf8(text, file);  // names reach JSON outputs, which must be UTF-8
  const xml::Element robot = xml::parse(text, file);
  if (robot.name != "robot") cx.fail(robot, "root element must be <robot>");
  std::map<std::string, Link> links;
  std::map<std::string, const xml::Element*> link_elem;
  std::vector<std::string> link_order;
  for (const auto& e : robot.children) {
    if (e.name != "link") continue;
    if (link_order.size() >= static_cast<std::size_t>(kMaxLinks))
      cx.fail(e, "more than the limit of " + std::to_string(kMaxLinks) + " links");
    Link l;
    l.name = cx.req(e, "name");
    if (links.count(l.name)) cx.fail(e, "duplicate link '" + l.name + "'");
    if (const xml::Element* in = e.child("inertial")) {
      Eigen::Matrix3d R;
      Eigen::Vector3d p;
      cx.origin(*in, R, p);
      const xml::Element* mass = in->child("mass");
      if (!mass) cx.fail(*in, "missing <mass>");
      l.mass_kg = cx.number(*mass, "value");
      if (l.mass_kg < 0.0) cx.fail(*mass, "mass must be >= 0");
      const xml::Element* ie = in->child("inertia");
      if (!ie) cx.fail(*in, "missing <inertia>");
      const Eigen::Matrix3d I = inertia_from_6(cx.number(*ie, "ixx"), cx.number(*ie, "iyy"), cx.number(*ie, "izz"), cx.number(*ie, "ixy"),
                                               cx.number(*ie, "ixz"), cx.number(*ie, "iyz"));
      l.p_LC_m = p;
      l.inertia_C_kgm2 = R * I * R.transpose();
    }
    links[l.name] = l;
    link_elem[l.name] = &e;
    link_order.push_back(l.name);
  }
  if (links.empty()) cx.fail(robot, "no <link>");
  struct J {
    Joint joint;
    std::string parent, child;
    const xml::Element* elem;
  };
  std::vector<J> joints;
  std::map<std::string, std::string> child_of;  // child link -> joint name
  for (const auto& e : robot.children) {
    if (e.name == "link" || e.name == "material" || e.name == "transmission" || e.name == "gazebo") continue;
    if (e.name != "joint") cx.fail(e, "unsupported element <" + e.name + "> in <robot>");
    J j;
    j.elem = &e;
    j.joint.name = cx.req(e, "name");
    const std::string type = cx.req(e, "type");
    if (type == "planar") cx.fail(e, "joint '" + j.joint.name + "': joint type 'planar' is not supported");
    // "free" is tendyn's name for URDF's "floating", not a URDF type
    const std::string unknown =
        "joint '" + j.joint.name + "': unknown joint type '" + type + "' (valid: fixed, revolute, continuous, prismatic, floating)";
    if (type == "free") cx.fail(e, unknown);
    try {
      j.joint.type = joint_type_from_string(type);
    } catch (const Error&) {
      cx.fail(e, unknown);
    }
    if (e.child("mimic")) cx.fail(*e.child("mimic"), "joint '" + j.joint.name + "': <mimic> (a closed-loop coupling) is not supported");
    const xml::Element* pe = e.child("parent");
    const xml::Element* ce = e.child("child");
    if (!pe) cx.fail(e, "joint '" + j.joint.name + "': missing <parent>");
    if (!ce) cx.fail(e, "joint '" + j.joint.name + "': missing <child>");
    j.parent = cx.req(*pe, "link");
    j.child = cx.req(*ce, "link");
    if (!links.count(j.parent)) cx.fail(*pe, "joint '" + j.joint.name + "': unknown link '" + j.parent + "'");
    if (!links.count(j.child)) cx.fail(*ce, "joint '" + j.joint.name + "': unknown link '" + j.child + "'");
    if (auto it = child_of.find(j.child); it != child_of.end())
      cx.fail(e, "closed kinematic loop: link '" + j.child + "' is the child of joints '" + it->second + "' and '" + j.joint.name +
                     "' (only trees are supported)");
    child_of[j.child] = j.joint.name;
    cx.origin(e, j.joint.R_PJ, j.joint.p_PJ_m);
    if (j.joint.type == JointType::kRevolute || j.joint.type == JointType::kPrismatic) {
      Eigen::Vector3d ax = Eigen::Vector3d::UnitX();  // URDF default axis
      if (const xml::Element* a = e.child("axis")) ax = cx.vec3(*a, "xyz", ax);
      if (!(ax.norm() > 1e-12)) cx.fail(e, "joint '" + j.joint.name + "': zero axis");
      j.joint.axis = ax.normalized();
    }
    joints.push_back(j);
  }
  std::vector<std::string> roots;
  for (const auto& n : link_order)
    if (!child_of.count(n)) roots.push_back(n);
  if (roots.empty()) cx.fail(robot, "closed kinematic loop: every link is the child of a joint (no root link)");
  if (roots.size() > 1)
    cx.fail(*link_elem[roots[1]], "link '" + roots[1] + "' is not connected to root link '" + roots[0] + "' (URDF needs one tree)");
  const std::string root = roots[0];
  ModelBuilder b(robot.attr("name").value_or("urdf"));
  const bool world_root = root == "world";
  if (world_root && links[root].mass_kg > 0.0)
    cx.fail(*link_elem[root], "link 'world' must be massless (it stands for the inertial frame)");
  if (!world_root) {
    Joint fixed;
    fixed.name = root + "_to_world";
    b.add_link(links[root], "", fixed);
  }
  for (const auto& j : joints) {
    if (j.joint.type == JointType::kFree && !(j.parent == root && world_root))
      cx.fail(*j.elem, "joint '" + j.joint.name + "': a floating joint must connect link 'world' to the base");
    b.add_link(links[j.child], (world_root && j.parent == root) ? std::string() : j.parent, j.joint);
  }
  Model m;
  try {
    m = b.build();
  } catch (const Error& e) {
    throw Error(file + ": " + e.what());
  }
  return convert_base(m, mode);
}

std::string fmt(double x) {
  std::ostringstream os;
  os << std::setprecision(17) << x;
  return os.str();
}
std::string fmt3(const Eigen::Vector3d& v) { return fmt(v.x()) + " " + fmt(v.y()) + " " + fmt(v.z()); }
Eigen::Vector3d matrix_to_rpy(const Eigen::Matrix3d& R) {
  // R = Rz(y) Ry(p) Rx(r).
  const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  double roll, yaw;
  if (std::abs(R(2, 0)) < 1.0 - 1e-12) {
    roll = std::atan2(R(2, 1), R(2, 2));
    yaw = std::atan2(R(1, 0), R(0, 0));
  } else {
    roll = 0.0;
    yaw = std::atan2(-R(0, 1), R(1, 1));
  }
  return {roll, pitch, yaw};
}

}  // namespace

Model model_from_yaml_string(const std::string& text, const std::string& name, BaseMode mode) {
  return model_from_yaml(io::YamlNode::load_string(text, name), mode);
}
Model load_model_yaml(const std::string& file, BaseMode mode) { return model_from_yaml(io::YamlNode::load_file(file), mode); }
Model urdf_from_string(const std::string& text, const std::string& name, BaseMode mode) { return model_from_urdf(text, name, mode); }
Model load_urdf(const std::string& file, BaseMode mode) { return model_from_urdf(read_file(file), file, mode); }

Model load_model(const std::string& path, BaseMode mode) {
  auto ends = [&](const char* s) {
    const std::string e(s);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".urdf") || ends(".xml") || ends(".URDF")) return load_urdf(path, mode);
  return load_model_yaml(path, mode);
}

std::string to_urdf(const Model& in) {
  const Model m = convert_base(in, BaseMode::kFree);
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<!-- written by tendyn (tree::to_urdf) -->\n<robot name=\"" << io::escape_markup(m.name) << "\">\n";
  bool need_world = false;
  for (int i = 0; i < m.nlinks(); ++i)
    if (m.parent[i] < 0 && (m.joints[i].type != JointType::kFixed || !m.joints[i].p_PJ_m.isZero() || !m.joints[i].R_PJ.isIdentity()))
      need_world = true;
  int roots = 0;
  for (int i = 0; i < m.nlinks(); ++i) roots += m.parent[i] < 0;
  if (roots > 1) need_world = true;
  if (need_world) os << "  <link name=\"world\"/>\n";
  for (const Link& l : m.links) {
    os << "  <link name=\"" << io::escape_markup(l.name) << "\">\n    <inertial>\n      <origin xyz=\"" << fmt3(l.p_LC_m)
       << "\" rpy=\"0 0 0\"/>\n      <mass value=\"" << fmt(l.mass_kg) << "\"/>\n      <inertia ixx=\"" << fmt(l.inertia_C_kgm2(0, 0))
       << "\" iyy=\"" << fmt(l.inertia_C_kgm2(1, 1)) << "\" izz=\"" << fmt(l.inertia_C_kgm2(2, 2)) << "\" ixy=\""
       << fmt(l.inertia_C_kgm2(0, 1)) << "\" ixz=\"" << fmt(l.inertia_C_kgm2(0, 2)) << "\" iyz=\"" << fmt(l.inertia_C_kgm2(1, 2))
       << "\"/>\n    </inertial>\n  </link>\n";
  }
  for (int i = 0; i < m.nlinks(); ++i) {
    const Joint& j = m.joints[i];
    if (m.parent[i] < 0 && !need_world) continue;
    const char* type = j.type == JointType::kFree ? "floating" : to_string(j.type);
    os << "  <joint name=\"" << io::escape_markup(j.name) << "\" type=\"" << type << "\">\n    <parent link=\""
       << io::escape_markup(m.parent[i] >= 0 ? m.links[m.parent[i]].name : std::string("world")) << "\"/>\n    <child link=\""
       << io::escape_markup(m.links[i].name) << "\"/>\n    <origin xyz=\"" << fmt3(j.p_PJ_m) << "\" rpy=\"" << fmt3(matrix_to_rpy(j.R_PJ))
       << "\"/>\n";
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic)
      os << "    <axis xyz=\"" << fmt3(j.axis) << "\"/>\n    <limit effort=\"1000\" velocity=\"100\" lower=\"-10\" upper=\"10\"/>\n";
    os << "  </joint>\n";
  }
  os << "</robot>\n";
  return os.str();
}

}  // namespace tendyn::tree
