// MJCF import (docs/MODEL_FORMAT.md, "MJCF import"). Mass and inertia of geoms follow MuJoCo's
// compiler as documented in its XML reference (geom `size` semantics per type, density 1000 by
// default, `mass` overriding density, `fromto`): solid sphere, cylinder, box, ellipsoid, and a
// capsule as a cylinder plus two hemispheres whose centres of mass sit 3r/8 beyond the cylinder's
// faces (standard rigid-body formulas; checked against MuJoCo 2.2.2 in tests/peers).
#include <tendyn/core/format.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/mass_parts.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "io/xml_lite.hpp"

namespace tendyn::tensegrity {

namespace {

namespace xml = tendyn::io::xml;
namespace fs = std::filesystem;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr int kMaxIncludeDepth = 32;

std::string g(double v) { return format_number(v, 6); }

/// An element after include expansion, with the file it came from.
struct Src {
  const xml::Element* e = nullptr;
  int file = 0;
  std::vector<Src> kids;
  [[nodiscard]] const std::string& name() const { return e->name; }
};

struct Pose {
  Vector3d p = Vector3d::Zero();
  Quaterniond q = Quaterniond::Identity();
  [[nodiscard]] Pose operator*(const Pose& b) const { return {p + q * b.p, (q * b.q).normalized()}; }
};

/// Minimal rotation of +z onto the unit vector v (180 deg about x for v = -z).
Quaterniond z_to(const Vector3d& v) {
  const Vector3d z(0, 0, 1);
  const Vector3d a = z.cross(v);
  const double s = a.norm(), c = z.dot(v);
  if (s < 1e-15) return c > 0 ? Quaterniond::Identity() : Quaterniond(0, 1, 0, 0);
  return Quaterniond(Eigen::AngleAxisd(std::atan2(s, c), a / s));
}

struct DefClass {
  std::string parent;                                               // "" for the root class "main"
  std::map<std::string, std::map<std::string, std::string>> attrs;  // element -> attr -> value
};

struct Compiler {
  bool degree = true;
  bool global = false;
  enum { kFalse, kTrue, kAuto } fromgeom = kAuto;
  std::string eulerseq = "xyz";
  bool autolimits = true;
  int group_lo = 0, group_hi = 5;
};

struct Segment {  // capsule or cylinder axis
  Vector3d a, b;  // world, end 0 and end 1
  double radius = 0.0;
  bool capsule = false;
  bool collides = true;
  std::string label;  // "<body>.<geom name or index>"
};
struct Ball {
  Vector3d c;
  double radius;
  bool collides;
  std::string label;
};
struct SiteRec {
  std::string name;
  Vector3d p;  // world
  const Src* src;
};
struct RodRec {
  std::string name;
  const Src* src;
  Pose frame;                   // body frame at the compile pose (world)
  std::vector<MassPart> parts;  // world frame at the compile pose
  std::vector<Segment> segments;
  std::vector<Ball> balls;
  std::vector<SiteRec> sites;
  int welded = 0;
  int geoms = 0;
};

class Importer {
 public:
  Importer(const MjcfImportOptions& o, MjcfImportReport& r) : opt_(o), rep_(r) {}

  ModelFile run(const std::string& text, const std::string& name) {
    files_.push_back(name);
    docs_.push_back(std::make_unique<xml::Element>(xml::parse(text, name)));
    const xml::Element& root = *docs_.back();
    Src top{&root, 0, {}};
    if (root.name != "mujoco") fail(top, "the root element must be <mujoco> (an MJCF file)");
    std::vector<std::string> stack{canonical(name)};
    add_children(top, root, 0, stack, 0);
    return build(top);
  }

 private:
  const MjcfImportOptions& opt_;
  MjcfImportReport& rep_;
  std::vector<std::string> files_;
  std::vector<std::unique_ptr<xml::Element>> docs_;
  std::map<std::string, DefClass> classes_;
  Compiler cc_;

  // ------------------------------------------------------------------ messages
  [[nodiscard]] std::string where(const Src& s) const {
    return files_[static_cast<std::size_t>(s.file)] + ":" + std::to_string(s.e->line) + ":" + std::to_string(s.e->col);
  }
  [[nodiscard]] std::string label(const Src& s) const {
    std::string l = "<" + s.name() + ">";
    if (auto n = s.e->attr("name")) l = "<" + s.name() + " name=\"" + *n + "\">";
    return l;
  }
  [[noreturn]] void fail(const Src& s, const std::string& msg) const { throw Error(where(s) + ": " + label(s) + ": " + msg); }
  void skip(const Src& s, const std::string& why) { rep_.skipped.push_back(where(s) + ": " + label(s) + " skipped: " + why); }

  // ------------------------------------------------------------------ includes
  static std::string canonical(const std::string& p) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(fs::path(p), ec);
    return ec ? p : c.string();
  }
  void add_children(Src& parent, const xml::Element& e, int file, std::vector<std::string>& stack, int depth) {
    for (const auto& c : e.children) {
      if (c.name != "include") {
        Src s{&c, file, {}};
        add_children(s, c, file, stack, depth);
        parent.kids.push_back(std::move(s));
        continue;
      }
      const Src inc{&c, file, {}};
      for (const auto& [k, v] : c.attrs)
        if (k != "file") fail(inc, "unknown attribute '" + k + "' (valid: file)");
      const auto f = c.attr("file");
      if (!f || f->empty()) fail(inc, "needs a 'file' attribute");
      fs::path p(*f);
      if (p.is_relative()) p = fs::path(files_[static_cast<std::size_t>(file)]).parent_path() / p;
      const std::string canon = canonical(p.string());
      if (std::find(stack.begin(), stack.end(), canon) != stack.end())
        fail(inc, "include cycle: '" + p.string() + "' is already being read");
      if (depth + 1 > kMaxIncludeDepth) fail(inc, "includes nested deeper than " + std::to_string(kMaxIncludeDepth));
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) fail(inc, "included file '" + p.string() + "' does not exist or is not a file");
      std::ifstream in(p, std::ios::binary);
      if (!in) fail(inc, "cannot read included file '" + p.string() + "'");
      std::stringstream ss;
      ss << in.rdbuf();
      files_.push_back(p.string());
      const int nf = static_cast<int>(files_.size()) - 1;
      docs_.push_back(std::make_unique<xml::Element>(xml::parse(ss.str(), p.string())));
      const xml::Element& root = *docs_.back();
      if (root.name != "mujoco") fail(Src{&root, nf, {}}, "an included file must have a <mujoco> root element");
      stack.push_back(canon);
      add_children(parent, root, nf, stack, depth + 1);
      stack.pop_back();
    }
  }

  // ------------------------------------------------------------------ attributes
  /// Checks the element's own attributes against `known`; throws for any other.
  void check_attrs(const Src& s, std::initializer_list<const char*> known) const {
    for (const auto& [k, v] : s.e->attrs) {
      bool ok = false;
      for (const char* n : known) ok = ok || k == n;
      if (!ok) {
        std::string list;
        for (const char* n : known) list += (list.empty() ? "" : ", ") + std::string(n);
        fail(s, "attribute '" + k + "' is not supported (it may change the dynamics; supported: " + list + ")");
      }
    }
  }
  /// The attribute from the element, else from its defaults class chain.
  [[nodiscard]] std::optional<std::string> get(const Src& s, const std::string& cls, const std::string& key) const {
    if (auto v = s.e->attr(key)) return v;
    // tendons take their defaults from <default><tendon>, whatever their kind
    return from_class(cls, s.name() == "spatial" || s.name() == "fixed" ? std::string("tendon") : s.name(), key);
  }
  [[nodiscard]] std::optional<std::string> from_class(std::string cls, const std::string& elem, const std::string& key) const {
    for (int guard = 0; guard < 1000 && !cls.empty(); ++guard) {
      const auto it = classes_.find(cls);
      if (it == classes_.end()) return std::nullopt;
      const auto e = it->second.attrs.find(elem);
      if (e != it->second.attrs.end()) {
        const auto a = e->second.find(key);
        if (a != e->second.end()) return a->second;
      }
      cls = it->second.parent;
    }
    return std::nullopt;
  }
  std::vector<double> numbers(const Src& s, const std::string& key, const std::string& text) const {
    std::vector<double> v;
    const char* p = text.c_str();
    for (;;) {
      while (*p && std::isspace(static_cast<unsigned char>(*p))) ++p;
      if (!*p) break;
      char* end = nullptr;
      const double x = std::strtod(p, &end);
      if (end == p) fail(s, "attribute '" + key + "': '" + text + "' is not a list of numbers");
      if (!std::isfinite(x)) fail(s, "attribute '" + key + "': non-finite number in '" + text + "'");
      v.push_back(x);
      p = end;
    }
    return v;
  }
  std::optional<std::vector<double>> nums(const Src& s, const std::string& cls, const std::string& key, std::size_t min_n,
                                          std::size_t max_n) const {
    const auto t = get(s, cls, key);
    if (!t) return std::nullopt;
    auto v = numbers(s, key, *t);
    if (v.size() < min_n || v.size() > max_n)
      fail(s, "attribute '" + key + "' needs " +
                  (min_n == max_n ? std::to_string(min_n) : std::to_string(min_n) + " to " + std::to_string(max_n)) + " numbers (got " +
                  std::to_string(v.size()) + ")");
    return v;
  }
  std::optional<double> num(const Src& s, const std::string& cls, const std::string& key) const {
    auto v = nums(s, cls, key, 1, 1);
    if (!v) return std::nullopt;
    return (*v)[0];
  }
  std::optional<Vector3d> vec3(const Src& s, const std::string& cls, const std::string& key) const {
    auto v = nums(s, cls, key, 3, 3);
    if (!v) return std::nullopt;
    return Vector3d((*v)[0], (*v)[1], (*v)[2]);
  }
  bool boolean(const Src& s, const std::string& cls, const std::string& key, bool def) const {
    const auto t = get(s, cls, key);
    if (!t) return def;
    if (*t == "true") return true;
    if (*t == "false") return false;
    fail(s, "attribute '" + key + "' must be true or false (got '" + *t + "')");
  }
  std::string keyword(const Src& s, const std::string& cls, const std::string& key, const std::string& def,
                      std::initializer_list<const char*> valid) const {
    const auto t = get(s, cls, key);
    if (!t) return def;
    std::string list;
    for (const char* v : valid) {
      if (*t == v) return *t;
      list += (list.empty() ? "" : ", ") + std::string(v);
    }
    fail(s, "attribute '" + key + "': unknown value '" + *t + "' (valid: " + list + ")");
  }

