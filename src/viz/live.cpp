// Live view: frames of a running program, the server's store of them and the client that pushes
// them (include/tendyn/viz/live.hpp, docs/VIEWER.md "Live view"). HTTP by cpp-httplib (private).
#include <tendyn/io/csv.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/viz/live.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <limits>
#include <thread>

namespace tendyn::viz {

// ------------------------------------------------------------------------------------------------
// Frames from a tensegrity run

namespace {

void check_data(const tensegrity::Model& m, const tensegrity::Data& d) {
  if (d.p_W_node.cols() != m.nnode() || d.cable_tension_N.size() != m.ncable() || d.cable_rest_length_m.size() != m.ncable())
    throw Error("live view: the data was not made for this model (use make_data(model)): " + std::to_string(d.p_W_node.cols()) +
                " nodes, " + std::to_string(d.cable_tension_N.size()) + " cables; the model has " + std::to_string(m.nnode()) + " and " +
                std::to_string(m.ncable()));
}

}  // namespace

void fill_live_frame(LiveFrame& f, double t_s, const tensegrity::Model& m, const tensegrity::Data& d) {
  check_data(m, d);
  f.t_s = t_s;
  f.positions_m.assign(d.p_W_node.data(), d.p_W_node.data() + d.p_W_node.size());
  f.tension_N.assign(d.cable_tension_N.data(), d.cable_tension_N.data() + d.cable_tension_N.size());
  f.strain.resize(static_cast<std::size_t>(m.ncable()));
  for (int k = 0; k < m.ncable(); ++k) f.strain[static_cast<std::size_t>(k)] = tensegrity::cable_strain(d, k);
  f.has_com = false;
  f.has_energy = false;
}

void fill_live_frame(LiveFrame& f, double t_s, const tensegrity::Model& m, const tensegrity::State& state, const tensegrity::Data& d) {
  tensegrity::check_state_size(m, state, "live view");
  fill_live_frame(f, t_s, m, d);
  const Eigen::Vector3d com = tensegrity::center_of_mass(m, state);
  for (int i = 0; i < 3; ++i) f.com_m[i] = com[i];
  const tensegrity::Energy e = tensegrity::compute_energy(m, state, d);
  f.energy = {e.kinetic_J, e.elastic_J, e.gravitational_J, e.total()};
  f.has_com = true;
  f.has_energy = true;
}

namespace {

/// Appends v in the shortest form that reads back to the same double; null when not finite.
void append_exact(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void append_array(std::string& out, const double* v, std::size_t n) {
  out += '[';
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    append_exact(out, v[i]);
  }
  out += ']';
}

}  // namespace

std::string live_frame_json(const LiveFrame& f) {
  std::string o;
  o.reserve(32 * (f.positions_m.size() + 2 * f.tension_N.size() + 8) + 128);
  o += "{\"t_s\":";
  append_exact(o, f.t_s);
  o += ",\"positions_m\":";
  append_array(o, f.positions_m.data(), f.positions_m.size());
  o += ",\"cable_tension_N\":";
  append_array(o, f.tension_N.data(), f.tension_N.size());
  o += ",\"cable_strain\":";
  append_array(o, f.strain.data(), f.strain.size());
  if (f.has_com) {
    o += ",\"com_m\":";
    append_array(o, f.com_m, 3);
  }
  if (f.has_energy) {
    o += ",\"energy_J\":{\"kinetic\":";
    append_exact(o, f.energy.kinetic_J);
    o += ",\"elastic\":";
    append_exact(o, f.energy.elastic_J);
    o += ",\"gravitational\":";
    append_exact(o, f.energy.gravitational_J);
    o += ",\"total\":";
    append_exact(o, f.energy.total_J);
    o += '}';
  }
  o += '}';
  return o;
}

// ------------------------------------------------------------------------------------------------
// The server's store

namespace {

using json = nlohmann::json;

[[noreturn]] void bad(int status, const std::string& message) { throw LiveRequestError(status, message); }

json parse_body(std::string_view body, const char* what) {
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    bad(400, std::string(what) + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // e.g. a number outside the double range (1e400)
    const std::string w = e.what();
    const auto cut = w.find("] ");
    bad(400, std::string(what) + ": not valid JSON (" + (cut == std::string::npos ? w : w.substr(cut + 2)) + ")");
  }
}

double finite_number(const json& v, const std::string& where) {
  if (!v.is_number()) bad(v.is_null() ? 422 : 400, where + ": " + (v.is_null() ? "not a finite number (null)" : "must be a number"));
  const double x = v.get<double>();
  if (!std::isfinite(x)) bad(422, where + ": not a finite number");
  return x;
}

int point_index(const json& v, int npoint, const std::string& where) {
  if (!v.is_number_integer()) bad(400, where + ": must be an integer point index");
  const long long i = v.get<long long>();
  if (i < 0 || i >= npoint) bad(422, where + ": point index " + std::to_string(i) + " out of range [0, " + std::to_string(npoint) + ")");
  return static_cast<int>(i);
}

std::string string_field(const json& j, const char* key, const std::string& where, const std::string& fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_string()) bad(400, where + "." + key + ": must be a string");
  return j[key].get<std::string>();
}

const json& array_field(const json& j, const char* key, const std::string& where, bool required) {
  static const json empty = json::array();
  if (!j.contains(key) || j[key].is_null()) {
    if (required) bad(400, where + "." + key + ": missing");
    return empty;
  }
  if (!j[key].is_array()) bad(400, where + "." + key + ": must be an array");
  return j[key];
}

Scene scene_from_json(const json& j) {
  if (!j.is_object()) bad(400, "scene: must be a JSON object");
  if (j.contains("format") && j["format"] != "tendyn-scene") bad(422, "scene.format: must be \"tendyn-scene\"");
  if (j.contains("version") && j["version"] != 1) bad(422, "scene.version: unsupported (this viewer reads version 1)");
  Scene s;
  s.title = string_field(j, "title", "scene", "live");
  s.kind = string_field(j, "kind", "scene", "tensegrity");
  if (j.contains("ground_z_m") && !j["ground_z_m"].is_null()) s.ground_z_m = finite_number(j["ground_z_m"], "scene.ground_z_m");
  if (j.contains("cable_force_signed")) {
    if (!j["cable_force_signed"].is_boolean()) bad(400, "scene.cable_force_signed: must be true or false");
    s.cable_force_signed = j["cable_force_signed"].get<bool>();
  }
  const json& points = array_field(j, "points", "scene", true);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].is_string()) bad(400, "scene.points[" + std::to_string(i) + "]: must be a string (the point's name)");
    s.points.push_back(points[i].get<std::string>());
  }
  const int np = s.npoint();
  const json& rods = array_field(j, "rods", "scene", false);
  for (std::size_t i = 0; i < rods.size(); ++i) {
    const std::string where = "scene.rods[" + std::to_string(i) + "]";
    const json& r = rods[i];
    if (!r.is_object()) bad(400, where + ": must be an object");
    SceneRod rod;
    rod.name = string_field(r, "name", where, "rod" + std::to_string(i));
    rod.a = point_index(r.value("a", json()), np, where + ".a");
    rod.b = point_index(r.value("b", json()), np, where + ".b");
    if (r.contains("radius_m")) rod.radius_m = finite_number(r["radius_m"], where + ".radius_m");
    if (rod.radius_m < 0.0) bad(422, where + ".radius_m: must be >= 0");
    const std::string shape = string_field(r, "shape", where, "cylinder");
    if (shape != "cylinder" && shape != "capsule") bad(422, where + ".shape: must be \"cylinder\" or \"capsule\"");
    rod.capsule = shape == "capsule";
    s.rods.push_back(std::move(rod));
  }
  const json& cables = array_field(j, "cables", "scene", false);
  for (std::size_t i = 0; i < cables.size(); ++i) {
    const std::string where = "scene.cables[" + std::to_string(i) + "]";
    const json& c = cables[i];
    if (!c.is_object()) bad(400, where + ": must be an object");
    s.cables.push_back({string_field(c, "name", where, "cable" + std::to_string(i)), point_index(c.value("a", json()), np, where + ".a"),
                        point_index(c.value("b", json()), np, where + ".b")});
  }
  const json& faces = array_field(j, "faces", "scene", false);
  for (std::size_t i = 0; i < faces.size(); ++i) {
    const std::string where = "scene.faces[" + std::to_string(i) + "]";
    if (!faces[i].is_array() || faces[i].size() < 3) bad(422, where + ": must list at least 3 point indices");
    std::vector<int> face;
    for (std::size_t k = 0; k < faces[i].size(); ++k) face.push_back(point_index(faces[i][k], np, where + "[" + std::to_string(k) + "]"));
    s.faces.push_back(std::move(face));
  }
  try {
    validate(s);
  } catch (const Error& e) {
    bad(422, e.what());
  }
  return s;
}

