// The live view without HTTP: frames filled from a tensegrity run and their JSON, the server's
// store (sessions, sizes, errors, the page's answer, capacity), and the client's errors without a
// server. The client against a real `tendyn serve`: tests/cli/live_cli_test.cpp.
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/viz/live.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <atomic>
#include <thread>

#include "support/error_of.hpp"

namespace tendyn::viz {
namespace {

namespace ts = tensegrity;
using nlohmann::json;

struct Prism {
  ts::Model model = ts::default_model().model;
  ts::State state = model.initial_state;
  ts::Data data = ts::make_data(model);
  Prism() { ts::compute_derivative(model, state, data); }
};

/// The status and message of a LiveRequestError thrown by f.
template <class F>
std::pair<int, std::string> refused(F&& f) {
  try {
    f();
  } catch (const LiveRequestError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

TEST(LiveFrame, FilledFromTheRunAndWrittenExactly) {
  Prism r;
  LiveFrame f;
  fill_live_frame(f, 0.25, r.model, r.state, r.data);
  ASSERT_EQ(f.positions_m.size(), 3u * static_cast<std::size_t>(r.model.nnode()));
  const json j = json::parse(live_frame_json(f));
  EXPECT_EQ(j["t_s"].get<double>(), 0.25);
  for (int i = 0; i < r.model.nnode(); ++i)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(j["positions_m"][static_cast<std::size_t>(3 * i + c)].get<double>(), r.data.p_W_node(c, i));  // bit-exact
  for (int k = 0; k < r.model.ncable(); ++k) {
    EXPECT_EQ(j["cable_tension_N"][static_cast<std::size_t>(k)].get<double>(), r.data.cable_tension_N[k]);
    EXPECT_EQ(j["cable_strain"][static_cast<std::size_t>(k)].get<double>(), ts::cable_strain(r.data, k));
  }
  double tension_sum = 0;
  for (double t : f.tension_N) tension_sum += t;
  EXPECT_GT(tension_sum, 0.0);  // the prism is prestressed
  const Eigen::Vector3d com = ts::center_of_mass(r.model, r.state);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(j["com_m"][static_cast<std::size_t>(c)].get<double>(), com[c]);
  const ts::Energy e = ts::compute_energy(r.model, r.state, r.data);
  EXPECT_EQ(j["energy_J"]["elastic"].get<double>(), e.elastic_J);
  EXPECT_EQ(j["energy_J"]["total"].get<double>(), e.total());
  EXPECT_GT(e.elastic_J, 0.0);
  // from data alone: no COM, no energies
  fill_live_frame(f, 0.5, r.model, r.data);
  const json k = json::parse(live_frame_json(f));
  EXPECT_FALSE(k.contains("com_m"));
  EXPECT_FALSE(k.contains("energy_J"));
  // a non-finite number is written as null (valid JSON), which the store refuses by name
  f.positions_m[4] = std::nan("");
  EXPECT_TRUE(json::parse(live_frame_json(f))["positions_m"][4].is_null());
  // data of another model
  ts::Data other = ts::make_data(ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/tower.yaml").model);
  EXPECT_NE(test::error_of([&] { fill_live_frame(f, 0.0, r.model, other); }).find("the data was not made for this model"),
            std::string::npos);
}

TEST(LiveStore, SessionsFramesAndThePagesAnswer) {
  Prism r;
  LiveStore store;
  EXPECT_EQ(store.session(), 0);
  LiveFrame f;
  fill_live_frame(f, 0.0, r.model, r.state, r.data);
  EXPECT_EQ(refused([&] { store.push_frames(live_frame_json(f)); }).first, 409);  // no scene yet
  // before any scene the page gets "scene": null
  EXPECT_TRUE(json::parse(store.state_json(-1, 0, 100))["scene"].is_null());

  const long s1 = store.set_scene(scene_header_json(make_scene(r.model)));
  EXPECT_EQ(s1, 1);
  for (int i = 0; i < 5; ++i) {
    f.t_s = 0.01 * i;
    f.positions_m[0] = 0.1 * i;
    EXPECT_EQ(store.push_frames(live_frame_json(f)), 1);
  }
  EXPECT_EQ(store.count(), 5);
  // a page that knows nothing: the scene and every frame, 7 significant digits
  json st = json::parse(store.state_json(0, 0, 100));
  EXPECT_EQ(st["session"], 1);
  EXPECT_EQ(st["count"], 5);
  EXPECT_EQ(st["first"], 0);
  EXPECT_EQ(st["scene"]["points"].size(), static_cast<std::size_t>(r.model.nnode()));
  EXPECT_EQ(st["scene"]["cables"].size(), static_cast<std::size_t>(r.model.ncable()));
  ASSERT_EQ(st["frames"]["t_s"].size(), 5u);
  EXPECT_DOUBLE_EQ(st["frames"]["t_s"][4].get<double>(), 0.04);
  EXPECT_DOUBLE_EQ(st["frames"]["positions_m"][4][0].get<double>(), 0.4);
  EXPECT_NEAR(st["frames"]["positions_m"][4][1].get<double>(), f.positions_m[1], 1e-6 * std::fabs(f.positions_m[1]) + 1e-12);
  EXPECT_EQ(st["frames"]["energy_J"]["total"].size(), 5u);
  // a page that has them: nothing new, no scene
  st = json::parse(store.state_json(1, 5, 100));
  EXPECT_FALSE(st.contains("scene"));
  EXPECT_EQ(st["frames"]["t_s"].size(), 0u);
  // a page of an earlier server process (more frames than the session has): the scene again
  st = json::parse(store.state_json(1, 200, 100));
  EXPECT_TRUE(st.contains("scene"));
  EXPECT_EQ(st["first"], 0);
  EXPECT_TRUE(store.wait(1, 200, 0.0));
  // a page that fell behind gets the newest max_frames
  st = json::parse(store.state_json(1, 0, 2));
  EXPECT_EQ(st["first"], 3);
  EXPECT_EQ(st["frames"]["t_s"].size(), 2u);

  // a batch, positions as rows
  json batch = {{"frames", json::array()}};
  for (int i = 0; i < 3; ++i) {
    json fr = json::parse(live_frame_json(f));
    fr["t_s"] = 0.1 + 0.01 * i;
    json rows = json::array();
    for (int n = 0; n < r.model.nnode(); ++n) rows.push_back({f.positions_m[3 * n], f.positions_m[3 * n + 1], 1.5});
    fr["positions_m"] = rows;
    batch["frames"].push_back(fr);
  }
  EXPECT_EQ(store.push_frames(batch.dump()), 3);
  st = json::parse(store.state_json(1, 5, 100));
  EXPECT_EQ(st["first"], 5);
  ASSERT_EQ(st["frames"]["positions_m"].size(), 3u);
  EXPECT_EQ(st["frames"]["positions_m"][2][5].get<double>(), 1.5);

  // time going back: a new session with the same scene
  f.t_s = 0.0;
  store.push_frames(live_frame_json(f));
  EXPECT_EQ(store.session(), 2);
  EXPECT_EQ(store.count(), 1);
  st = json::parse(store.state_json(1, 8, 100));
  EXPECT_EQ(st["scene"]["title"], r.model.name);
  EXPECT_EQ(st["first"], 0);
}

TEST(LiveStore, RefusesMalformedFramesNamingTheField) {
  Prism r;
  LiveStore store;
  store.set_scene(scene_header_json(make_scene(r.model)));
  LiveFrame f;
  fill_live_frame(f, 0.0, r.model, r.state, r.data);
  const int np = r.model.nnode();
  auto frame = [&](auto&& edit) {
    json j = json::parse(live_frame_json(f));
    edit(j);
    return refused([&] { store.push_frames(j.dump()); });
  };
  auto [s1, m1] = frame([](json& j) { j["positions_m"].erase(0); });
  EXPECT_EQ(s1, 422);
  EXPECT_EQ(m1, "frame.positions_m: " + std::to_string(3 * np - 1) + " numbers, expected 3 x " + std::to_string(np) +
                    " points = " + std::to_string(3 * np));
  auto [s2, m2] = frame([](json& j) { j["cable_tension_N"][2] = nullptr; });
  EXPECT_EQ(s2, 422);
  EXPECT_EQ(m2, "frame.cable_tension_N[2]: not a finite number (null)");
  auto [s3, m3] = frame([](json& j) { j["t_s"] = "0"; });
  EXPECT_EQ(s3, 400);
  EXPECT_EQ(m3, "frame.t_s: must be a number");
  auto [s4, m4] = frame([](json& j) { j.erase("cable_tension_N"); });
  EXPECT_EQ(m4, "frame.cable_tension_N: missing");
  EXPECT_EQ(refused([&] { store.push_frames("{\"t_s\": 1e400}"); }).first, 400);
  EXPECT_EQ(refused([&] { store.push_frames("not json"); }).second, "frame: not valid JSON (byte 2)");
  // a batch is checked whole: the bad second frame keeps the first one out too
  json good = json::parse(live_frame_json(f)), worse = good;
  worse["com_m"] = {1, 2};
  const auto [s5, m5] = refused([&] { store.push_frames(json{{"frames", {good, worse}}}.dump()); });
  EXPECT_EQ(s5, 422);
  EXPECT_EQ(m5, "frames[1].com_m: 2 numbers, expected 3 (x, y, z)");
  EXPECT_EQ(store.count(), 0);
  // COM and energies in every frame or none
  store.push_frames(good.dump());
  json bare = good;
  bare.erase("com_m");
  bare.erase("energy_J");
  bare["t_s"] = 0.1;
  EXPECT_NE(frame([&](json& j) { j = bare; }).second.find("com_m and energy_J must be in every frame of a session or in none"),
            std::string::npos);
  // scenes
  EXPECT_EQ(refused([&] { store.set_scene(R"({"points": ["a"], "cables": [{"a": 0, "b": 1}]})"); }).second,
            "scene.cables[0].b: point index 1 out of range [0, 1)");
  EXPECT_EQ(refused([&] { store.set_scene(R"({"rods": []})"); }).second, "scene.points: missing");
  EXPECT_EQ(store.session(), 1);  // refused scenes start nothing
}

TEST(LiveStore, KeepsTheNewestFramesWithinItsCapacityAndWakesPollers) {
  LiveStore store(100);
  store.set_scene(R"({"title": "dot", "points": ["p"]})");
  std::atomic<bool> woke{false};
  std::thread poller([&] { woke = store.wait(1, 0, 5.0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < 1000; ++i)
    store.push_frames(R"({"t_s": )" + std::to_string(i) + R"(, "positions_m": [)" + std::to_string(i) + ", 0, 0]}");
  poller.join();
  EXPECT_TRUE(woke);
  EXPECT_EQ(store.count(), 1000);
  const json st = json::parse(store.state_json(1, 0, 100000));
  const long first = st["first"].get<long>();
  EXPECT_GE(first, 875);  // at most 1.25 x capacity kept
  EXPECT_LE(first, 900);  // at least capacity kept
  EXPECT_EQ(st["frames"]["t_s"].size(), static_cast<std::size_t>(1000 - first));
  EXPECT_EQ(st["frames"]["positions_m"].back()[0].get<double>(), 999.0);
  // nothing new: wait times out
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(store.wait(1, 1000, 0.05));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(45));
}

TEST(LiveClient, ClearErrorsWithoutAServer) {
  LiveClient c;
  EXPECT_FALSE(c.connected());
  EXPECT_FALSE(c.send_frame(LiveFrame{}));  // not connected: nothing stored, no throw
  EXPECT_EQ(
      test::error_of([&] { c.connect("192.0.2.1", 8787); }),
      "live view: host '192.0.2.1' is not a loopback address (127.0.0.1, localhost or ::1): tendyn serve takes live frames from this machine only");
  EXPECT_NE(test::error_of([&] { c.connect("127.0.0.1", 0); }).find("port must be in 1..65535"), std::string::npos);
  // a free loopback port: nothing listens there
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const int port = ntohs(a.sin_port);
  ::close(fd);
  const std::string msg = test::error_of([&] { c.connect("127.0.0.1", port); });
  EXPECT_EQ(msg.rfind("live view: no tendyn serve at http://127.0.0.1:" + std::to_string(port) + " (", 0), 0u) << msg;
  EXPECT_NE(msg.find("start one with `tendyn serve --port " + std::to_string(port) + "`"), std::string::npos) << msg;
  EXPECT_FALSE(c.connected());
  EXPECT_NE(test::error_of([&] { c.send_scene(Scene{}); }).find("send_scene before connect"), std::string::npos);
  EXPECT_NE(test::error_of([] { LiveClient bad(LiveClientOptions{0.0, 1.0, {}}); }).find("max_rate_hz must be > 0"), std::string::npos);
}

TEST(LiveStore, InOrderAnswersGiveTheOldestUnseenFramesWithoutGaps) {
  LiveStore store(1000);
  store.set_scene(R"({"title": "dot", "points": ["p"]})");
  for (int i = 0; i < 500; ++i)
    store.push_frames(R"({"t_s": )" + std::to_string(i) + R"(, "positions_m": [)" + std::to_string(i) + ", 0, 0]}");
  // the newest 100 by default; in order: frames 0..99, then 100..199 (a page catching up)
  json st = json::parse(store.state_json(0, 0, 100));
  EXPECT_EQ(st["first"].get<long>(), 400);
  st = json::parse(store.state_json(0, 0, 100, true));
  EXPECT_EQ(st["first"].get<long>(), 0);
  ASSERT_EQ(st["frames"]["t_s"].size(), 100u);
  EXPECT_EQ(st["frames"]["t_s"].back().get<double>(), 99.0);
  EXPECT_EQ(st["count"].get<long>(), 500);
  st = json::parse(store.state_json(1, 100, 100, true));
  EXPECT_EQ(st["first"].get<long>(), 100);
  ASSERT_EQ(st["frames"]["t_s"].size(), 100u);
  EXPECT_EQ(st["frames"]["t_s"][0].get<double>(), 100.0);
  st = json::parse(store.state_json(1, 450, 100, true));
  EXPECT_EQ(st["frames"]["t_s"].size(), 50u);
  EXPECT_EQ(st["frames"]["t_s"].back().get<double>(), 499.0);
}

TEST(LiveStore, PauseHoldsPermitsAndAStepLetsExactlyNThrough) {
  LiveStore store;
  store.set_scene(R"({"title": "dot", "points": ["p"]})");
  EXPECT_TRUE(store.permit(0.0));  // running: every frame may go
  EXPECT_EQ(json::parse(store.control(R"({"action": "pause"})")), json::parse(R"({"paused": true, "steps_left": 0})"));
  EXPECT_TRUE(store.paused());
  EXPECT_FALSE(store.permit(0.05));  // paused: the program waits
  store.control(R"({"action": "step", "frames": 3})");
  EXPECT_TRUE(store.permit(0.0));
  EXPECT_TRUE(store.permit(0.0));
  EXPECT_TRUE(store.permit(0.0));
  EXPECT_FALSE(store.permit(0.05)) << "a step of 3 let a 4th frame through";
  auto st = json::parse(store.state_json(1, 0, 10));
  EXPECT_EQ(st["paused"], true);
  EXPECT_EQ(st["steps_left"], 0);
  // a waiting permit is granted as soon as the page resumes
  std::thread page([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    store.control(R"({"action": "resume"})");
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(store.permit(5.0));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  page.join();
  EXPECT_FALSE(store.paused());
  // a new program (scene) is not held by an earlier pause
  store.control(R"({"action": "pause"})");
  store.set_scene(R"({"title": "dot", "points": ["p"]})");
  EXPECT_FALSE(store.paused());
  // bad requests name the field
  EXPECT_EQ(refused([&] { store.control(R"({"action": "stop"})"); }),
            std::make_pair(422, std::string("control.action: unknown action 'stop' (pause, resume or step)")));
  EXPECT_EQ(refused([&] { store.control(R"({"action": "step", "frames": 0})"); }),
            std::make_pair(422, std::string("control.frames: 0 out of range [1, 1000000]")));
  EXPECT_EQ(refused([&] { store.control(R"({"action": "step", "frames": 1.5})"); }).second, "control.frames: must be an integer");
  EXPECT_EQ(refused([&] { store.control(R"({"frames": 2})"); }).second, "control.action: must be a string (pause, resume or step)");
  EXPECT_EQ(refused([&] { store.control("pause"); }).first, 400);
  EXPECT_FALSE(store.paused());
}

TEST(LiveClient, RefusesANegativeRealtimeFactor) {
  LiveClientOptions o;
  o.realtime_factor = -1.0;
  EXPECT_NE(test::error_of([&] { LiveClient bad(o); }).find("realtime_factor must be >= 0"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::viz