  /// Orientation from quat / euler / axisangle / xyaxes / zaxis (at most one), element first.
  Quaterniond orientation(const Src& s, const std::string& cls) const {
    static const char* keys[] = {"quat", "euler", "axisangle", "xyaxes", "zaxis"};
    int given = 0;
    for (const char* k : keys) given += s.e->attr(k) ? 1 : 0;
    if (given > 1) fail(s, "more than one of quat, euler, axisangle, xyaxes, zaxis");
    const double unit = cc_.degree ? kPi / 180.0 : 1.0;
    auto pick = [&](const char* k) { return given ? (s.e->attr(k) ? s.e->attr(k) : std::nullopt) : get(s, cls, k); };
    if (auto t = pick("quat")) {
      const auto v = numbers(s, "quat", *t);
      if (v.size() != 4) fail(s, "attribute 'quat' needs 4 numbers");
      Quaterniond q(v[0], v[1], v[2], v[3]);
      if (!(q.norm() > 1e-12)) fail(s, "attribute 'quat' is zero");
      return q.normalized();
    }
    if (auto t = pick("euler")) {
      const auto v = numbers(s, "euler", *t);
      if (v.size() != 3) fail(s, "attribute 'euler' needs 3 numbers");
      Quaterniond q = Quaterniond::Identity();
      for (int i = 0; i < 3; ++i) {
        const char c = cc_.eulerseq[static_cast<std::size_t>(i)];
        const int ax = std::tolower(static_cast<unsigned char>(c)) - 'x';
        const Quaterniond r(Eigen::AngleAxisd(v[static_cast<std::size_t>(i)] * unit, Vector3d::Unit(ax)));
        q = std::islower(static_cast<unsigned char>(c)) ? q * r : r * q;  // lowercase: axes move with the frame
      }
      return q.normalized();
    }
    if (auto t = pick("axisangle")) {
      const auto v = numbers(s, "axisangle", *t);
      if (v.size() != 4) fail(s, "attribute 'axisangle' needs 4 numbers");
      const Vector3d a(v[0], v[1], v[2]);
      if (!(a.norm() > 1e-12)) fail(s, "attribute 'axisangle' has a zero axis");
      return Quaterniond(Eigen::AngleAxisd(v[3] * unit, a.normalized()));
    }
    if (auto t = pick("xyaxes")) {
      const auto v = numbers(s, "xyaxes", *t);
      if (v.size() != 6) fail(s, "attribute 'xyaxes' needs 6 numbers");
      Vector3d x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
      if (!(x.norm() > 1e-12)) fail(s, "attribute 'xyaxes' has a zero x axis");
      x.normalize();
      y -= x * x.dot(y);
      if (!(y.norm() > 1e-12)) fail(s, "attribute 'xyaxes': y is parallel to x");
      y.normalize();
      Matrix3d R;
      R.col(0) = x, R.col(1) = y, R.col(2) = x.cross(y);
      return Quaterniond(R).normalized();
    }
    if (auto t = pick("zaxis")) {
      const auto v = numbers(s, "zaxis", *t);
      if (v.size() != 3) fail(s, "attribute 'zaxis' needs 3 numbers");
      const Vector3d z(v[0], v[1], v[2]);
      if (!(z.norm() > 1e-12)) fail(s, "attribute 'zaxis' is zero");
      return z_to(z.normalized());
    }
    return Quaterniond::Identity();
  }
  /// The element's frame in the world: local frames compose with the parent's, global ones are
  /// read as they stand (compiler coordinate="global").
  Pose frame(const Src& s, const std::string& cls, const Pose& parent) const {
    Pose local{vec3(s, cls, "pos").value_or(Vector3d::Zero()), orientation(s, cls)};
    return cc_.global ? local : parent * local;
  }
  std::string element_class(const Src& s, const std::string& inherited) const {
    if (auto c = s.e->attr("class")) {
      if (!classes_.count(*c)) fail(s, "unknown default class '" + *c + "'");
      return *c;
    }
    return inherited;
  }

  // ------------------------------------------------------------------ top level
  void read_compiler(const Src& s) {
    check_attrs(s, {"angle",         "coordinate",     "inertiafromgeom", "eulerseq",   "autolimits", "inertiagrouprange", "boundmass",
                    "boundinertia",  "balanceinertia", "settotalmass",    "meshdir",    "texturedir", "assetdir",          "strippath",
                    "discardvisual", "convexhull",     "usethread",       "fusestatic", "fitaabb",    "exactmeshinertia",  "lengthrange"});
    cc_.degree = keyword(s, "", "angle", "degree", {"degree", "radian"}) == "degree";
    cc_.global = keyword(s, "", "coordinate", "local", {"local", "global"}) == "global";
    const auto fg = keyword(s, "", "inertiafromgeom", "auto", {"false", "true", "auto"});
    cc_.fromgeom = fg == "true" ? Compiler::kTrue : fg == "false" ? Compiler::kFalse : Compiler::kAuto;
    if (auto e = s.e->attr("eulerseq")) {
      bool ok = e->size() == 3;
      for (char c : *e) ok = ok && std::string("xyzXYZ").find(c) != std::string::npos;
      if (!ok) fail(s, "attribute 'eulerseq' must be 3 letters of x, y, z, X, Y, Z (got '" + *e + "')");
      cc_.eulerseq = *e;
    }
    cc_.autolimits = boolean(s, "", "autolimits", true);
    if (auto r = nums(s, "", "inertiagrouprange", 2, 2)) {
      cc_.group_lo = static_cast<int>((*r)[0]);
      cc_.group_hi = static_cast<int>((*r)[1]);
    }
    for (const char* k : {"boundmass", "boundinertia"})
      if (auto v = num(s, "", k); v && *v != 0.0) fail(s, std::string(k) + " is not supported (it changes the mass properties)");
    if (boolean(s, "", "balanceinertia", false)) fail(s, "balanceinertia=\"true\" is not supported (it changes the inertia)");
    if (auto v = num(s, "", "settotalmass"); v && *v > 0.0) fail(s, "settotalmass is not supported (it rescales the masses)");
    if (cc_.global)
      rep_.mapped.push_back(where(s) + ": coordinate=\"global\" (MuJoCo 2.x): positions and orientations read in the world frame");
  }

  void read_defaults(const Src& s, const std::string& cls, const std::string& parent) {
    check_attrs(s, {"class"});
    if (classes_.count(cls) && cls != "main") fail(s, "default class '" + cls + "' is defined twice");
    DefClass& d = classes_[cls];
    if (cls != "main") d.parent = parent;
    for (const Src& c : s.kids) {
      if (c.name() == "default") {
        const auto n = c.e->attr("class");
        if (!n || n->empty()) fail(c, "a nested default needs a 'class' attribute");
        read_defaults(c, *n, cls);
        continue;
      }
      if (c.e->attr("class")) fail(c, "an element inside <default> takes no 'class' attribute");
      // the attributes are checked where they are used (the same lists as for the elements)
      check_default_attrs(c);
      auto& m = d.attrs[c.name()];
      for (const auto& [k, v] : c.e->attrs) m[k] = v;
    }
  }
  void check_default_attrs(const Src& c) const {
    const std::string& n = c.name();
    if (n == "geom")
      check_geom_attrs(c);
    else if (n == "site")
      check_site_attrs(c);
    else if (n == "joint")
      check_joint_attrs(c);
    else if (n == "tendon")
      check_tendon_attrs(c);
    // actuators, meshes, materials, cameras, lights, pairs, equalities: checked (or refused) where used
  }

