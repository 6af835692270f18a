#include <tendyn/core/error.hpp>
#include <tendyn/io/markup.hpp>
#include <tendyn/viz/scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <zlib.h>

namespace tendyn::viz {

namespace {

std::string fmt_time(double t) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g s", t);
  return buf;
}

/// A scalar of the header rounded to 7 significant digits (the value %.7g prints), as a JSON value:
/// an integer when the rounded value is whole and below 1e7 in magnitude (dumped "3", as %.7g
/// prints it, not "3.0"), else the rounded double (nlohmann prints it with the shortest digits its
/// Grisu2 finds: the same double as the %.7g text, rarely written with more digits).
nlohmann::ordered_json scene_number(double v) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 7).ptr;  // = %.7g
  double rounded = 0.0;
  std::from_chars(buf, end, rounded);
  if (rounded == std::trunc(rounded) && std::fabs(rounded) < 1e7) return static_cast<std::int64_t>(rounded);
  return rounded;
}

/// Appends "[v0,v1,...]", each value as %.7g. The number arrays (frames, plot series) are the bulk
/// of a scene and are written straight into the text: a JSON tree of them would take several times
/// the text's memory for a long run, and the text is the same to the byte as before.
void write_numbers(std::string& out, std::span<const double> v) {
  char buf[32];
  out += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v[i], std::chars_format::general, 7).ptr);  // = %.7g
  }
  out += ']';
}

/// Per-frame rows [first, last) of a flat array with `stride` values per frame.
void append_rows(std::string& out, const std::vector<double>& flat, std::size_t stride, int first, int last) {
  out += '[';
  for (int f = first; f < last; ++f) {
    if (f > first) out += ',';
    write_numbers(out, std::span<const double>(flat).subspan(stride * static_cast<std::size_t>(f), stride));
  }
  out += ']';
}

/// Appends the "plots" array: titles and names through nlohmann, the values by write_numbers.
void write_plots(std::string& out, const std::vector<ScenePlot>& plots) {
  using json = nlohmann::ordered_json;
  auto open_object = [&out](const json& head) {  // head's members, the object left open
    out += head.dump();
    out.pop_back();
  };
  out += '[';
  for (std::size_t i = 0; i < plots.size(); ++i) {
    const auto& p = plots[i];
    if (i) out += ',';
    open_object({{"title", p.title}, {"y_label", p.y_label}});
    if (!p.id.empty()) out += ",\"id\":" + json(p.id).dump();
    if (!p.t_s.empty()) {
      out += ",\"t_s\":";
      write_numbers(out, p.t_s);
    }
    out += ",\"series\":[";
    for (std::size_t k = 0; k < p.series.size(); ++k) {
      if (k) out += ',';
      open_object({{"name", p.series[k].first}});
      out += ",\"values\":";
      write_numbers(out, p.series[k].second);
      out += '}';
    }
    out += "]}";
  }
  out += ']';
}

/// Appends the "paths" array: names through nlohmann, the points as rows of 3 by append_rows.
void write_paths(std::string& out, const std::vector<ScenePath>& paths) {
  out += '[';
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto& p = paths[i];
    if (i) out += ',';
    out += "{\"name\":" + nlohmann::json(p.name).dump();
    if (p.per_frame) out += ",\"per_frame\":true";
    out += ",\"points_m\":";
    append_rows(out, p.points_m, 3, 0, static_cast<int>(p.points_m.size() / 3));
    out += '}';
  }
  out += ']';
}

/// Appends the "clouds" array: points as rows of 3, values with NaN written null.
void write_clouds(std::string& out, const std::vector<SceneCloud>& clouds) {
  out += '[';
  char buf[32];
  for (std::size_t i = 0; i < clouds.size(); ++i) {
    const auto& c = clouds[i];
    if (i) out += ',';
    out += "{\"name\":" + nlohmann::json(c.name).dump() + ",\"value_label\":" + nlohmann::json(c.value_label).dump();
    out += ",\"points_m\":";
    append_rows(out, c.points_m, 3, 0, static_cast<int>(c.points_m.size() / 3));
    out += ",\"values\":[";
    for (std::size_t k = 0; k < c.values.size(); ++k) {
      if (k) out += ',';
      if (std::isfinite(c.values[k]))
        out.append(buf, std::to_chars(buf, buf + sizeof buf, c.values[k], std::chars_format::general, 7).ptr);
      else
        out += "null";
    }
    out += "],\"highlight\":" + nlohmann::json(c.highlight).dump() + '}';
  }
  out += ']';
}

void check_finite(std::span<const double> v, const char* what, double t) {
  for (double x : v)
    if (!std::isfinite(x)) throw Error("scene: non-finite " + std::string(what) + " at t = " + fmt_time(t));
}

}  // namespace