/// Reads `n` finite numbers of an array field (flat, or as rows of `row` numbers when `row` > 0).
void read_numbers(const json& v, std::size_t n, int row, const std::string& where, const std::string& expected, std::vector<double>& out) {
  if (!v.is_array()) bad(400, where + ": must be an array");
  out.clear();
  if (row > 0 && !v.empty() && v[0].is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_array() || v[i].size() != static_cast<std::size_t>(row))
        bad(422, where + "[" + std::to_string(i) + "]: must be [x, y, z]");
      for (std::size_t k = 0; k < v[i].size(); ++k)
        out.push_back(finite_number(v[i][k], where + "[" + std::to_string(i) + "][" + std::to_string(k) + "]"));
    }
  } else {
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(finite_number(v[i], where + "[" + std::to_string(i) + "]"));
  }
  if (out.size() != n) bad(422, where + ": " + std::to_string(out.size()) + " numbers, expected " + expected);
}

LiveFrame frame_from_json(const json& f, const Scene& s, const std::string& where) {
  if (!f.is_object()) bad(400, where + ": must be an object");
  LiveFrame out;
  if (!f.contains("t_s")) bad(400, where + ".t_s: missing");
  out.t_s = finite_number(f["t_s"], where + ".t_s");
  const auto np = static_cast<std::size_t>(s.npoint()), nc = static_cast<std::size_t>(s.ncable());
  if (!f.contains("positions_m")) bad(400, where + ".positions_m: missing");
  read_numbers(f["positions_m"], 3 * np, 3, where + ".positions_m", "3 x " + std::to_string(np) + " points = " + std::to_string(3 * np),
               out.positions_m);
  const std::string per_cable = std::to_string(nc) + " (one per cable)";
  if (f.contains("cable_tension_N") && !f["cable_tension_N"].is_null())
    read_numbers(f["cable_tension_N"], nc, 0, where + ".cable_tension_N", per_cable, out.tension_N);
  else if (nc > 0)
    bad(400, where + ".cable_tension_N: missing");
  if (f.contains("cable_strain") && !f["cable_strain"].is_null())
    read_numbers(f["cable_strain"], nc, 0, where + ".cable_strain", per_cable, out.strain);
  else
    out.strain.assign(nc, 0.0);
  if (f.contains("com_m") && !f["com_m"].is_null()) {
    std::vector<double> c;
    read_numbers(f["com_m"], 3, 0, where + ".com_m", "3 (x, y, z)", c);
    std::copy(c.begin(), c.end(), out.com_m);
    out.has_com = true;
  }
  if (f.contains("energy_J") && !f["energy_J"].is_null()) {
    const json& e = f["energy_J"];
    if (!e.is_object()) bad(400, where + ".energy_J: must be an object {kinetic, elastic, gravitational, total}");
    double* dst[4] = {&out.energy.kinetic_J, &out.energy.elastic_J, &out.energy.gravitational_J, &out.energy.total_J};
    const char* keys[4] = {"kinetic", "elastic", "gravitational", "total"};
    for (int k = 0; k < 4; ++k) {
      if (!e.contains(keys[k])) bad(400, where + ".energy_J." + keys[k] + ": missing");
      *dst[k] = finite_number(e[keys[k]], where + ".energy_J." + keys[k]);
    }
    out.has_energy = true;
  }
  return out;
}