  void check_geom_attrs(const Src& s) const {
    check_attrs(s, {"name",     "class",  "type",     "size",         "pos",        "quat",     "euler",       "axisangle", "xyaxes",
                    "zaxis",    "fromto", "mass",     "density",      "friction",   "contype",  "conaffinity", "condim",    "group",
                    "priority", "rgba",   "material", "solref",       "solimp",     "solmix",   "margin",      "gap",       "user",
                    "mesh",     "hfield", "fitscale", "shellinertia", "fluidshape", "fluidcoef"});
  }
  void check_site_attrs(const Src& s) const {
    check_attrs(s, {"name", "class", "type", "size", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "fromto", "group", "rgba",
                    "material", "user"});
  }
  void check_joint_attrs(const Src& s) const {
    check_attrs(s, {"name",
                    "class",
                    "type",
                    "group",
                    "pos",
                    "axis",
                    "limited",
                    "range",
                    "springref",
                    "ref",
                    "damping",
                    "stiffness",
                    "armature",
                    "frictionloss",
                    "margin",
                    "solreflimit",
                    "solimplimit",
                    "solreffriction",
                    "solimpfriction",
                    "user",
                    "springdamper",
                    "actuatorfrclimited",
                    "actuatorfrcrange"});
  }
  void check_tendon_attrs(const Src& s) const {
    check_attrs(s, {"name",
                    "class",
                    "group",
                    "limited",
                    "range",
                    "solreflimit",
                    "solimplimit",
                    "solreffriction",
                    "solimpfriction",
                    "frictionloss",
                    "margin",
                    "stiffness",
                    "damping",
                    "springlength",
                    "width",
                    "rgba",
                    "material",
                    "user",
                    "armature",
                    "actuatorfrclimited",
                    "actuatorfrcrange"});
  }

  // ------------------------------------------------------------------ bodies
  struct Walk {
    std::vector<RodRec> rods;
    std::vector<SiteRec> anchors;
    std::optional<std::pair<const Src*, double>> floor;  // plane element, friction
    double floor_z = 0.0;
    int free_joints_seen = 0;
  };

  bool geom_collides(const Src& s, const std::string& cls) const {
    const double ct = num(s, cls, "contype").value_or(1.0), ca = num(s, cls, "conaffinity").value_or(1.0);
    return ct != 0.0 || ca != 0.0;
  }