void add_frame(Scene& s, double t_s, std::span<const double> positions_m, std::span<const double> tension_N, std::span<const double> strain,
               const double* com_m, const FrameEnergy* energy) {
  const auto np = static_cast<std::size_t>(s.npoint()), nc = static_cast<std::size_t>(s.ncable());
  if (positions_m.size() != 3 * np || tension_N.size() != nc || strain.size() != nc)
    throw Error("scene: frame at t = " + fmt_time(t_s) + " has " + std::to_string(positions_m.size()) + " coordinates, " +
                std::to_string(tension_N.size()) + " tensions (expected " + std::to_string(3 * np) + ", " + std::to_string(nc) + ")");
  if (!std::isfinite(t_s)) throw Error("scene: non-finite frame time");
  if (!s.t_s.empty() && t_s < s.t_s.back())
    throw Error("scene: frame time " + fmt_time(t_s) + " before the previous frame " + fmt_time(s.t_s.back()));
  const bool first = s.t_s.empty();
  if (!first && ((com_m != nullptr) != !s.com_m.empty() || (energy != nullptr) != !s.kinetic_J.empty()))
    throw Error("scene: frame at t = " + fmt_time(t_s) + ": COM and energies must be given for every frame or none");
  check_finite(positions_m, "position", t_s);
  check_finite(tension_N, "tension", t_s);
  check_finite(strain, "strain", t_s);
  s.t_s.push_back(t_s);
  s.positions_m.insert(s.positions_m.end(), positions_m.begin(), positions_m.end());
  s.tension_N.insert(s.tension_N.end(), tension_N.begin(), tension_N.end());
  s.strain.insert(s.strain.end(), strain.begin(), strain.end());
  if (com_m) {
    check_finite(std::span<const double>(com_m, 3), "COM", t_s);
    s.com_m.insert(s.com_m.end(), com_m, com_m + 3);
  }
  if (energy) {
    s.kinetic_J.push_back(energy->kinetic_J);
    s.elastic_J.push_back(energy->elastic_J);
    s.gravitational_J.push_back(energy->gravitational_J);
    s.total_J.push_back(energy->total_J);
  }
}

void validate(const Scene& s) {
  const int np = s.npoint();
  auto point_ok = [&](int i) { return i >= 0 && i < np; };
  for (const auto& r : s.rods)
    if (!point_ok(r.a) || !point_ok(r.b) || !(r.radius_m >= 0.0) || !std::isfinite(r.radius_m))
      throw Error("scene: rod '" + r.name + "': point index out of range or bad radius");
  for (const auto& c : s.cables)
    if (!point_ok(c.a) || !point_ok(c.b)) throw Error("scene: cable '" + c.name + "': point index out of range");
  for (std::size_t i = 0; i < s.faces.size(); ++i) {
    if (s.faces[i].size() < 3) throw Error("scene: face " + std::to_string(i) + " has fewer than 3 points");
    for (int p : s.faces[i])
      if (!point_ok(p)) throw Error("scene: face " + std::to_string(i) + ": point index out of range");
  }
  for (const auto& j : s.joints)
    if (!point_ok(j.point) || j.q_index < -1 || j.v_index < -1 || (j.type != "revolute" && j.type != "prismatic"))
      throw Error("scene: joint '" + j.name + "': point index out of range, bad series index or type '" + j.type +
                  "' (expected revolute or prismatic)");
  const auto nf = static_cast<std::size_t>(s.nframe());
  if (!s.joint_axes_W.empty() && s.joint_axes_W.size() != 3 * s.joints.size() * nf)
    throw Error("scene: joint axes do not match the joints and frames");
  for (const auto& p : s.paths) {
    if (p.points_m.size() % 3 != 0) throw Error("scene: path '" + p.name + "': points_m is not a list of (x, y, z)");
    if (p.per_frame && p.points_m.size() != 3 * nf)
      throw Error("scene: path '" + p.name + "': " + std::to_string(p.points_m.size() / 3) + " points for " + std::to_string(nf) +
                  " frames");
    for (double v : p.points_m)
      if (!std::isfinite(v)) throw Error("scene: path '" + p.name + "': non-finite point");
  }
  for (const auto& c : s.clouds) {
    const std::size_t n = c.points_m.size() / 3;
    if (c.points_m.size() % 3 != 0) throw Error("scene: cloud '" + c.name + "': points_m is not a list of (x, y, z)");
    if (c.values.size() != n)
      throw Error("scene: cloud '" + c.name + "': " + std::to_string(c.values.size()) + " values for " + std::to_string(n) + " points");
    for (double v : c.points_m)
      if (!std::isfinite(v)) throw Error("scene: cloud '" + c.name + "': non-finite point");
    for (int h : c.highlight)
      if (h < 0 || static_cast<std::size_t>(h) >= n)
        throw Error("scene: cloud '" + c.name + "': highlight index " + std::to_string(h) + " out of range [0, " + std::to_string(n) + ")");
  }
  if (s.positions_m.size() != 3 * static_cast<std::size_t>(np) * nf || s.tension_N.size() != static_cast<std::size_t>(s.ncable()) * nf ||
      s.strain.size() != s.tension_N.size())
    throw Error("scene: per-frame arrays do not match the number of frames");
  if (!s.com_m.empty() && s.com_m.size() != 3 * nf) throw Error("scene: COM track does not match the frames");
  if (!s.contact_force_N.empty() && s.contact_force_N.size() != 3 * static_cast<std::size_t>(np) * nf)
    throw Error("scene: contact forces do not match the points and frames");
  for (const auto* e : {&s.kinetic_J, &s.elastic_J, &s.gravitational_J, &s.total_J})
    if (!e->empty() && e->size() != nf) throw Error("scene: energies do not match the frames");
  for (const auto& p : s.plots) {
    const std::size_t n = p.t_s.empty() ? nf : p.t_s.size();
    for (const auto& [name, v] : p.series)
      if (v.size() != n)
        throw Error("scene: plot '" + p.title + "', series '" + name + "': " + std::to_string(v.size()) + " values for " +
                    std::to_string(n) + " times");
  }
}