/// Drops the first k frames of the scene's per-frame arrays.
void drop_front(Scene& s, std::size_t k) {
  auto drop = [k](std::vector<double>& v, std::size_t stride) {
    const std::size_t n = std::min(v.size(), k * stride);
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
  };
  const auto np3 = 3 * static_cast<std::size_t>(s.npoint()), nc = static_cast<std::size_t>(s.ncable());
  drop(s.t_s, 1);
  drop(s.positions_m, np3);
  drop(s.tension_N, nc);
  drop(s.strain, nc);
  drop(s.com_m, 3);
  for (auto* e : {&s.kinetic_J, &s.elastic_J, &s.gravitational_J, &s.total_J}) drop(*e, 1);
}

void clear_frames(Scene& s) {
  for (auto* v : {&s.t_s, &s.positions_m, &s.tension_N, &s.strain, &s.com_m, &s.kinetic_J, &s.elastic_J, &s.gravitational_J, &s.total_J})
    v->clear();
}

}  // namespace

LiveStore::LiveStore(int capacity) : capacity_(std::max(1, capacity)) {}

long LiveStore::set_scene(std::string_view body) {
  Scene s = scene_from_json(parse_body(body, "scene"));
  std::string header = scene_header_json(s);
  {
    std::lock_guard lock(mutex_);
    scene_ = std::move(s);
    header_json_ = std::move(header);
    base_ = 0;
    ++session_;
    paused_ = false;  // a new program is not held by an earlier one's pause
    steps_left_ = 0;
  }
  changed_.notify_all();
  return session();
}