  /// Reads a geom of a body: adds its mass part (when `mass_from_geoms`) and its end-cap
  /// geometry to `rod` (null for bodies fixed to the world).
  void read_geom(const Src& s, const std::string& inherited, const Pose& body, RodRec* rod, bool mass_from_geoms,
                 const std::string& body_name, int index, Walk& w, bool contact_on) {
    check_geom_attrs(s);
    const std::string cls = element_class(s, inherited);
    const std::string type =
        keyword(s, cls, "type", "sphere", {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"});
    const std::string gname = s.e->attr("name").value_or("");
    const std::string glabel = body_name + "." + (gname.empty() ? "geom" + std::to_string(index) : gname);
    const bool collides = geom_collides(s, cls);
    if (auto f = get(s, cls, "fluidshape"); f && *f != "none") fail(s, "fluid forces (fluidshape) are not supported");
    if (boolean(s, cls, "shellinertia", false)) fail(s, "shellinertia=\"true\" is not supported");
    const int group = static_cast<int>(num(s, cls, "group").value_or(0.0));
    const bool in_groups = group >= cc_.group_lo && group <= cc_.group_hi;
    const auto mass_attr = num(s, cls, "mass");
    const double density = num(s, cls, "density").value_or(1000.0);
    if (mass_attr && *mass_attr < 0.0) fail(s, "mass must be >= 0 (got " + g(*mass_attr) + " kg)");
    if (density < 0.0) fail(s, "density must be >= 0 (got " + g(density) + " kg/m^3)");
    const bool massless = mass_attr ? *mass_attr == 0.0 : density == 0.0;
    const bool counts = mass_from_geoms && in_groups && !massless;

    if (type == "plane") {
      if (rod) fail(s, "a plane can only be part of the world (MuJoCo: planes are static)");
      const Pose f = frame(s, cls, body);
      if (!collides || !contact_on) {
        skip(s, "plane without contact (contacts disabled or contype = conaffinity = 0)");
        return;
      }
      if ((f.q * Vector3d::UnitZ() - Vector3d::UnitZ()).norm() > 1e-9) fail(s, "only a horizontal floor plane (normal +z) is supported");
      if (w.floor) fail(s, "a second floor plane (the first is at " + where(*w.floor->first) + ")");
      const auto fr = nums(s, cls, "friction", 1, 3);
      w.floor = {&s, fr ? (*fr)[0] : 1.0};
      w.floor_z = f.p.z();
      return;
    }
    if (type == "mesh" || type == "hfield" || type == "sdf") {
      if (counts) fail(s, type + " geoms with mass are not supported (give mass=\"0\" or an explicit <inertial>)");
      if (collides && contact_on) fail(s, type + " geoms that collide are not supported (set contype=\"0\" conaffinity=\"0\")");
      skip(s, type + " geom without mass or contact (visual only)");
      return;
    }
    if (get(s, cls, "mesh")) fail(s, "a " + type + " geom with a 'mesh' attribute (fitted to a mesh) is not supported");

    // frame and size
    Pose f;
    Vector3d size = Vector3d::Zero();
    const auto fromto = nums(s, cls, "fromto", 6, 6);
    const auto sz = nums(s, cls, "size", 1, 3);
    std::size_t need = type == "sphere" ? 1 : (type == "capsule" || type == "cylinder" || fromto) ? (fromto ? 1 : 2) : 3;
    if (!sz || sz->size() < need)
      fail(s, "a " + type + " geom needs " + std::to_string(need) + " size value(s)" + (fromto ? " with fromto" : ""));
    for (std::size_t k = 0; k < need; ++k) {
      const double v = (*sz)[k];
      if (!(v > 0.0)) fail(s, "size values must be > 0 (got " + g(v) + ")");
      size[static_cast<Eigen::Index>(k)] = v;
    }
    Vector3d from_w = Vector3d::Zero(), to_w = Vector3d::Zero();
    if (fromto) {
      // MuJoCo 2.2.2 (checked in tests/peers): the geom's z axis is the minimal rotation of z
      // onto from - to, its half-length half the distance, and a box or ellipsoid gets size[0]
      // in both transverse directions (size[1] is overwritten).
      if (type == "sphere") fail(s, "fromto cannot be used with a sphere");
      Vector3d a((*fromto)[0], (*fromto)[1], (*fromto)[2]), b((*fromto)[3], (*fromto)[4], (*fromto)[5]);
      if (!cc_.global) a = body.p + body.q * a, b = body.p + body.q * b;
      const double len = (b - a).norm();
      if (!(len > 0.0)) fail(s, "fromto has zero length");
      f = Pose{(a + b) / 2, z_to((a - b) / len)};
      from_w = a, to_w = b;
      if (type == "capsule" || type == "cylinder") {
        size[1] = len / 2;
      } else {
        size[1] = size[0];
        size[2] = len / 2;
      }
    } else {
      f = frame(s, cls, body);
    }

    // mass properties about the geom centre in the geom frame
    const PartShape shape = type == "sphere"     ? PartShape::kSphere
                            : type == "capsule"  ? PartShape::kCapsule
                            : type == "cylinder" ? PartShape::kCylinder
                            : type == "box"      ? PartShape::kBox
                                                 : PartShape::kEllipsoid;
    const double r = size[0];
    const double m = mass_attr ? *mass_attr : density * part_volume(shape, size);
    if (!rod) {  // world or a body fixed to it
      if (collides && contact_on)
        fail(
            s,
            "a " + type +
                " geom fixed to the world collides: obstacles other than a floor plane are not supported (set contype=\"0\" conaffinity=\"0\")");
      skip(s, "geom fixed to the world without contact (" + (counts ? "its mass does not move" : std::string("no mass")) + ")");
      return;
    }
    ++rod->geoms;
    if (counts) {
      rod->parts.push_back(make_part(shape, size, m, f.p, f.q.toRotationMatrix()));
    }
    if (type == "capsule" || type == "cylinder") {
      const Vector3d z = f.q * Vector3d::UnitZ();
      if (fromto)  // end 0 at `from`, end 1 at `to`
        rod->segments.push_back({from_w, to_w, r, type == "capsule", collides, glabel});
      else
        rod->segments.push_back({f.p - z * size[1], f.p + z * size[1], r, type == "capsule", collides, glabel});
    } else if (type == "sphere") {
      rod->balls.push_back({f.p, r, collides, glabel});
    }
  }

  void read_inertial(const Src& s, const Pose& body, RodRec* rod) {
    check_attrs(s, {"pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mass", "diaginertia", "fullinertia"});
    if (!s.e->attr("pos")) fail(s, "needs 'pos'");
    const auto m = num(s, "", "mass");
    if (!m) fail(s, "needs 'mass'");
    if (*m < 0.0) fail(s, "mass must be >= 0 (got " + g(*m) + " kg)");
    const Pose f = frame(s, "", body);
    const auto di = nums(s, "", "diaginertia", 3, 3);
    const auto fi = nums(s, "", "fullinertia", 6, 6);
    if (di.has_value() == fi.has_value()) fail(s, "needs exactly one of diaginertia, fullinertia");
    if (fi)
      for (const char* k : {"quat", "euler", "axisangle", "xyaxes", "zaxis"})
        if (s.e->attr(k))
          fail(s, std::string("fullinertia with ") + k + " (MuJoCo refuses two orientations: fullinertia is in the body frame)");
    Matrix3d I;
    if (di) {
      for (double v : *di)
        if (v < 0.0) fail(s, "diaginertia values must be >= 0 (got " + g(v) + ")");
      I = Vector3d((*di)[0], (*di)[1], (*di)[2]).asDiagonal();
    } else {
      const auto& v = *fi;
      I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
      if (Eigen::SelfAdjointEigenSolver<Matrix3d>(I, Eigen::EigenvaluesOnly).eigenvalues().minCoeff() < 0.0)
        fail(s, "fullinertia is not positive semi-definite");
    }
    if (!rod) {
      if (*m > 0.0) skip(s, "inertial of a body fixed to the world (its mass does not move)");
      return;
    }
    const Matrix3d R = f.q.toRotationMatrix();
    if (*m > 0.0) rod->parts.push_back({*m, f.p, R * I * R.transpose()});
  }

  void read_site(const Src& s, const std::string& inherited, const Pose& body, const std::string& body_name, int index,
                 std::vector<SiteRec>& out) {
    check_site_attrs(s);
    const std::string cls = element_class(s, inherited);
    Vector3d p;
    if (auto ft = nums(s, cls, "fromto", 6, 6)) {
      Vector3d a((*ft)[0], (*ft)[1], (*ft)[2]), b((*ft)[3], (*ft)[4], (*ft)[5]);
      p = (a + b) / 2;
      if (!cc_.global) p = body.p + body.q * p;
    } else {
      p = frame(s, cls, body).p;
    }
    out.push_back({s.e->attr("name").value_or(body_name + ".site" + std::to_string(index)), p, &s});
  }

  void read_body(const Src& b, const Pose& parent, const std::string& inherited_cc, RodRec* rod, bool parent_is_world, Walk& w,
                 bool contact_on) {
    check_attrs(b, {"name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "childclass", "mocap", "gravcomp", "user"});
    if (boolean(b, "", "mocap", false)) fail(b, "mocap bodies are not supported");
    if (auto gc = num(b, "", "gravcomp"); gc && *gc != 0.0) fail(b, "gravity compensation (gravcomp) is not supported");
    std::string cc = inherited_cc;
    if (auto c = b.e->attr("childclass")) {
      if (!classes_.count(*c)) fail(b, "unknown default class '" + *c + "' in childclass");
      cc = *c;
    }
    const Pose f = frame(b, "", parent);
    const std::string name = b.e->attr("name").value_or("body" + std::to_string(w.rods.size() + w.anchors.size()));
    // joints
    const Src* free = nullptr;
    for (const Src& c : b.kids) {
      if (c.name() == "freejoint") {
        check_attrs(c, {"name", "group", "align"});
        if (auto a = c.e->attr("align"); a && *a == "true") fail(c, "align=\"true\" (MuJoCo 3) moves the body frame; not supported");
        if (free) fail(c, "a body has at most one free joint");
        free = &c;
      } else if (c.name() == "joint") {
        check_joint_attrs(c);
        const std::string cls = element_class(c, cc);
        const std::string type = keyword(c, cls, "type", "hinge", {"free", "ball", "slide", "hinge"});
        if (type != "free") fail(c, type + " joints are not supported (only free bodies: each one a rod)");
        for (const char* k : {"damping", "stiffness", "armature", "frictionloss"})
          if (auto v = num(c, cls, k); v && *v != 0.0) fail(c, std::string(k) + " on a free joint is not supported");
        if (free) fail(c, "a body has at most one free joint");
        free = &c;
      }
    }
    RodRec* my_rod = rod;
    if (free) {
      if (!parent_is_world) fail(*free, "a free joint is only allowed in a body that is a child of the world");
      w.rods.push_back(RodRec{name, &b, f, {}, {}, {}, {}, 0, 0});
      my_rod = &w.rods.back();
      rep_.mapped.push_back(where(b) + ": body '" + name + "' with a free joint -> rod '" + name + "'");
    } else if (rod) {
      ++rod->welded;
      rep_.mapped.push_back(where(b) + ": body '" + name + "' without joints -> welded part of rod '" + rod->name + "'");
    }
    // mass rule of this body
    const bool has_inertial = std::any_of(b.kids.begin(), b.kids.end(), [](const Src& c) { return c.name() == "inertial"; });
    const bool from_geoms = cc_.fromgeom == Compiler::kTrue || (cc_.fromgeom == Compiler::kAuto && !has_inertial);
    int geom_index = 0, site_index = 0;
    // welded children are read after this body's own elements, so the rod record stays valid
    // (w.rods does not grow below a free body)
    for (const Src& c : b.kids) {
      const std::string& n = c.name();
      if (n == "freejoint" || n == "joint") continue;
      if (n == "geom") {
        read_geom(c, cc, f, my_rod, from_geoms, name, geom_index++, w, contact_on);
      } else if (n == "inertial") {
        if (cc_.fromgeom == Compiler::kTrue) {
          check_attrs(c, {"pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mass", "diaginertia", "fullinertia"});
          skip(c, "inertiafromgeom=\"true\": the geoms give the mass");
        } else {
          read_inertial(c, f, my_rod);
        }
      } else if (n == "site") {
        read_site(c, cc, f, name, site_index++, my_rod ? my_rod->sites : w.anchors);
      } else if (n == "body") {
        continue;
      } else if (n == "camera" || n == "light") {
        skip(c, "visual only");
      } else {
        fail(c, "element <" + n + "> inside a body is not supported");
      }
    }
    // (w.rods has its capacity reserved and only top-level bodies add rods: my_rod stays valid)
    for (const Src& c : b.kids)
      if (c.name() == "body") read_body(c, f, cc, my_rod, false, w, contact_on);
  }

  // ------------------------------------------------------------------ the model
  // The nodes by name (sites, rod ends, end-caps, anchors) and the rods' frames at the file's pose.
  struct Nodes {
    std::map<std::string, int> node_of;
    std::map<std::string, const Src*> node_src;
    std::vector<Pose> rod_frame;
    std::vector<Vector3d> rod_com_B;  // centre of mass in the MuJoCo body frame
  };

  ModelFile build(const Src& top) {
    check_attrs(top, {"model"});
    ModelFile out;
    Model& m = out.model;
    m.name = top.e->attr("model").value_or("mjcf");
    m.damping_law = DampingLaw::kAxial;
    m.gravity_W = Vector3d(0, 0, -9.81);
    // pass 1: compiler and defaults (they apply to the whole file, wherever they stand)
    classes_["main"];
    for (const Src& c : top.kids)
      if (c.name() == "compiler") read_compiler(c);
    for (const Src& c : top.kids)
      if (c.name() == "default") read_defaults(c, "main", "");
    const bool contact_on = read_option(top, out);

    // pass 2: the world
    Walk w;
    w.rods.reserve(1024);
    read_world(top, w, contact_on);

    Nodes N;
    add_bodies(w, contact_on, m, N);
    read_tendons(top, m, N);
    read_actuators(top, m);
    read_initial_state(top, m, N);
    m.f_W_ext_node.assign(static_cast<std::size_t>(m.nnode()), Vector3d::Zero());
    try {
      validate(m);
    } catch (const Error& e) {
      throw Error(files_[0] + ": the imported model is not valid: " + e.what());
    }
    return out;
  }

  // <option>: time step, gravity, integrator, flags; returns whether contacts are on.
  bool read_option(const Src& top, ModelFile& out) {
    Model& m = out.model;
    bool contact_on = true, gravity_on = true;
    out.simulation.dt_s = 0.002;  // MuJoCo's defaults
    out.simulation.integrator = Integrator::kRK4;
    bool has_option = false;
    for (const Src& c : top.kids) {
      if (c.name() != "option") continue;
      has_option = true;
      check_attrs(c, {"timestep",         "gravity",        "integrator",    "wind",           "magnetic",      "density",
                      "viscosity",        "impratio",       "tolerance",     "iterations",     "ls_iterations", "noslip_iterations",
                      "noslip_tolerance", "mpr_iterations", "mpr_tolerance", "ccd_iterations", "ccd_tolerance", "sdf_iterations",
                      "sdf_initpoints",   "cone",           "jacobian",      "solver",         "collision",     "o_margin",
                      "o_solref",         "o_solimp",       "o_friction",    "apirate",        "ls_tolerance"});
      if (auto dt = num(c, "", "timestep")) {
        if (!(*dt > 0.0)) fail(c, "timestep must be > 0 (got " + g(*dt) + " s)");
        out.simulation.dt_s = *dt;
      }
      if (auto gv = vec3(c, "", "gravity")) m.gravity_W = *gv;
      const std::string integ = keyword(c, "", "integrator", "Euler", {"Euler", "RK4", "implicit", "implicitfast"});
      if (integ == "RK4")
        rep_.mapped.push_back(where(c) + ": integrator RK4 -> rk4, dt " + g(out.simulation.dt_s) + " s");
      else
        rep_.mapped.push_back(
            where(c) + ": integrator " + integ + " -> rk4 at the same dt " + g(out.simulation.dt_s) +
            " s (tendyn has no semi-implicit Euler; rk4 is the more accurate method, so results differ by MuJoCo's integration error)");
      for (const char* k : {"wind", "density", "viscosity"})
        if (auto v = nums(c, "", k, 1, 3)) {
          for (double x : *v)
            if (x != 0.0) fail(c, std::string(k) + " (fluid forces) is not supported");
        }
      for (const Src& f : c.kids) {
        if (f.name() != "flag") fail(f, "unknown element inside <option>");
        for (const auto& [k, v] : f.e->attrs) {
          if (v != "enable" && v != "disable") fail(f, "flag '" + k + "' must be enable or disable");
          if (k == "contact")
            contact_on = v == "enable";
          else if (k == "gravity")
            gravity_on = v == "enable";
          else if ((k == "passive" || k == "spring" || k == "damper") && v == "disable")
            fail(f, "disabling " + k + " forces is not supported (tendon springs and dampers are the model)");
          else if (k == "override" && v == "enable")
            fail(f, "contact override is not supported");
        }
      }
    }
    if (!has_option)
      rep_.mapped.push_back(
          "no <option>: MuJoCo's defaults timestep 0.002 s and Euler -> rk4 at dt 0.002 s (tendyn has no semi-implicit Euler)");
    if (!gravity_on) {
      m.gravity_W.setZero();
      rep_.mapped.push_back("gravity disabled by <flag gravity=\"disable\"> -> gravity 0");
    }
    rep_.mapped.push_back("gravity (" + g(m.gravity_W.x()) + ", " + g(m.gravity_W.y()) + ", " + g(m.gravity_W.z()) + ") m/s^2");
    return contact_on;
  }

  // pass 2: the world (bodies, world geoms and sites; elements without effect skipped)
  void read_world(const Src& top, Walk& w, bool contact_on) {
    const Src* worldbody = nullptr;
    for (const Src& c : top.kids) {
      const std::string& n = c.name();
      if (n == "compiler" || n == "default" || n == "option" || n == "tendon" || n == "actuator" || n == "keyframe") continue;
      if (n == "worldbody") {
        check_attrs(c, {});
        worldbody = &c;
        for (const Src& k : c.kids) {
          const std::string& kn = k.name();
          if (kn == "body") {
            if (w.rods.size() >= w.rods.capacity()) fail(k, "more than " + std::to_string(w.rods.capacity()) + " bodies");
            read_body(k, Pose{}, "", nullptr, true, w, contact_on);
          } else if (kn == "geom") {
            read_geom(k, "", Pose{}, nullptr, false, "world", 0, w, contact_on);
          } else if (kn == "site") {
            read_site(k, "", Pose{}, "world", static_cast<int>(w.anchors.size()), w.anchors);
          } else if (kn == "light" || kn == "camera") {
            skip(k, "visual only");
          } else {
            fail(k, "element <" + kn + "> in <worldbody> is not supported");
          }
        }
      } else if (n == "visual" || n == "statistic" || n == "asset" || n == "size" || n == "extension" || n == "custom") {
        skip(c, "no effect on the dynamics");
      } else if (n == "sensor") {
        skip(c, "sensors do not change the dynamics");
      } else if (n == "contact") {
        if (!c.kids.empty()) skip(c, "contact pairs and exclusions (tendyn's ground touches every end-cap; rods do not touch each other)");
      } else if (n == "equality") {
        if (!c.kids.empty()) fail(c.kids.front(), "equality constraints are not supported");
      } else {
        fail(c, "element <" + n + "> is not supported");
      }
    }
    if (!worldbody || w.rods.empty()) fail(top, "no body with a free joint (nothing becomes a rod)");
  }

  // A node named `id` (an error if two sites or points share the name); returns its index.
  int add_node(Model& m, Nodes& N, const std::string& id, const Node& n, const Src* s) const {
    std::map<std::string, int>& node_of = N.node_of;
    std::map<std::string, const Src*>& node_src = N.node_src;
    if (node_of.count(id)) fail(*s, "name '" + id + "' is used by two sites or points (the other at " + where(*node_src[id]) + ")");
    node_of[id] = m.nnode();
    node_src[id] = s;
    m.nodes.push_back(n);
    m.node_ids.push_back(id);
    return m.nnode() - 1;
  }

  // rods and their nodes, anchors, the floor
  void add_bodies(const Walk& w, bool contact_on, Model& m, Nodes& N) {
    for (const RodRec& r : w.rods) add_rod(r, m, N);
    for (const auto& a : w.anchors) {
      Node n;
      n.p_W_anchor = a.p;
      add_node(m, N, a.name, n, a.src);
      rep_.mapped.push_back(where(*a.src) + ": site '" + a.name + "' fixed to the world -> anchor node");
    }
    if (w.floor) {
      if (contact_on) {
        m.ground.type = Ground::Type::kCompliant;
        m.ground.height_m = w.floor_z;
        m.ground.friction = w.floor->second;
        rep_.mapped.push_back(where(*w.floor->first) + ": floor plane -> compliant ground at z = " + g(w.floor_z) + " m, friction " +
                              g(w.floor->second) + " (friction[0]); solref/solimp are not mapped: tendyn's stiffness " +
                              g(m.ground.stiffness_Npm) + " N/m and damping " + g(m.ground.damping_Nspm) + " N s/m per contact point");
      }
    }
    bool rod_contacts = false;
    for (const RodRec& r : w.rods)
      for (const auto& s : r.segments) rod_contacts = rod_contacts || s.collides;
    if (contact_on && rod_contacts && w.rods.size() > 1)
      rep_.skipped.push_back("contacts between rods are not modelled (tendyn's rods pass through each other)");
  }

  // A free body as a rod: mass and inertia of its parts, ends at its longest capsule or cylinder,
  // its sites as nodes, end-caps where capsules and spheres collide.
  void add_rod(const RodRec& r, Model& m, Nodes& N) {
    const int j = m.nrod();
    const MassPart total = combine_parts(r.parts);
    const double mass = total.mass_kg;
    if (!(mass > 0.0)) fail(*r.src, "free body has no mass (MuJoCo needs a positive mass; give geoms with mass or an <inertial>)");
    const Vector3d& c = total.com_m;
    const Matrix3d& I = total.inertia_kgm2;
    const Matrix3d R = r.frame.q.toRotationMatrix();
    Rod rod;
    rod.mass_kg = mass;
    rod.general_inertia = true;
    rod.inertia_B_kgm2 = R.transpose() * I * R;
    rod.inertia_B_kgm2 = 0.5 * (rod.inertia_B_kgm2 + rod.inertia_B_kgm2.transpose()).eval();
    // ends: the longest capsule or cylinder
    const Segment* longest = nullptr;
    for (const auto& sgm : r.segments)
      if (!longest || (sgm.b - sgm.a).norm() > (longest->b - longest->a).norm()) longest = &sgm;
    if (!longest) fail(*r.src, "free body has no capsule or cylinder geom to define the rod's two ends");
    auto to_B = [&](const Vector3d& pw) -> Vector3d { return R.transpose() * (pw - c); };
    const Vector3d endw[2] = {longest->a, longest->b};
    std::vector<bool> site_used(r.sites.size(), false);
    for (int e = 0; e < 2; ++e) {
      Node n;
      n.rod = j;
      n.end = e;
      n.p_B_m = to_B(endw[e]);
      std::string id = r.name + ".end" + std::to_string(e);
      const Src* src = r.src;
      for (std::size_t k = 0; k < r.sites.size(); ++k)
        if (!site_used[k] && (r.sites[k].p - endw[e]).norm() <= 1e-9) {
          site_used[k] = true;
          id = r.sites[k].name;
          src = r.sites[k].src;
          break;
        }
      rod.node[e] = add_node(m, N, id, n, src);
    }
    rod.length_m = (m.nodes[static_cast<std::size_t>(rod.node[1])].p_B_m - m.nodes[static_cast<std::size_t>(rod.node[0])].p_B_m).norm();
    for (std::size_t k = 0; k < r.sites.size(); ++k) {
      if (site_used[k]) continue;
      Node n;
      n.rod = j;
      n.end = Node::kBodyPoint;
      n.p_B_m = to_B(r.sites[k].p);
      add_node(m, N, r.sites[k].name, n, r.sites[k].src);
    }
    // end-caps: capsule ends and spheres that collide
    auto cap_at = [&](const Vector3d& pw, double radius, const std::string& id) {
      const Vector3d pb = to_B(pw);
      for (int i = 0; i < m.nnode(); ++i) {
        Node& n = m.nodes[static_cast<std::size_t>(i)];
        if (n.rod == j && (n.p_B_m - pb).norm() <= 1e-9) {
          n.radius_m = std::max(n.radius_m, radius);
          if (n.is_body_point()) n.contact = true;
          return;
        }
      }
      Node n;
      n.rod = j;
      n.end = Node::kBodyPoint;
      n.p_B_m = pb;
      n.radius_m = radius;
      n.contact = true;
      add_node(m, N, id, n, r.src);
    };
    int ncaps = 0;
    for (const auto& sg : r.segments)
      if (sg.capsule && sg.collides) {
        cap_at(sg.a, sg.radius, sg.label + ".end0");
        cap_at(sg.b, sg.radius, sg.label + ".end1");
        ncaps += 2;
      }
    for (const auto& b : r.balls)
      if (b.collides) cap_at(b.c, b.radius, b.label), ++ncaps;
    rep_.mapped.push_back("rod '" + r.name + "': mass " + g(mass) + " kg from " + std::to_string(r.parts.size()) + " part(s) (" +
                          std::to_string(r.geoms) + " geom(s), " + std::to_string(r.welded) + " welded bod" +
                          (r.welded == 1 ? "y" : "ies") + "), ends at the longest " + (longest->capsule ? "capsule" : "cylinder") + " '" +
                          longest->label + "' (length " + g(rod.length_m) + " m), " + std::to_string(r.sites.size()) + " site(s), " +
                          std::to_string(ncaps) + " end-cap sphere(s)");
    m.rods.push_back(rod);
    m.rod_ids.push_back(r.name);
    N.rod_frame.push_back(r.frame);
    N.rod_com_B.push_back(R.transpose() * (c - r.frame.p));
  }

  // tendons: spatial tendons between two sites become cables or springs
  void read_tendons(const Src& top, Model& m, Nodes& N) {
    std::map<std::string, int>& node_of = N.node_of;
    for (const Src& c : top.kids) {
      if (c.name() != "tendon") continue;
      check_attrs(c, {});
      for (const Src& t : c.kids) {
        if (t.name() == "fixed") fail(t, "fixed tendons are not supported");
        if (t.name() != "spatial") fail(t, "unknown tendon type");
        check_tendon_attrs(t);
        const std::string cls = element_class(t, "main");
        std::vector<std::string> sites;
        for (const Src& p : t.kids) {
          if (p.name() == "site") {
            check_attrs(p, {"site"});
            const auto sn = p.e->attr("site");
            if (!sn) fail(p, "needs a 'site' attribute");
            if (!node_of.count(*sn)) fail(p, "site '" + *sn + "' does not exist (or is not on a free body or the world)");
            sites.push_back(*sn);
          } else if (p.name() == "geom" || p.name() == "pulley") {
            fail(p, "wrapping tendons (geom, pulley) are not supported");
          } else {
            fail(p, "unknown element in a spatial tendon");
          }
        }
        if (sites.size() != 2) fail(t, "a spatial tendon must join exactly two sites (got " + std::to_string(sites.size()) + ")");
        for (const char* k : {"frictionloss", "armature"})
          if (auto v = num(t, cls, k); v && *v != 0.0) fail(t, std::string(k) + " on a tendon is not supported");
        Cable cab;
        cab.node[0] = node_of[sites[0]];
        cab.node[1] = node_of[sites[1]];
        if (cab.node[0] == cab.node[1]) fail(t, "both ends on the same site");
        cab.stiffness_Npm = num(t, cls, "stiffness").value_or(0.0);
        cab.damping_Nspm = num(t, cls, "damping").value_or(0.0);
        if (cab.stiffness_Npm < 0.0) fail(t, "stiffness must be >= 0");
        if (cab.damping_Nspm < 0.0) fail(t, "damping must be >= 0");
        // limits: a constraint tendyn does not have
        const std::string lim = keyword(t, cls, "limited", "auto", {"true", "false", "auto"});
        const bool has_range = get(t, cls, "range").has_value();
        if (lim == "true" || (lim == "auto" && cc_.autolimits && has_range))
          fail(t, "limited tendons (a length range enforced as a constraint) are not supported");
        if (has_range) skip(t, "range without limited: no effect");
        // rest length
        const auto sl = nums(t, cls, "springlength", 1, 2);
        std::string how;
        const Vector3d pa = node_world_at_compile(m, cab.node[0], N.rod_frame, N.rod_com_B);
        const Vector3d pb = node_world_at_compile(m, cab.node[1], N.rod_frame, N.rod_com_B);
        if (!sl || (sl->size() == 1 && (*sl)[0] < 0.0) || (sl->size() == 2 && (*sl)[0] < 0.0 && (*sl)[1] < 0.0)) {
          cab.rest_length_m = (pb - pa).norm();
          cab.tension_only = false;
          how = "rest length " + g(cab.rest_length_m) + " m = its length in the file's pose (springlength -1)";
        } else if (sl->size() == 1 || (*sl)[0] == (*sl)[1]) {
          cab.rest_length_m = (*sl)[0];
          cab.tension_only = false;
          how = "rest length " + g(cab.rest_length_m) + " m";
        } else if ((*sl)[0] == 0.0 && (*sl)[1] > 0.0) {
          cab.rest_length_m = (*sl)[1];
          cab.tension_only = true;
          how = "dead band [0, " + g((*sl)[1]) + "] -> tension-only cable of rest length " + g(cab.rest_length_m) +
                " m (MuJoCo also damps it while slack; tendyn does not)";
        } else {
          fail(t, "springlength dead band [" + g((*sl)[0]) + ", " + g((*sl)[1]) +
                      "] is not supported (only one value, or [0, b]: a cable that only pulls)");
        }
        const std::string id = t.e->attr("name").value_or("tendon" + std::to_string(m.ncable()));
        if (std::find(m.cable_ids.begin(), m.cable_ids.end(), id) != m.cable_ids.end()) fail(t, "tendon name '" + id + "' used twice");
        m.cables.push_back(cab);
        m.cable_ids.push_back(id);
        rep_.mapped.push_back(where(t) + ": tendon '" + id + "' (" + sites[0] + " - " + sites[1] + ") -> " +
                              (cab.tension_only ? "cable" : "spring that pushes and pulls") + ", k " + g(cab.stiffness_Npm) + " N/m, c " +
                              g(cab.damping_Nspm) + " N s/m (axial), " + how);
      }
    }
  }

  // actuators: tendon actuators -> ForceActuator (MuJoCo's gain/bias law and activation), each in
  // the report; with ignore_actuators each is skipped instead
  void read_actuators(const Src& top, Model& m) {
    for (const Src& c : top.kids) {
      if (c.name() != "actuator") continue;
      check_attrs(c, {});
      for (const Src& a : c.kids) {
        const std::string cls = element_class(a, "main");
        const MjcfActuator act = actuator_as_written(a, cls);
        rep_.actuators.push_back(act);
        if (opt_.ignore_actuators) {
          skip(a, "actuator ignored on request (ignore_actuators): the imported robot is not actuated");
          continue;
        }
        check_actuator(a, cls, act);
        ForceActuator fa;
        fa.cable = static_cast<int>(std::find(m.cable_ids.begin(), m.cable_ids.end(), act.tendon) - m.cable_ids.begin());
        if (fa.cable == m.ncable()) fail(a, "tendon '" + act.tendon + "' does not exist");
        if (!act.gear.empty()) fa.gear = act.gear[0];
        if (fa.gear == 0.0) fail(a, "gear 0: the actuator does nothing");
        const std::string law = actuator_law(a, cls, act, fa);
        fa.ctrl_limited = actuator_range(a, cls, "ctrllimited", "ctrlrange", fa.ctrl_min, fa.ctrl_max);
        fa.force_limited = actuator_range(a, cls, "forcelimited", "forcerange", fa.force_min_N, fa.force_max_N);
        const std::string id = act.name.empty() ? "actuator" + std::to_string(m.nactuator()) : act.name;
        if (std::find(m.actuator_ids.begin(), m.actuator_ids.end(), id) != m.actuator_ids.end())
          fail(a, "actuator name '" + id + "' used twice");
        if (m.force_actuator_on(fa.cable) >= 0)
          fail(a, "tendon '" + act.tendon + "' already has an actuator (tendyn takes one per tendon)");
        m.force_actuators.push_back(fa);
        m.actuator_ids.push_back(id);
        rep_.mapped.push_back(where(a) + ": <" + act.kind + "> '" + id + "' on tendon '" + act.tendon + "' -> force actuator, gear " +
                              g(fa.gear) + ", " + law + " (L = gear length, V = gear rate)" +
                              (fa.ctrl_limited ? ", ctrl in [" + g(fa.ctrl_min) + ", " + g(fa.ctrl_max) + "]" : "") +
                              (fa.force_limited ? ", F in [" + g(fa.force_min_N) + ", " + g(fa.force_max_N) + "] N" : ""));
      }
    }
  }

  // the actuator's attributes as written (or defaulted), for the report
  MjcfActuator actuator_as_written(const Src& a, const std::string& cls) const {
    MjcfActuator act;
    act.kind = a.name();
    act.name = a.e->attr("name").value_or("");
    act.tendon = a.e->attr("tendon").value_or("");
    act.where = where(a);
    auto list = [&](const char* k) { return nums(a, cls, k, 0, 10).value_or(std::vector<double>{}); };
    act.gainprm = list("gainprm");
    act.biasprm = list("biasprm");
    act.dynprm = list("dynprm");
    act.gear = list("gear");
    act.dyntype = get(a, cls, "dyntype").value_or("");
    act.gaintype = get(a, cls, "gaintype").value_or("");
    act.biastype = get(a, cls, "biastype").value_or("");
    act.kp = num(a, cls, "kp").value_or(num(a, cls, "kv").value_or(0.0));
    return act;
  }

  // the kinds tendyn maps, their defaults, attributes and target (a tendon)
  void check_actuator(const Src& a, const std::string& cls, const MjcfActuator& act) {
    static const char* const kinds[] = {"general", "motor",    "position", "velocity", "intvelocity",
                                        "damper",  "cylinder", "muscle",   "adhesion", "plugin"};
    const std::string& kind = act.kind;
    bool known = false;
    for (const char* k : kinds) known = known || kind == k;
    if (!known) fail(a, "unknown element in <actuator>");
    if (kind != "general" && kind != "motor" && kind != "position" && kind != "velocity")
      fail(a, "actuator <" + kind + "> is not supported (supported: general, motor, position, velocity)");
    // MuJoCo merges the defaults of every actuator kind into one; tendyn reads each kind's own
    for (std::string k = cls; !k.empty();) {
      const auto it = classes_.find(k);
      if (it == classes_.end()) break;
      for (const char* other : kinds)
        if (other != kind && it->second.attrs.count(other))
          fail(a, "class '" + k + "' has <" + std::string(other) + "> defaults, and this is a <" + kind +
                      ">: mixed actuator defaults are not supported");
      k = it->second.parent;
    }
    check_attrs(a, {"name",       "class",     "group",      "tendon",     "joint",       "jointinparent", "site",
                    "body",       "refsite",   "cranksite",  "slidersite", "cranklength", "ctrllimited",   "forcelimited",
                    "actlimited", "ctrlrange", "forcerange", "actrange",   "lengthrange", "gear",          "user",
                    "actdim",     "actearly",  "dyntype",    "gaintype",   "biastype",    "dynprm",        "gainprm",
                    "biasprm",    "kp",        "kv",         "dampratio",  "timeconst",   "inheritrange"});
    for (const char* k : {"dyntype", "gaintype", "biastype", "dynprm", "gainprm", "biasprm"})
      if (kind != "general" && get(a, cls, k)) fail(a, "attribute '" + std::string(k) + "' belongs to <general>, not <" + kind + ">");
    for (const char* k : {"kp", "kv", "dampratio", "timeconst", "inheritrange"}) {
      const bool ok = kind == "position" || (kind == "velocity" && std::string(k) == "kv");
      if (!ok && get(a, cls, k)) fail(a, "attribute '" + std::string(k) + "' does not belong to <" + kind + ">");
    }
    for (const char* k : {"joint", "jointinparent", "site", "body", "refsite", "cranksite", "slidersite"})
      if (a.e->attr(k)) fail(a, "only tendon actuators are supported (this one drives a " + std::string(k) + ")");
    if (act.tendon.empty()) fail(a, "needs a 'tendon' attribute (only tendon actuators are supported)");
    for (const char* k : {"cranklength", "dampratio"})
      if (auto v = num(a, cls, k); v && *v != 0.0) fail(a, std::string(k) + " is not supported (a crank, or damping set by ratio)");
    if (auto v = get(a, cls, "actdim"); v && *v != "-1" && *v != "1") fail(a, "actdim other than 1 is not supported");
    const std::string act_limited = get(a, cls, "actlimited").value_or("auto");
    if (act_limited == "true" || (act_limited == "auto" && cc_.autolimits && get(a, cls, "actrange")))
      fail(a, "a limited activation (actlimited, actrange) is not supported");
    if (get(a, cls, "actearly").value_or("false") == "true") fail(a, "actearly is not supported (the force from the next activation)");
    for (const char* k : {"lengthrange", "user", "inheritrange", "actearly", "actlimited", "actrange"})
      if (get(a, cls, k)) skip(a, std::string(k) + ": no effect here");
  }

  // gain and bias of the kind (MuJoCo's shortcuts), into fa; returns the law in words
  std::string actuator_law(const Src& a, const std::string& cls, const MjcfActuator& act, ForceActuator& fa) const {
    const std::string& kind = act.kind;
    if (kind == "motor") return "F = ctrl";
    if (kind == "position") {
      const double kp = num(a, cls, "kp").value_or(1.0), kv = num(a, cls, "kv").value_or(0.0), tc = num(a, cls, "timeconst").value_or(0.0);
      if (kp < 0.0 || kv < 0.0 || tc < 0.0) fail(a, "kp, kv and timeconst must be >= 0");
      fa.gain = {kp, 0.0, 0.0};
      fa.bias = {0.0, -kp, -kv};
      if (tc > 0.0) {  // MuJoCo 3: dyntype filterexact with the time constant
        fa.dynamics = ForceActuator::Dynamics::kFilter;
        fa.time_constant_s = tc;
        return "F = " + g(kp) + " (act - L) - " + g(kv) + " V, act' = (ctrl - act) / " + g(tc) + " s";
      }
      return "F = " + g(kp) + " (ctrl - L) - " + g(kv) + " V";
    }
    if (kind == "velocity") {
      const double kv = num(a, cls, "kv").value_or(1.0);
      if (kv < 0.0) fail(a, "kv must be >= 0");
      fa.gain = {kv, 0.0, 0.0};
      fa.bias = {0.0, 0.0, -kv};
      return "F = " + g(kv) + " (ctrl - V)";
    }
    const std::string dyn = keyword(a, cls, "dyntype", "none", {"none", "integrator", "filter", "filterexact", "muscle", "user"});
    if (dyn == "muscle" || dyn == "user") fail(a, "dyntype '" + dyn + "' is not supported (none, integrator, filter, filterexact)");
    std::string act_law;
    if (dyn == "integrator") {
      fa.dynamics = ForceActuator::Dynamics::kIntegrator;
      act_law = ", act' = ctrl";
    } else if (dyn == "filter" || dyn == "filterexact") {  // the same ODE; MuJoCo's Euler step integrates filterexact exactly
      fa.dynamics = ForceActuator::Dynamics::kFilter;
      fa.time_constant_s = act.dynprm.empty() ? 1.0 : act.dynprm[0];
      if (!(fa.time_constant_s > 0.0)) fail(a, "dynprm[0] (the filter's time constant) must be > 0");
      act_law = ", act' = (ctrl - act) / " + g(fa.time_constant_s) + " s";
    }
    const std::string input = dyn == "none" ? "ctrl" : "act";
    const std::string gt = keyword(a, cls, "gaintype", "fixed", {"fixed", "affine", "muscle", "user"});
    const std::string bt = keyword(a, cls, "biastype", "none", {"none", "affine", "muscle", "user"});
    if (gt != "fixed" && gt != "affine") fail(a, "gaintype '" + gt + "' is not supported (fixed, affine)");
    if (bt != "none" && bt != "affine") fail(a, "biastype '" + bt + "' is not supported (none, affine)");
    std::vector<double> gp = act.gainprm, bp = act.biasprm;
    if (gp.empty()) gp = {1.0};
    gp.resize(3, 0.0);
    bp.resize(3, 0.0);
    fa.gain = {gp[0], gt == "affine" ? gp[1] : 0.0, gt == "affine" ? gp[2] : 0.0};
    if (bt == "affine") fa.bias = {bp[0], bp[1], bp[2]};
    return "F = (" + g(fa.gain[0]) + " + " + g(fa.gain[1]) + " L + " + g(fa.gain[2]) + " V) " + input + " + " + g(fa.bias[0]) + " + " +
           g(fa.bias[1]) + " L + " + g(fa.bias[2]) + " V" + act_law;
  }

  // a ctrl or force range: limited when `flag` is true, or auto with autolimits and the range given
  bool actuator_range(const Src& a, const std::string& cls, const char* flag, const char* range, double& lo, double& hi) {
    const std::string lim = keyword(a, cls, flag, "auto", {"true", "false", "auto"});
    const auto r = nums(a, cls, range, 2, 2);
    const bool on = lim == "true" || (lim == "auto" && cc_.autolimits && r);
    if (!on) {
      if (r) skip(a, std::string(range) + " without " + flag + ": no effect");
      return false;
    }
    if (!r) fail(a, std::string(flag) + " needs " + range);
    if (!((*r)[0] <= (*r)[1])) fail(a, std::string(range) + ": lower bound above upper bound");
    lo = (*r)[0];
    hi = (*r)[1];
    return true;
  }

  // initial state: compile pose, or the first key
  void read_initial_state(const Src& top, Model& m, const Nodes& N) {
    State& s = m.initial_state;
    s.x = Eigen::VectorXd::Zero(m.nx());  // the rods, then the actuators' activations (the key's act, else 0)
    std::vector<Pose> qpos = N.rod_frame;
    std::vector<Vector3d> v_org(static_cast<std::size_t>(m.nrod()), Vector3d::Zero()), w_B = v_org;
    const Src* key = nullptr;
    for (const Src& c : top.kids)
      if (c.name() == "keyframe" && !key) {
        check_attrs(c, {});
        for (const Src& k : c.kids) {
          if (k.name() != "key") fail(k, "unknown element in <keyframe>");
          if (!key) key = &k;
        }
      }
    if (key) {
      check_attrs(*key, {"name", "time", "qpos", "qvel", "act", "ctrl", "mpos", "mquat"});
      const std::size_t nr = static_cast<std::size_t>(m.nrod());
      if (auto t = key->e->attr("qpos")) {
        const auto v = numbers(*key, "qpos", *t);
        if (v.size() != 7 * nr)
          fail(*key, "qpos has " + std::to_string(v.size()) + " numbers; the model's free joints need " + std::to_string(7 * nr));
        for (std::size_t j = 0; j < nr; ++j) {
          const double* d = v.data() + 7 * j;
          Quaterniond q(d[3], d[4], d[5], d[6]);
          if (!(q.norm() > 1e-12)) fail(*key, "qpos: zero quaternion of body '" + m.rod_ids[j] + "'");
          qpos[j] = Pose{Vector3d(d[0], d[1], d[2]), q.normalized()};
        }
      }
      if (auto t = key->e->attr("qvel")) {
        const auto v = numbers(*key, "qvel", *t);
        if (v.size() != 6 * nr)
          fail(*key, "qvel has " + std::to_string(v.size()) + " numbers; the model's free joints need " + std::to_string(6 * nr));
        for (std::size_t j = 0; j < nr; ++j) {
          v_org[j] = Vector3d(v[6 * j], v[6 * j + 1], v[6 * j + 2]);
          w_B[j] = Vector3d(v[6 * j + 3], v[6 * j + 4], v[6 * j + 5]);
        }
      }
      // the actuators' numbers of the key: `count` of them, each given to `set` (skipped with ignore_actuators)
      auto actuator_numbers = [&](const char* attr, int count, const char* what, const std::string& mapped, const auto& set) {
        const auto t = key->e->attr(attr);
        if (!t || numbers(*key, attr, *t).empty()) return;
        const auto v = numbers(*key, attr, *t);
        if (opt_.ignore_actuators) {
          skip(*key, std::string(attr) + " (actuators ignored on request)");
          return;
        }
        if (v.size() != static_cast<std::size_t>(count))
          fail(*key,
               std::string(attr) + " has " + std::to_string(v.size()) + " numbers; the model has " + std::to_string(count) + " " + what);
        for (std::size_t i = 0; i < v.size(); ++i) set(static_cast<int>(i), v[i]);
        rep_.mapped.push_back(where(*key) + ": first keyframe key's " + attr + " -> " + mapped);
      };
      std::vector<int> activation;  // activation i's index in x
      for (int k = 0; k < m.nactuator(); ++k)
        if (m.activation_offset(k) >= 0) activation.push_back(m.activation_offset(k));
      actuator_numbers("act", m.nactivation(), "actuator activations", "the actuators' initial activations",
                       [&](int i, double x) { s.x[activation[static_cast<std::size_t>(i)]] = x; });
      for (const char* k : {"mpos", "mquat"})
        if (auto t = key->e->attr(k); t && !numbers(*key, k, *t).empty()) fail(*key, std::string(k) + ": the model has no mocap bodies");
      actuator_numbers("ctrl", m.nactuator(), "actuators", "the actuators' commands",
                       [&](int i, double x) { m.force_actuators[static_cast<std::size_t>(i)].ctrl = x; });
      s.time_s = num(*key, "", "time").value_or(0.0);
      rep_.mapped.push_back(
          where(*key) +
          ": first keyframe key -> initial state (qpos: body origin and quaternion; qvel: origin velocity in the world, angular velocity in the body frame)");
    }
    for (int j = 0; j < m.nrod(); ++j) {
      const auto J = static_cast<std::size_t>(j);
      const Matrix3d R = qpos[J].q.toRotationMatrix();
      const Vector3d rc = R * N.rod_com_B[J];
      s.p_WC(j) = qpos[J].p + rc;
      s.set_q_WB(j, qpos[J].q);
      const Vector3d ww = R * w_B[J];
      s.w_W(j) = ww;
      s.v_WC(j) = v_org[J] + ww.cross(rc);
    }
  }

  /// World position of a node at the file's (compile) pose.
  static Vector3d node_world_at_compile(const Model& m, int i, const std::vector<Pose>& frames, const std::vector<Vector3d>& com_B) {
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    if (n.is_anchor()) return n.p_W_anchor;
    const Pose& f = frames[static_cast<std::size_t>(n.rod)];
    return f.p + f.q * (com_B[static_cast<std::size_t>(n.rod)] + m.p_BN(i));
  }
};

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(path + ": is a directory, not an MJCF file");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > xml::kMaxBytes) throw Error(path + ": larger than the limit of " + std::to_string(xml::kMaxBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ModelFile load_mjcf_string(const std::string& text, const std::string& name, const MjcfImportOptions& options, MjcfImportReport* report) {
  MjcfImportReport local;
  MjcfImportReport& r = report ? *report : local;
  r = MjcfImportReport{};
  return Importer(options, r).run(text, name);
}

ModelFile load_mjcf_file(const std::string& path, const MjcfImportOptions& options, MjcfImportReport* report) {
  return load_mjcf_string(read_text(path), path, options, report);
}

bool is_mjcf_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".xml";
}

int reduce_to_ideal_rods(Model& m, double tol) {
  int left = 0;
  for (int j = 0; j < m.nrod(); ++j) {
    Rod& r = m.rods[static_cast<std::size_t>(j)];
    if (!r.general_inertia) continue;
    bool ok = true;
    for (int i = 0; i < m.nnode(); ++i) {
      const Node& n = m.nodes[static_cast<std::size_t>(i)];
      if (n.rod == j && (n.is_body_point() || n.radius_m != 0.0)) ok = false;
    }
    const Vector3d p0 = m.nodes[static_cast<std::size_t>(r.node[0])].p_B_m, p1 = m.nodes[static_cast<std::size_t>(r.node[1])].p_B_m;
    const double L = (p1 - p0).norm();
    const Vector3d u = (p1 - p0) / L;
    const double s = -p0.dot(u) / L;  // C = p0 + s (p1 - p0)
    ok = ok && s >= -tol && s <= 1.0 + tol && (p0 + s * (p1 - p0)).norm() <= tol * L;
    const Matrix3d& I = r.inertia_B_kgm2;
    const double Ia = u.dot(I * u);
    const double It = 0.5 * (I.trace() - Ia);
    const Matrix3d model = It * (Matrix3d::Identity() - u * u.transpose()) + Ia * u * u.transpose();
    ok = ok && (I - model).cwiseAbs().maxCoeff() <= tol * I.cwiseAbs().maxCoeff();
    if (!ok) {
      ++left;
      continue;
    }
    r.general_inertia = false;
    r.inertia_B_kgm2.setZero();
    r.inertia_transverse_kgm2 = It;
    r.inertia_axial_kgm2 = Ia;
    r.length_m = L;
    r.com_ratio = std::clamp(1.0 - s, 0.0, 1.0);
    for (int e = 0; e < 2; ++e) m.nodes[static_cast<std::size_t>(r.node[e])].p_B_m.setZero();
    // new body frame B': z along u (q_BB' maps z to u)
    const Quaterniond q_BBp = z_to(u);
    m.initial_state.set_q_WB(j, (m.initial_state.q_WB(j) * q_BBp).normalized());
  }
  return left;
}

}  // namespace tendyn::tensegrity