std::string scene_header_json(const Scene& s) {
  using json = nlohmann::ordered_json;
  json rods = json::array(), cables = json::array(), faces = json::array();
  for (const auto& r : s.rods)
    rods.push_back(
        {{"name", r.name}, {"a", r.a}, {"b", r.b}, {"radius_m", scene_number(r.radius_m)}, {"shape", r.capsule ? "capsule" : "cylinder"}});
  for (const auto& c : s.cables) cables.push_back({{"name", c.name}, {"a", c.a}, {"b", c.b}});
  for (const auto& f : s.faces) faces.push_back(f);
  json h;  // keys in the order of docs/VIEWER.md
  h["format"] = "tendyn-scene";
  h["version"] = 1;
  h["title"] = s.title;
  h["kind"] = s.kind;
  h["ground_z_m"] = s.ground_z_m ? scene_number(*s.ground_z_m) : json(nullptr);
  h["points"] = s.points;
  if (!s.point_radius_m.empty()) {
    if (s.point_radius_m.size() != s.points.size()) throw Error("scene: point_radius_m must have one entry per point");
    json radii = json::array();
    for (const double r : s.point_radius_m) radii.push_back(scene_number(r));
    h["point_radius_m"] = std::move(radii);
  }
  h["rods"] = std::move(rods);
  h["cables"] = std::move(cables);
  h["faces"] = std::move(faces);
  if (s.cable_force_signed) h["cable_force_signed"] = true;
  if (!s.joints.empty()) {
    json joints = json::array();
    for (const auto& j : s.joints)
      joints.push_back({{"name", j.name}, {"type", j.type}, {"point", j.point}, {"q_index", j.q_index}, {"v_index", j.v_index}});
    h["joints"] = std::move(joints);
  }
  std::string o = h.dump();
  o.pop_back();  // the paths and plots (number arrays: write_paths, write_plots) close the object
  if (!s.paths.empty()) {
    o += ",\"paths\":";
    write_paths(o, s.paths);
  }
  if (!s.clouds.empty()) {
    o += ",\"clouds\":";
    write_clouds(o, s.clouds);
  }
  o += ",\"plots\":";
  write_plots(o, s.plots);
  o += '}';
  return o;
}

std::string frames_json(const Scene& s, int first, int last) {
  first = std::max(first, 0);
  last = std::min(last, s.nframe());
  if (last < first) last = first;
  const auto np3 = 3 * static_cast<std::size_t>(s.npoint()), nc = static_cast<std::size_t>(s.ncable());
  std::string o;
  o.reserve(static_cast<std::size_t>(last - first) * (np3 + 2 * nc + 8) * 12 + 256);
  o += "{\"t_s\":";
  write_numbers(o, std::span<const double>(s.t_s).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(last - first)));
  o += ",\"positions_m\":";
  append_rows(o, s.positions_m, np3, first, last);
  o += ",\"cable_tension_N\":";
  append_rows(o, s.tension_N, nc, first, last);
  o += ",\"cable_strain\":";
  append_rows(o, s.strain, nc, first, last);
  if (!s.com_m.empty()) {
    o += ",\"com_m\":";
    append_rows(o, s.com_m, 3, first, last);
  }
  if (!s.kinetic_J.empty()) {
    auto part = [&](const std::vector<double>& v) {
      write_numbers(o, std::span<const double>(v).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(last - first)));
    };
    o += ",\"energy_J\":{\"kinetic\":";
    part(s.kinetic_J);
    o += ",\"elastic\":";
    part(s.elastic_J);
    o += ",\"gravitational\":";
    part(s.gravitational_J);
    o += ",\"total\":";
    part(s.total_J);
    o += '}';
  }
  if (!s.joint_axes_W.empty()) {
    o += ",\"joint_axes_W\":";
    append_rows(o, s.joint_axes_W, 3 * s.joints.size(), first, last);
  }
  if (!s.contact_force_N.empty()) {
    o += ",\"contact_force_N\":";
    append_rows(o, s.contact_force_N, np3, first, last);
  }
  o += '}';
  return o;
}