int LiveStore::push_frames(std::string_view body) {
  const json j = parse_body(body, "frame");
  std::lock_guard lock(mutex_);
  if (session_ == 0) bad(409, "no scene yet: POST /live/scene first (LiveClient::send_scene, tendyn.viewer.show)");
  std::vector<LiveFrame> frames;
  if (j.is_object() && j.contains("frames") && !j.contains("t_s")) {
    if (!j["frames"].is_array()) bad(400, "frames: must be an array of frames");
    for (std::size_t i = 0; i < j["frames"].size(); ++i)
      frames.push_back(frame_from_json(j["frames"][i], scene_, "frames[" + std::to_string(i) + "]"));
  } else {
    frames.push_back(frame_from_json(j, scene_, "frame"));
  }
  // COM and energies in every frame of a session or in none (checked for the whole batch first,
  // a time going back starting a new session as below).
  bool have = scene_.nframe() > 0;
  bool com = !scene_.com_m.empty(), energy = !scene_.kinetic_J.empty();
  double last_t = have ? scene_.t_s.back() : -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const LiveFrame& f = frames[i];
    if (f.t_s < last_t) have = false;
    if (!have) {
      com = f.has_com;
      energy = f.has_energy;
      have = true;
    } else if (f.has_com != com || f.has_energy != energy) {
      bad(422, (frames.size() > 1 ? "frames[" + std::to_string(i) + "]" : std::string("frame")) +
                   ": com_m and energy_J must be in every frame of a session or in none (the previous frames " + (com ? "have" : "lack") +
                   " com_m, " + (energy ? "have" : "lack") + " energy_J)");
    }
    last_t = f.t_s;
  }
  for (const LiveFrame& f : frames) {
    if (scene_.nframe() > 0 && f.t_s < scene_.t_s.back()) {  // time went back: a new session
      clear_frames(scene_);
      base_ = 0;
      ++session_;
    }
    add_frame(scene_, f.t_s, f.positions_m, f.tension_N, f.strain, f.has_com ? f.com_m : nullptr, f.has_energy ? &f.energy : nullptr);
  }
  // keep between capacity and 1.25 capacity frames (amortised O(1) per frame)
  if (scene_.nframe() > capacity_ + capacity_ / 4) {
    const int k = scene_.nframe() - capacity_;
    drop_front(scene_, static_cast<std::size_t>(k));
    base_ += k;
  }
  changed_.notify_all();
  return static_cast<int>(frames.size());
}

std::string LiveStore::state_json(long session, long after, int max_frames, bool in_order) const {
  std::lock_guard lock(mutex_);
  const long count = base_ + scene_.nframe();
  // a page with more frames than the session has talks to an earlier server process: start over
  const bool fresh = session != session_ || after > count;
  long first = std::max({after, count - std::max(0, max_frames), base_});
  if (fresh) first = std::max(count - std::max(0, max_frames), base_);
  if (in_order) first = fresh ? base_ : std::max(after, base_);
  first = std::min(first, count);
  const long last = in_order ? std::min(count, first + std::max(0, max_frames)) : count;
  std::string o = "{\"session\":" + std::to_string(session_) + ",\"count\":" + std::to_string(count) +
                  ",\"first\":" + std::to_string(first) + ",\"paused\":" + (paused_ ? "true" : "false") +
                  ",\"steps_left\":" + std::to_string(steps_left_);
  if (fresh) o += ",\"scene\":" + (session_ == 0 ? std::string("null") : header_json_);
  o += ",\"frames\":";
  o += frames_json(scene_, static_cast<int>(first - base_), static_cast<int>(last - base_));
  o += '}';
  return o;
}

bool LiveStore::wait(long session, long after, double timeout_s) const {
  std::unique_lock lock(mutex_);
  const bool was_paused = paused_;
  const long was_steps = steps_left_;
  return changed_.wait_for(lock, std::chrono::duration<double>(std::max(0.0, timeout_s)), [&] {
    return session_ != session || base_ + scene_.nframe() != after || paused_ != was_paused || steps_left_ != was_steps;
  });
}

long LiveStore::session() const {
  std::lock_guard lock(mutex_);
  return session_;
}

std::string LiveStore::control(std::string_view body) {
  const json j = parse_body(body, "control");
  if (!j.is_object()) bad(400, "control: must be an object {\"action\": \"pause\" | \"resume\" | \"step\", \"frames\": N}");
  if (!j.contains("action") || !j["action"].is_string()) bad(400, "control.action: must be a string (pause, resume or step)");
  const std::string action = j["action"].get<std::string>();
  long frames = 1;
  if (j.contains("frames")) {
    if (!j["frames"].is_number_integer()) bad(400, "control.frames: must be an integer");
    frames = j["frames"].get<long>();
    if (frames < 1 || frames > 1000000) bad(422, "control.frames: " + std::to_string(frames) + " out of range [1, 1000000]");
  }
  {
    std::lock_guard lock(mutex_);
    if (action == "pause") {
      paused_ = true;
      steps_left_ = 0;
    } else if (action == "resume") {
      paused_ = false;
      steps_left_ = 0;
    } else if (action == "step") {
      paused_ = true;
      steps_left_ = frames;
    } else {
      bad(422, "control.action: unknown action '" + action + "' (pause, resume or step)");
    }
  }
  changed_.notify_all();
  return control_json();
}

bool LiveStore::permit(double timeout_s) {
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, std::chrono::duration<double>(std::max(0.0, timeout_s)), [&] { return !paused_ || steps_left_ > 0; }))
    return false;
  if (paused_) --steps_left_;
  changed_.notify_all();  // pages see the step count go down
  return true;
}

std::string LiveStore::control_json() const {
  std::lock_guard lock(mutex_);
  return std::string("{\"paused\":") + (paused_ ? "true" : "false") + ",\"steps_left\":" + std::to_string(steps_left_) + "}";
}

bool LiveStore::paused() const {
  std::lock_guard lock(mutex_);
  return paused_;
}

long LiveStore::count() const {
  std::lock_guard lock(mutex_);
  return base_ + scene_.nframe();
}

// ------------------------------------------------------------------------------------------------
// The client

std::string live_token_path(int port) {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  const char* home = std::getenv("HOME");
  std::string dir;
  if (runtime != nullptr && *runtime != '\0')
    dir = std::string(runtime) + "/tendyn";
  else if (home != nullptr && *home != '\0')
    dir = std::string(home) + "/.cache/tendyn";
  else
    return {};
  return dir + "/serve-" + std::to_string(port) + ".token";
}

std::string find_serve_token(int port, const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("TENDYN_SERVE_TOKEN"); env != nullptr && *env != '\0') return env;
  const std::string path = live_token_path(port);
  if (path.empty()) return {};
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return {};
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line.size() <= 256 ? line : std::string();
}