std::string scene_json(const Scene& s) {
  validate(s);
  std::string o = scene_header_json(s);
  o.pop_back();  // the header's closing brace: the frames go last
  o += ",\"frames\":" + frames_json(s, 0, s.nframe()) + "}\n";
  return o;
}

std::string check_scene_json(std::string_view text, std::string_view source) {
  const std::string src(source);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(src + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range.406: a number such as 1e400
    const std::string what = e.what();            // "[json.exception.out_of_range.406] number overflow ..."
    const auto cut = what.find("] ");
    throw Error(src + ": not valid JSON (" + (cut == std::string::npos ? what : what.substr(cut + 2)) + ")");
  }
  auto fail = [&](const std::string& why) { throw Error(src + ": " + why); };
  if (!j.is_object() || !j.contains("format") || j["format"] != "tendyn-scene")
    fail("not a tendyn scene (\"format\" must be \"tendyn-scene\")");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != 1)
    fail("unsupported scene version (this viewer reads version 1)");
  for (const char* key : {"points", "rods", "cables", "frames"})
    if (!j.contains(key)) fail(std::string("missing \"") + key + "\"");
  if (!j["points"].is_array()) fail("\"points\" must be an array");
  const auto np = static_cast<long>(j["points"].size());
  auto check_ends = [&](const char* key) {
    if (!j[key].is_array()) fail(std::string("\"") + key + "\" must be an array");
    for (std::size_t i = 0; i < j[key].size(); ++i) {
      const auto& e = j[key][i];
      for (const char* end : {"a", "b"})
        if (!e.is_object() || !e.contains(end) || !e[end].is_number_integer() || e[end].get<long>() < 0 || e[end].get<long>() >= np)
          fail(std::string(key) + "[" + std::to_string(i) + "]." + end + ": missing or not a point index in [0, " + std::to_string(np) +
               ")");
    }
  };
  check_ends("rods");
  check_ends("cables");
  std::size_t njoint = 0;
  if (j.contains("joints")) {
    if (!j["joints"].is_array()) fail("\"joints\" must be an array");
    njoint = j["joints"].size();
    for (std::size_t i = 0; i < njoint; ++i) {
      const auto& e = j["joints"][i];
      if (!e.is_object() || !e.contains("point") || !e["point"].is_number_integer() || e["point"].get<long>() < 0 ||
          e["point"].get<long>() >= np)
        fail("joints[" + std::to_string(i) + "].point: missing or not a point index in [0, " + std::to_string(np) + ")");
    }
  }
  if (j.contains("paths")) {
    if (!j["paths"].is_array()) fail("\"paths\" must be an array");
    for (std::size_t i = 0; i < j["paths"].size(); ++i) {
      const auto& e = j["paths"][i];
      if (!e.is_object() || !e.contains("points_m") || !e["points_m"].is_array())
        fail("paths[" + std::to_string(i) + "].points_m must be an array of [x, y, z]");
      for (std::size_t k = 0; k < e["points_m"].size(); ++k) {
        const auto& q = e["points_m"][k];
        if (!q.is_array() || q.size() != 3 || !q[0].is_number() || !q[1].is_number() || !q[2].is_number())
          fail("paths[" + std::to_string(i) + "].points_m[" + std::to_string(k) + "] must be [x, y, z]");
      }
    }
  }
  if (j.contains("clouds")) {
    if (!j["clouds"].is_array()) fail("\"clouds\" must be an array");
    for (std::size_t i = 0; i < j["clouds"].size(); ++i) {
      const auto& e = j["clouds"][i];
      const std::string where = "clouds[" + std::to_string(i) + "]";
      if (!e.is_object() || !e.contains("points_m") || !e["points_m"].is_array()) fail(where + ".points_m must be an array of [x, y, z]");
      const std::size_t n = e["points_m"].size();
      for (std::size_t k = 0; k < n; ++k) {
        const auto& q = e["points_m"][k];
        if (!q.is_array() || q.size() != 3 || !q[0].is_number() || !q[1].is_number() || !q[2].is_number())
          fail(where + ".points_m[" + std::to_string(k) + "] must be [x, y, z]");
      }
      if (!e.contains("values") || !e["values"].is_array() || e["values"].size() != n)
        fail(where + ".values must have one number (or null) per point (" + std::to_string(n) + ")");
      for (const auto& v : e["values"])
        if (!v.is_number() && !v.is_null()) fail(where + ".values must hold numbers or null");
      if (e.contains("highlight")) {
        if (!e["highlight"].is_array()) fail(where + ".highlight must be an array of point indices");
        for (const auto& h : e["highlight"])
          if (!h.is_number_integer() || h.get<long>() < 0 || h.get<std::size_t>() >= n)
            fail(where + ".highlight: " + h.dump() + " is not a point index in [0, " + std::to_string(n) + ")");
      }
    }
  }
  const auto& f = j["frames"];
  if (!f.is_object() || !f.contains("t_s") || !f["t_s"].is_array() || !f.contains("positions_m") || !f["positions_m"].is_array())
    fail("\"frames\" must hold arrays \"t_s\" and \"positions_m\"");
  const std::size_t nf = f["t_s"].size();
  if (f["positions_m"].size() != nf)
    fail("frames.positions_m has " + std::to_string(f["positions_m"].size()) + " frames, t_s " + std::to_string(nf));
  for (std::size_t i = 0; i < nf; ++i)
    if (!f["positions_m"][i].is_array() || static_cast<long>(f["positions_m"][i].size()) != 3 * np)
      fail("frames.positions_m[" + std::to_string(i) + "] must have 3 x " + std::to_string(np) + " numbers");
  const std::size_t nc = j["cables"].size();
  for (const char* key : {"cable_tension_N", "cable_strain"}) {
    if (!f.contains(key)) continue;
    if (!f[key].is_array() || f[key].size() != nf) fail(std::string("frames.") + key + " must have one row per frame");
    for (std::size_t i = 0; i < nf; ++i)
      if (!f[key][i].is_array() || f[key][i].size() != nc)
        fail(std::string("frames.") + key + "[" + std::to_string(i) + "] must have " + std::to_string(nc) + " numbers");
  }
  if (f.contains("contact_force_N")) {
    const auto& cf = f["contact_force_N"];
    if (!cf.is_array() || cf.size() != nf) fail("frames.contact_force_N must have one row per frame");
    for (std::size_t i = 0; i < nf; ++i)
      if (!cf[i].is_array() || static_cast<long>(cf[i].size()) != 3 * np)
        fail("frames.contact_force_N[" + std::to_string(i) + "] must have 3 x " + std::to_string(np) + " numbers");
  }
  if (f.contains("joint_axes_W")) {
    const auto& ax = f["joint_axes_W"];
    if (!ax.is_array() || ax.size() != nf) fail("frames.joint_axes_W must have one row per frame");
    for (std::size_t i = 0; i < nf; ++i)
      if (!ax[i].is_array() || ax[i].size() != 3 * njoint)
        fail("frames.joint_axes_W[" + std::to_string(i) + "] must have 3 x " + std::to_string(njoint) + " numbers");
  }
  return j.contains("title") && j["title"].is_string() ? j["title"].get<std::string>() : std::string();
}