namespace {

bool is_loopback_host(const std::string& h) { return h == "127.0.0.1" || h == "localhost" || h == "::1"; }

std::chrono::microseconds micros(double s) { return std::chrono::microseconds(static_cast<long long>(s * 1e6)); }

/// One request's client, with the options' timeouts. ::1 needs the bracketed Host header.
std::unique_ptr<httplib::Client> make_http(const std::string& host, int port, double timeout_s) {
  auto c = std::make_unique<httplib::Client>(host, port);
  const auto t = micros(timeout_s);
  const auto sec = static_cast<time_t>(t.count() / 1000000), usec = static_cast<time_t>(t.count() % 1000000);
  c->set_connection_timeout(sec, usec);
  c->set_read_timeout(sec, usec);
  c->set_write_timeout(sec, usec);
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);  // headers and body go out at once (Nagle + delayed ACK would add 40 ms per post)
  return c;
}

/// The server's {"error": ...} message, or the start of the body.
std::string answer_message(const httplib::Response& r) {
  try {
    const auto j = json::parse(r.body);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  } catch (const json::exception&) {}
  return r.body.substr(0, 200);
}

}  // namespace

struct LiveClient::Impl {
  LiveClientOptions options;
  std::string host;
  int port = 0;
  std::string base_url;  // http://HOST:PORT
  std::string token;     // the server's secret ("" when none was found)
  httplib::Headers headers;
  std::unique_ptr<httplib::Client> http;  // connect and send_scene (the caller's thread)
  std::thread sender;

  mutable std::mutex mutex;
  std::condition_variable wake, done, space;
  LiveFrame pending, sending, scratch;
  std::deque<LiveFrame> queue;  // keep_all: the frames not yet posted, oldest first
  bool paced = false;           // realtime_factor: the clock started
  double pace_t0_s = 0.0;
  std::chrono::steady_clock::time_point pace_wall0;
  bool has_pending = false;
  bool stop = false;
  std::atomic<bool> server_paused{false};  // the last answer said: the page paused the program
  bool last_ok = true;
  long given_seq = 0, done_seq = 0;
  LiveStats stats;

  std::unique_ptr<tensegrity::Data> data;  // send_frame(t, model, state)

  /// "" on success, else the reason.
  std::string post(httplib::Client& c, const char* path, const std::string& body) {
    auto res = c.Post(path, headers, body, "application/json");
    if (!res) return "no tendyn serve at " + base_url + " (" + httplib::to_string(res.error()) + ")";
    if (res->status != 200) return base_url + path + ": HTTP " + std::to_string(res->status) + ": " + answer_message(*res);
    server_paused = res->body.find("\"paused\":true") != std::string::npos;
    return {};
  }

  /// While the page holds the program paused: waits (the caller's thread) for a permit to
  /// publish one frame (the page resumed, or a step). A failed request ends the wait.
  void wait_while_paused() {
    if (!server_paused || !http) return;
    while (server_paused) {
      auto res = http->Post("/live/permit", headers, "{}", "application/json");
      if (!res || res->status != 200) {
        server_paused = false;  // no server (or an older one): never hold the program
        break;
      }
      if (res->body.find("\"granted\":true") != std::string::npos) {
        server_paused = res->body.find("\"paused\":true") != std::string::npos;
        break;
      }
    }
    std::lock_guard lock(mutex);
    paced = false;  // real-time pacing starts again from here, not catching up on the pause
  }

  void run() {
    auto c = make_http(host, port, options.timeout_s);
    const auto period = micros(1.0 / options.max_rate_hz);
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return stop || has_pending || !queue.empty(); });
      if (!has_pending && queue.empty()) break;  // stopping, nothing left
      std::string body;
      std::size_t taken = 0;
      if (options.keep_all) {
        // a batch of the oldest queued frames, under the server's body limit
        constexpr std::size_t kMaxBatchBytes = 900u << 10;
        body = "{\"frames\":[";
        while (taken < queue.size()) {
          std::string one = live_frame_json(queue[taken]);
          if (taken > 0 && body.size() + one.size() + 2 > kMaxBatchBytes) break;
          if (taken > 0) body += ',';
          body += one;
          ++taken;
        }
        body += "]}";
        queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(taken));
        space.notify_all();
      } else {
        std::swap(pending, sending);
        has_pending = false;
      }
      const long seq = options.keep_all ? given_seq - static_cast<long>(queue.size()) : given_seq;
      const bool more = !queue.empty();
      lock.unlock();
      const auto start = std::chrono::steady_clock::now();
      if (!options.keep_all) body = live_frame_json(sending);
      const std::string err = post(*c, "/live/frame", body);
      lock.lock();
      if (err.empty()) {
        stats.sent += options.keep_all ? static_cast<long>(taken) : 1;
        stats.last_error.clear();
      } else {
        ++stats.failed;
        stats.last_error = err;
      }
      last_ok = err.empty();
      done_seq = seq;
      done.notify_all();
      if (more && err.empty()) continue;                            // a full batch: the next one at once
      wake.wait_until(lock, start + period, [&] { return stop; });  // the rate limit
    }
  }

  /// Waits until the frame's time is due (realtime_factor > 0); the caller's thread.
  void pace(double t_s) {
    if (!(options.realtime_factor > 0.0)) return;
    const auto now = std::chrono::steady_clock::now();
    if (!paced || t_s < pace_t0_s) {
      paced = true;
      pace_t0_s = t_s;
      pace_wall0 = now;
      return;
    }
    const auto due = pace_wall0 + micros((t_s - pace_t0_s) / options.realtime_factor);
    if (due > now) std::this_thread::sleep_until(due);
  }

  bool store(LiveFrame& frame) {  // swaps `frame` into the slot (or the queue)
    wait_while_paused();
    pace(frame.t_s);
    {
      std::unique_lock lock(mutex);
      if (options.keep_all) {
        if (static_cast<int>(queue.size()) >= kLiveMaxQueuedFrames &&
            !space.wait_for(lock, micros(options.timeout_s), [&] { return static_cast<int>(queue.size()) < kLiveMaxQueuedFrames; })) {
          queue.erase(queue.begin());
          ++stats.replaced;
        }
        queue.push_back(frame);
      } else {
        if (has_pending) ++stats.replaced;
        std::swap(pending, frame);
        has_pending = true;
      }
      ++given_seq;
      ++stats.given;
    }
    wake.notify_one();
    std::lock_guard lock(mutex);
    return last_ok;
  }
};

LiveClient::LiveClient() : LiveClient(LiveClientOptions{}) {}

LiveClient::LiveClient(const LiveClientOptions& options) : impl_(std::make_unique<Impl>()) {
  if (!(options.max_rate_hz > 0.0) || !std::isfinite(options.max_rate_hz))
    throw Error("live view: max_rate_hz must be > 0 (got " + format_number(options.max_rate_hz) + ")");
  if (!(options.timeout_s > 0.0) || !std::isfinite(options.timeout_s))
    throw Error("live view: timeout_s must be > 0 (got " + format_number(options.timeout_s) + ")");
  if (!(options.realtime_factor >= 0.0) || !std::isfinite(options.realtime_factor))
    throw Error("live view: realtime_factor must be >= 0 and finite (got " + format_number(options.realtime_factor) +
                "; 0: no pacing, 1: real time)");
  impl_->options = options;
}

LiveClient::~LiveClient() { close(); }

void LiveClient::connect(const std::string& host, int port) {
  if (!is_loopback_host(host))
    throw Error("live view: host '" + host +
                "' is not a loopback address (127.0.0.1, localhost or ::1): tendyn serve takes live frames from this machine only");
  if (port < 1 || port > 65535) throw Error("live view: port must be in 1..65535 (got " + std::to_string(port) + ")");
  close();
  Impl& s = *impl_;
  s.host = host;
  s.port = port;
  const std::string authority = (host == "::1" ? "[::1]" : host) + ":" + std::to_string(port);
  s.base_url = "http://" + authority;
  s.token = find_serve_token(port, s.options.token);
  s.headers = {{"Host", authority}};
  if (!s.token.empty()) s.headers.emplace("X-Tendyn-Token", s.token);
  s.http = make_http(host, port, s.options.timeout_s);
  auto res = s.http->Get("/live/health", s.headers);
  if (!res) {
    s.http.reset();
    throw Error("live view: no tendyn serve at " + s.base_url + " (" + httplib::to_string(res.error()) +
                "); start one with `tendyn serve --port " + std::to_string(port) + "`");
  }
  if (res->status == 403 && res->body.find("token") != std::string::npos) {
    s.http.reset();
    const std::string file = live_token_path(port);
    throw Error("live view: " + s.base_url + " refused the " + (s.token.empty() ? "missing" : "given") +
                " token (GET /live/health: HTTP 403: " + answer_message(*res) + "); pass the token= of the address tendyn serve printed " +
                "(LiveClientOptions::token, or the environment variable TENDYN_SERVE_TOKEN)" +
                (file.empty() ? std::string() : ", or run the client as the user who started tendyn serve (token file " + file + ")"));
  }
  if (res->status != 200 || res->body.find("\"live\":true") == std::string::npos) {
    s.http.reset();
    throw Error("live view: " + s.base_url + " is not a tendyn serve with the live view (GET /live/health: HTTP " +
                std::to_string(res->status) + ": " + answer_message(*res) + ")");
  }
  {
    std::lock_guard lock(s.mutex);
    s.stop = false;
    s.has_pending = false;
    s.queue.clear();
    s.paced = false;
    s.last_ok = true;
    s.stats = LiveStats{};
    s.given_seq = s.done_seq = 0;
  }
  s.sender = std::thread([&s] { s.run(); });
}