namespace {

/// Every stride-th element of `a` (and its last), in place.
void keep_every(nlohmann::json& a, std::size_t stride) {
  const std::size_t n = a.size();
  if (stride <= 1 || n < 2) return;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < n; i += stride) out.push_back(std::move(a[i]));
  if ((n - 1) % stride != 0) out.push_back(std::move(a[n - 1]));
  a = std::move(out);
}

/// The scene `j` with every stride-th frame (docs: page_scene_json).
nlohmann::json thin_scene(const nlohmann::json& j, std::size_t stride) {
  nlohmann::json t = j;
  const std::size_t nf = j["frames"]["t_s"].size();
  auto per_frame = [nf](const nlohmann::json& a) { return a.is_array() && a.size() == nf; };
  for (auto& [key, v] : t["frames"].items()) {
    if (per_frame(v))
      keep_every(v, stride);
    else if (v.is_object())
      for (auto& [k2, w] : v.items())
        if (per_frame(w)) keep_every(w, stride);
  }
  if (t.contains("paths") && t["paths"].is_array())
    for (auto& p : t["paths"])
      if (p.is_object() && p.value("per_frame", false) && p.contains("points_m") && per_frame(p["points_m"]))
        keep_every(p["points_m"], stride);
  if (t.contains("plots") && t["plots"].is_array())
    for (auto& p : t["plots"]) {
      if (!p.is_object() || !p.contains("series") || !p["series"].is_array()) continue;
      const bool own = p.contains("t_s") && p["t_s"].is_array();
      const std::size_t n = own ? p["t_s"].size() : nf;
      if (own) keep_every(p["t_s"], stride);
      for (auto& se : p["series"])
        if (se.is_object() && se.contains("values") && se["values"].is_array() && se["values"].size() == n)
          keep_every(se["values"], stride);
    }
  t["thinned"] = {{"stride", stride}, {"frames_in_run", nf}};
  return t;
}

// ---- the plots' data in compact binary form (docs/VIEWER.md "Long runs": "plot_data")

static_assert(std::endian::native == std::endian::little, "plot_data is little-endian: the page's readers assume it");

/// RFC 4648 base64 of `bytes` (with padding).
std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  o.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{b[i]} << 16) | (std::uint32_t{b[i + 1]} << 8) | b[i + 2];
    o += kDigits[(v >> 18) & 63];
    o += kDigits[(v >> 12) & 63];
    o += kDigits[(v >> 6) & 63];
    o += kDigits[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const std::uint32_t v = std::uint32_t{b[i]} << 16;
    o += kDigits[(v >> 18) & 63];
    o += kDigits[(v >> 12) & 63];
    o += "==";
  } else if (i + 2 == bytes.size()) {
    const std::uint32_t v = (std::uint32_t{b[i]} << 16) | (std::uint32_t{b[i + 1]} << 8);
    o += kDigits[(v >> 18) & 63];
    o += kDigits[(v >> 12) & 63];
    o += kDigits[(v >> 6) & 63];
    o += '=';
  }
  return o;
}