bool LiveClient::connected() const { return impl_->http != nullptr; }

std::string LiveClient::page_url() const {
  if (!impl_->http) return {};
  return impl_->base_url + "/live" + (impl_->token.empty() ? std::string() : "?token=" + impl_->token);
}

void LiveClient::send_scene(const Scene& scene) {
  Impl& s = *impl_;
  if (!s.http) throw Error("live view: send_scene before connect");
  validate(scene);
  {
    std::lock_guard lock(s.mutex);  // a frame of the previous scene would not fit this one
    s.has_pending = false;
    s.queue.clear();
    s.paced = false;
  }
  const std::string err = s.post(*s.http, "/live/scene", scene_header_json(scene));
  if (!err.empty()) throw Error("live view: " + err);
}

void LiveClient::send_scene(const tensegrity::Model& model) {
  send_scene(make_scene(model));
  impl_->data = std::make_unique<tensegrity::Data>(tensegrity::make_data(model));
}

bool LiveClient::send_frame(const LiveFrame& frame) {
  Impl& s = *impl_;
  if (!s.http) return false;
  s.scratch = frame;  // vector copies reuse the scratch's capacity
  return s.store(s.scratch);
}

bool LiveClient::send_frame(double t_s, const tensegrity::Model& model, const tensegrity::State& state, const tensegrity::Data& data) {
  Impl& s = *impl_;
  if (!s.http) return false;
  fill_live_frame(s.scratch, t_s, model, state, data);
  return s.store(s.scratch);
}

bool LiveClient::send_frame(double t_s, const tensegrity::Model& model, const tensegrity::State& state) {
  Impl& s = *impl_;
  tensegrity::check_state_size(model, state, "live view");
  if (!s.data || s.data->p_W_node.cols() != model.nnode() || s.data->cable_tension_N.size() != model.ncable())
    s.data = std::make_unique<tensegrity::Data>(tensegrity::make_data(model));  // once per model
  tensegrity::forward_kinematics(model, state, *s.data);
  tensegrity::compute_element_forces(model, state, *s.data);
  return send_frame(t_s, model, state, *s.data);
}

bool LiveClient::flush(double timeout_s) {
  Impl& s = *impl_;
  if (!s.http) return false;
  std::unique_lock lock(s.mutex);
  const long target = s.given_seq;
  const bool arrived = s.done.wait_for(lock, std::chrono::duration<double>(std::max(0.0, timeout_s)),
                                       [&] { return s.done_seq >= target && !s.has_pending && s.queue.empty(); });
  return arrived && s.last_ok;
}

LiveStats LiveClient::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

void LiveClient::close() {
  Impl& s = *impl_;
  if (!s.sender.joinable()) {
    s.http.reset();
    return;
  }
  flush(s.options.timeout_s);
  {
    std::lock_guard lock(s.mutex);
    s.stop = true;
    s.has_pending = false;  // not delivered within the timeout: dropped
    s.queue.clear();
  }
  s.wake.notify_all();
  s.sender.join();
  s.http.reset();
}

void LiveObserver::on_output(const tensegrity::Model& model, const tensegrity::State& state, const tensegrity::Data& data,
                             const tensegrity::Energy& energy) {
  client_.send_frame(state.time_s, model, state, data);
  if (next_) next_->on_output(model, state, data, energy);
}

}  // namespace tendyn::viz