double number_or_nan(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN(); }

/// The samples of a column of n values (at(i): value i) kept in a page's plot_data: every value for
/// bucket 1, else per bucket of k consecutive rows its smallest and its largest value in the order
/// they occur (one value for a bucket of one row; NaNs skipped, NaN when the bucket has no number).
template <class At>
std::vector<double> bucket_values(std::size_t n, std::size_t k, const At& at) {
  std::vector<double> out;
  if (k <= 1) {
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(at(i));
    return out;
  }
  out.reserve(2 * (n / k + 1));
  for (std::size_t b = 0; b < n; b += k) {
    const std::size_t e = std::min(n, b + k);
    if (e - b == 1) {
      out.push_back(at(b));
      continue;
    }
    std::size_t lo = n, hi = n;  // n: none yet
    double vlo = std::numeric_limits<double>::quiet_NaN(), vhi = vlo;
    for (std::size_t i = b; i < e; ++i) {
      const double v = at(i);
      if (std::isnan(v)) continue;
      if (lo == n || v < vlo) {
        lo = i;
        vlo = v;
      }
      if (hi == n || v > vhi) {
        hi = i;
        vhi = v;
      }
    }
    if (lo <= hi) {
      out.push_back(vlo);
      out.push_back(vhi);
    } else {
      out.push_back(vhi);
      out.push_back(vlo);
    }
  }
  return out;
}

/// The times of bucket_values' samples: every time for bucket 1, else per bucket its first and its
/// last row's time (one for a bucket of one row).
template <class At>
std::vector<double> bucket_times(std::size_t n, std::size_t k, const At& at) {
  if (k <= 1) return bucket_values(n, 1, at);
  std::vector<double> out;
  for (std::size_t b = 0; b < n; b += k) {
    const std::size_t e = std::min(n, b + k);
    out.push_back(at(b));
    if (e - b > 1) out.push_back(at(e - 1));
  }
  return out;
}

/// The packing of plot_data's blocks (docs/VIEWER.md "plot_data"): per column the IEEE bit patterns'
/// differences of order kDeltaOrder (modulo 2^32, 2^64; the first values kept), the block's bytes
/// shuffled (the first byte of every value, then the second, ...), zlib-deflated, base64. Lossless:
/// slowly varying series turn into small differences whose high bytes are zeros that deflate well
/// (order 1: 0.74 MB of base64 for the 55 series x 60001 rows of the 600 s tower, 17.6 MB plain;
/// order 2 took twice that, and more on the other runs tried).
constexpr int kDeltaOrder = 1;
constexpr const char* kPacking = "delta1+shuffle+deflate";

std::string deflate_bytes(const std::string& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string out(size, '\0');
  const int rc =
      compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), 6);
  if (rc != Z_OK) throw Error("scene: plot data: zlib compress2 failed (code " + std::to_string(rc) + ")");
  out.resize(size);
  return out;
}

/// `values` (columns of n values each, one after the other) as a packed block of W-byte values:
/// float32 (U = uint32) or float64 (U = uint64).
template <class U>
std::string pack_block(const std::vector<double>& values, std::size_t n) {
  using F = std::conditional_t<sizeof(U) == 4, float, double>;
  std::vector<U> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = std::bit_cast<U>(static_cast<F>(values[i]));
  if (n > 0)
    for (std::size_t c0 = 0; c0 < bits.size(); c0 += n)
      for (int d = 0; d < kDeltaOrder; ++d)
        for (std::size_t i = n - 1; i > 0; --i) bits[c0 + i] -= bits[c0 + i - 1];
  constexpr std::size_t W = sizeof(U);
  std::string raw(W * bits.size(), '\0');
  for (std::size_t i = 0; i < bits.size(); ++i)
    for (std::size_t b = 0; b < W; ++b) raw[b * bits.size() + i] = static_cast<char>((bits[i] >> (8 * b)) & 0xffU);
  return base64(deflate_bytes(raw));
}

/// The plotted series of scene `j` for a page: every frame (bucket 1) or the minimum and maximum of
/// every `bucket` frames (bucket_values), packed (kPacking): the page's "plot_data".
nlohmann::json plot_data(const nlohmann::json& j, std::size_t bucket) {
  const auto& f = j["frames"];
  const auto& ft = f["t_s"];
  const std::size_t nf = ft.size();
  auto per_frame = [nf](const nlohmann::json& a) { return a.is_array() && a.size() == nf; };
  const auto t = bucket_times(nf, bucket, [&](std::size_t i) { return number_or_nan(ft[i]); });
  const std::size_t m = t.size();
  nlohmann::json pd = {{"encoding", "base64 of packed little-endian blocks: t_s float64, values float32, series after series"},
                       {"packing", kPacking},
                       {"bucket", bucket},
                       {"samples", m},
                       {"samples_in_run", nf}};
  pd["t_s"] = pack_block<std::uint64_t>(t, m);
  // a per-frame array of rows (nf x width), column by column
  auto columns = [&](const nlohmann::json& rows, std::size_t width) {
    std::vector<double> v;
    v.reserve(width * m);
    for (std::size_t c = 0; c < width; ++c) {
      const auto col = bucket_values(nf, bucket, [&](std::size_t i) {
        const auto& r = rows[i];
        return r.is_array() && c < r.size() ? number_or_nan(r[c]) : std::numeric_limits<double>::quiet_NaN();
      });
      v.insert(v.end(), col.begin(), col.end());
    }
    return pack_block<std::uint32_t>(v, m);
  };
  const std::size_t nc = j.contains("cables") && j["cables"].is_array() ? j["cables"].size() : 0;
  for (const char* key : {"cable_tension_N", "cable_strain"})
    if (nc && f.contains(key) && per_frame(f[key])) pd[key] = columns(f[key], nc);
  if (f.contains("com_m") && per_frame(f["com_m"])) pd["com_m"] = columns(f["com_m"], 3);
  if (f.contains("energy_J") && f["energy_J"].is_object()) {
    nlohmann::json e = nlohmann::json::object();
    for (const auto& [k, v] : f["energy_J"].items()) {
      const nlohmann::json& values = v;
      if (per_frame(values))
        e[k] = pack_block<std::uint32_t>(bucket_values(nf, bucket, [&](std::size_t i) { return number_or_nan(values[i]); }), m);
    }
    pd["energy_J"] = std::move(e);
  }
  if (j.contains("plots") && j["plots"].is_array()) {
    nlohmann::json plots = nlohmann::json::array();
    for (const auto& p : j["plots"]) {
      if (!p.is_object() || !p.contains("series") || !p["series"].is_array()) {
        plots.push_back(nullptr);
        continue;
      }
      const bool own = p.contains("t_s") && p["t_s"].is_array();
      const std::size_t n = own ? p["t_s"].size() : nf;
      std::size_t pm = m;
      nlohmann::json out = nlohmann::json::object();
      if (own) {
        const auto& pt = p["t_s"];
        const auto times = bucket_times(n, bucket, [&](std::size_t i) { return number_or_nan(pt[i]); });
        pm = times.size();
        out["t_s"] = pack_block<std::uint64_t>(times, pm);
        out["samples"] = pm;
      }
      nlohmann::json series = nlohmann::json::array();
      for (const auto& se : p["series"]) {
        if (!(se.is_object() && se.contains("values") && se["values"].is_array() && se["values"].size() == n)) {
          series.push_back(nullptr);
          continue;
        }
        const auto& v = se["values"];
        series.push_back(pack_block<std::uint32_t>(bucket_values(n, bucket, [&](std::size_t i) { return number_or_nan(v[i]); }), pm));
      }
      out["series"] = std::move(series);
      plots.push_back(std::move(out));
    }
    pd["plots"] = std::move(plots);
  }
  return pd;
}

/// The scene thinned to fit `budget` bytes (every k-th frame, k >= 2), or "" when even its first and
/// last frames do not fit. `stride` is the first guess in, the stride found out.
std::string thin_to_fit(const nlohmann::json& j, std::size_t text_size, std::size_t budget, std::size_t& stride_io) {
  const std::size_t nf = j["frames"]["t_s"].size();
  // the first guess from the sizes, then larger strides until the text fits
  auto stride = static_cast<std::size_t>(std::ceil(static_cast<double>(text_size) / static_cast<double>(std::max<std::size_t>(budget, 1))));
  for (int attempt = 0; attempt < 40; ++attempt) {
    stride = std::max<std::size_t>(stride, 2);
    if (nf > 2 && stride > nf - 1) stride = nf - 1;
    std::string out = thin_scene(j, stride).dump();
    if (out.size() <= budget) {
      stride_io = stride;
      return out;
    }
    if (nf <= 2 || stride >= nf - 1) break;
    const double ratio = static_cast<double>(out.size()) / static_cast<double>(std::max<std::size_t>(budget, 1));
    stride = std::max(stride + 1, static_cast<std::size_t>(std::ceil(static_cast<double>(stride) * ratio * 1.02)));
  }
  return {};
}

}  // namespace

std::string page_scene_json(std::string_view text, std::size_t max_bytes, std::string_view source, int* stride_out, int* plot_bucket_out,
                            bool plot_data_kept) {
  std::string_view sj = text;
  while (!sj.empty() && (sj.back() == '\n' || sj.back() == ' ')) sj.remove_suffix(1);
  if (stride_out) *stride_out = 1;
  if (plot_bucket_out) *plot_bucket_out = 1;
  if (sj.size() <= max_bytes) return std::string(sj);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(sj);
  } catch (const nlohmann::json::exception&) {
    throw Error(std::string(source) + ": not valid JSON");
  }
  if (!j.is_object() || !j.contains("frames") || !j["frames"].is_object() || !j["frames"].contains("t_s") || !j["frames"]["t_s"].is_array())
    throw Error(std::string(source) + ": no frames to thin (\"frames\".\"t_s\" missing)");
  const std::size_t nf = j["frames"]["t_s"].size();
  if (plot_data_kept && nf > 2) {
    // the plots' data at every frame when its packed form takes at most kPlotShare of the page,
    // else the minimum and maximum of every k frames, k the smallest bucket that fits; the 3D
    // frames thinned into the rest
    constexpr double kPlotShare = 0.75;
    const auto limit = static_cast<std::size_t>(static_cast<double>(max_bytes) * kPlotShare);
    std::size_t k = 1;
    std::string pd_text;
    for (int attempt = 0; attempt < 40; ++attempt) {
      pd_text = plot_data(j, k).dump();
      if (pd_text.size() <= limit) break;
      if (k >= nf) {
        pd_text.clear();
        break;
      }
      // about 2/k of the full rate's samples: the estimate, then at least one more each time
      const double ratio = static_cast<double>(pd_text.size()) / static_cast<double>(limit);
      k = std::max({k + 1, std::size_t{3}, static_cast<std::size_t>(std::ceil(static_cast<double>(k == 1 ? 2 : k) * ratio))});
      k = std::min(k, nf);
      pd_text.clear();
    }
    if (!pd_text.empty()) {
      std::size_t stride = 2;
      const std::size_t overhead = pd_text.size() + 32;  // ,"plot_data": and the object
      std::string out = max_bytes > overhead ? thin_to_fit(j, sj.size(), max_bytes - overhead, stride) : std::string();
      if (!out.empty()) {
        out.pop_back();  // the closing brace
        out += ",\"plot_data\":";
        out += pd_text;
        out += '}';
        if (out.size() <= max_bytes) {
          if (stride_out) *stride_out = static_cast<int>(stride);
          if (plot_bucket_out) *plot_bucket_out = static_cast<int>(k);
          return out;
        }
      }
    }
  }
  std::size_t stride = 2;
  std::string out = thin_to_fit(j, sj.size(), max_bytes, stride);
  if (out.empty())
    throw Error(std::string(source) + ": the scene does not fit in a page of " + std::to_string(max_bytes) +
                " bytes even with its first and last frames only (raise --max-page-mb)");
  if (stride_out) *stride_out = static_cast<int>(stride);
  if (plot_bucket_out) *plot_bucket_out = 0;
  return out;
}

namespace {
/// "</" would end the <script> element early. In JSON it can only occur inside strings, where
/// "<\/" is the same text.
std::string escape_json_for_script(std::string_view text) {
  std::string o;
  o.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    o += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') o += '\\';
  }
  return o;
}
/// The bundler (esbuild) never emits "</script" outside string literals; inside them "<\/script"
/// is the same text. Anything else in the code is left alone.
std::string escape_js_for_script(std::string_view js) {
  std::string o;
  o.reserve(js.size() + 16);
  for (std::size_t i = 0; i < js.size(); ++i) {
    o += js[i];
    if (js[i] == '<' && i + 7 < js.size() && js[i + 1] == '/') {
      std::string tag(js.substr(i + 2, 6));
      for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (tag == "script") o += '\\';
    }
  }
  return o;
}
std::string page(std::string_view title, std::string_view config, std::string_view scene, std::string_view js, std::string_view css) {
  std::string o;
  o.reserve(scene.size() + js.size() + css.size() + 1024);
  o +=
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  o += io::escape_markup(title);
  o += " - tendyn</title>\n<style>";
  o += css;
  o += "</style>\n</head><body>\n<script type=\"application/json\" id=\"tendyn-config\">";
  o += config;
  o += "</script>\n";
  if (!scene.empty()) {
    o += "<script type=\"application/json\" id=\"tendyn-scene\">";
    o += escape_json_for_script(scene);
    o += "</script>\n";
  }
  o += "<script>";
  o += escape_js_for_script(js);
  o += "</script>\n</body></html>\n";
  return o;
}
}  // namespace

std::string viewer_html(std::string_view scene_json_text, std::string_view title, std::string_view js, std::string_view css) {
  std::string_view sj = scene_json_text;
  while (!sj.empty() && (sj.back() == '\n' || sj.back() == ' ')) sj.remove_suffix(1);
  return page(title, R"({"mode":"viewer"})", sj, js, css);
}

std::string studio_html(std::string_view js, std::string_view css) { return page("studio", R"({"mode":"studio"})", {}, js, css); }

std::string live_html(std::string_view js, std::string_view css) { return page("live", R"({"mode":"live"})", {}, js, css); }

}  // namespace tendyn::viz
