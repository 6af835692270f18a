#include <tendyn/core/error.hpp>
#include <tendyn/viz/scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <zlib.h>

namespace tendyn::viz {
namespace {

Scene two_point_scene() {
  Scene s;
  s.title = "pair";
  s.ground_z_m = 0.0;
  s.points = {"p", "q"};
  s.rods = {{"r", 0, 1, 0.01, false}};
  s.cables = {{"c", 0, 1}};
  return s;
}

void add(Scene& s, double t, double x) {
  const double p[6] = {0, 0, 0, x, 0, 1};
  const double tension[1] = {2.5 * x}, strain[1] = {0.1 * x}, com[3] = {x / 2, 0, 0.5};
  const FrameEnergy e{x, 2 * x, 3 * x, 6 * x};
  add_frame(s, t, p, tension, strain, com, &e);
}

TEST(Scene, JsonRoundTripKeepsSevenSignificantDigits) {
  Scene s = two_point_scene();
  add(s, 0.0, 1.0);
  add(s, 0.01, 1.0 / 3.0);
  const std::string text = scene_json(s);
  EXPECT_EQ(check_scene_json(text, "scene.json"), "pair");
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], "tendyn-scene");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["ground_z_m"].get<double>(), 0.0);
  EXPECT_EQ(j["rods"][0]["shape"], "cylinder");
  EXPECT_EQ(j["frames"]["t_s"].size(), 2u);
  const double x = j["frames"]["positions_m"][1][3].get<double>();
  EXPECT_NEAR(x, 1.0 / 3.0, 1e-7);
  EXPECT_GT(std::abs(x - 1.0 / 3.0), 1e-12);  // written with 7 digits, not 17
  EXPECT_NEAR(j["frames"]["energy_J"]["total"][1].get<double>(), 2.0, 1e-6);
  EXPECT_NEAR(j["frames"]["cable_tension_N"][1][0].get<double>(), 2.5 / 3.0, 1e-6);
  EXPECT_NEAR(j["frames"]["com_m"][0][0].get<double>(), 0.5, 1e-12);
}

// The text itself is the contract with the browser and with the recorded output hashes: key order
// of docs/VIEWER.md, no spaces, numbers as %.7g (whole values without ".0"), names escaped.
TEST(Scene, JsonTextIsExact) {
  Scene s = two_point_scene();
  s.title = "a \"b\"";
  s.rods[0].radius_m = 0.0025;
  s.rods.push_back({"link", 1, 0, 2.0, true});
  s.faces = {{0, 1, 0}};
  s.plots.push_back({"T", "N", {}, {{"norm", {1.0, 1.0 / 3.0}}}});
  add(s, 0.0, 1.0);
  add(s, 0.01, 1.0 / 3.0);
  EXPECT_EQ(scene_json(s),
            R"({"format":"tendyn-scene","version":1,"title":"a \"b\"","kind":"tensegrity","ground_z_m":0,"points":["p","q"],)"
            R"("rods":[{"name":"r","a":0,"b":1,"radius_m":0.0025,"shape":"cylinder"},)"
            R"({"name":"link","a":1,"b":0,"radius_m":2,"shape":"capsule"}],"cables":[{"name":"c","a":0,"b":1}],)"
            R"("faces":[[0,1,0]],"plots":[{"title":"T","y_label":"N","series":[{"name":"norm","values":[1,0.3333333]}]}],)"
            R"("frames":{"t_s":[0,0.01],"positions_m":[[0,0,0,1,0,1],[0,0,0,0.3333333,0,1]],)"
            R"("cable_tension_N":[[2.5],[0.8333333]],"cable_strain":[[0.1],[0.03333333]],"com_m":[[0.5,0,0.5],[0.1666667,0,0.5]],)"
            R"("energy_J":{"kinetic":[1,0.3333333],"elastic":[2,0.6666667],"gravitational":[3,1],"total":[6,2]}}})"
            "\n");
  // Header scalars are dumped by nlohmann: the 7-digit value exactly, though for a few values with
  // more digits (its Grisu2 is not always shortest), e.g. 0.0027744 -> 0.0027744000000000002.
  s.rods[0].radius_m = 0.00277440049;
  EXPECT_EQ(nlohmann::json::parse(scene_header_json(s))["rods"][0]["radius_m"].get<double>(), 0.0027744);
}

// Paths, joints, plot ids and joint axes (tree and plan scenes): written only when present, in
// the order of docs/VIEWER.md.
TEST(Scene, PathsJointsAndAxesJsonText) {
  Scene s = two_point_scene();
  s.cables.clear();
  s.joints.push_back({"hinge", "revolute", 1, 0, 0});
  s.paths.push_back({"target path", {0, 0, 0, 1.5, 0, 0}, false});
  s.paths.push_back({"track", {}, true});
  s.plots.push_back({"q", "rad", {}, {{"hinge", {}}}, "q"});
  for (int f = 0; f < 2; ++f) {
    const double p[6] = {0, 0, 0, 1, 0, 0.5 * f};
    add_frame(s, 0.01 * f, p, {}, {});
    s.joint_axes_W.insert(s.joint_axes_W.end(), {0.0, f ? 1.0 : 0.0, f ? 0.0 : 1.0});
    s.paths[1].points_m.insert(s.paths[1].points_m.end(), {0.25 * f, 0.0, 0.0});
    s.plots[0].series[0].second.push_back(0.5 * f);
  }
  EXPECT_EQ(
      scene_json(s),
      R"({"format":"tendyn-scene","version":1,"title":"pair","kind":"tensegrity","ground_z_m":0,"points":["p","q"],)"
      R"("rods":[{"name":"r","a":0,"b":1,"radius_m":0.01,"shape":"cylinder"}],"cables":[],"faces":[],)"
      R"("joints":[{"name":"hinge","type":"revolute","point":1,"q_index":0,"v_index":0}],)"
      R"("paths":[{"name":"target path","points_m":[[0,0,0],[1.5,0,0]]},{"name":"track","per_frame":true,"points_m":[[0,0,0],[0.25,0,0]]}],)"
      R"("plots":[{"title":"q","y_label":"rad","id":"q","series":[{"name":"hinge","values":[0,0.5]}]}],)"
      R"("frames":{"t_s":[0,0.01],"positions_m":[[0,0,0,1,0,0],[0,0,0,1,0,0.5]],"cable_tension_N":[[],[]],"cable_strain":[[],[]],)"
      R"("joint_axes_W":[[0,0,1],[0,1,0]]}})"
      "\n");
  // a per-frame path with a point missing, an axis missing, a joint on no point: named errors
  Scene bad = s;
  bad.paths[1].points_m.resize(3);
  EXPECT_THROW(validate(bad), Error);
  bad = s;
  bad.joint_axes_W.pop_back();
  EXPECT_THROW(validate(bad), Error);
  bad = s;
  bad.joints[0].point = 2;
  try {
    validate(bad);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hinge"), std::string::npos) << e.what();
  }
}

TEST(Scene, FramesJsonSlicesAndHeaderHasNoFrames) {
  Scene s = two_point_scene();
  for (int i = 0; i < 5; ++i) add(s, 0.1 * i, 1.0 + i);
  const auto f = nlohmann::json::parse(frames_json(s, 3, 99));
  ASSERT_EQ(f["t_s"].size(), 2u);
  EXPECT_NEAR(f["t_s"][0].get<double>(), 0.3, 1e-12);
  EXPECT_NEAR(f["positions_m"][1][3].get<double>(), 5.0, 1e-12);
  EXPECT_TRUE(nlohmann::json::parse(frames_json(s, 5, 5))["t_s"].empty());
  const auto h = nlohmann::json::parse(scene_header_json(s));
  EXPECT_FALSE(h.contains("frames"));
  EXPECT_EQ(h["cables"][0]["name"], "c");
}

TEST(Scene, AddFrameRejectsBadFrames) {
  Scene s = two_point_scene();
  const double p5[5] = {0, 0, 0, 0, 0}, one[1] = {0};
  EXPECT_THROW(add_frame(s, 0.0, p5, one, one), Error);
  const double p[6] = {0, 0, 0, NAN, 0, 0};
  EXPECT_THROW(add_frame(s, 0.0, p, one, one), Error);
  add(s, 1.0, 1.0);
  const double ok[6] = {0, 0, 0, 1, 0, 0};
  try {
    add_frame(s, 0.5, ok, one, one);
    FAIL() << "time going backwards accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("before the previous frame"), std::string::npos) << e.what();
  }
  // COM/energy given for the first frame must be given for every frame
  EXPECT_THROW(add_frame(s, 2.0, ok, one, one), Error);
}

TEST(Scene, ValidateNamesTheBadElement) {
  Scene s = two_point_scene();
  s.cables.push_back({"dangling", 0, 7});
  try {
    validate(s);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dangling"), std::string::npos);
  }
  Scene t = two_point_scene();
  t.plots.push_back({"norm", "N", {}, {{"a", {1.0, 2.0}}}});  // 2 values, 0 frames
  EXPECT_THROW(validate(t), Error);
}

TEST(Scene, CheckSceneJsonRejectsMalformedFiles) {
  Scene s = two_point_scene();
  add(s, 0.0, 1.0);
  auto j = nlohmann::json::parse(scene_json(s));
  EXPECT_THROW(check_scene_json("{not json", "x.json"), Error);
  auto bad = j;
  bad["format"] = "other";
  EXPECT_THROW(check_scene_json(bad.dump(), "x.json"), Error);
  bad = j;
  bad["rods"][0]["b"] = 2;  // only 2 points
  try {
    check_scene_json(bad.dump(), "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rods[0].b"), std::string::npos) << e.what();
  }
  bad = j;
  bad["frames"]["positions_m"][0].erase(0);
  EXPECT_THROW(check_scene_json(bad.dump(), "x.json"), Error);
  bad = j;
  bad["frames"]["cable_tension_N"][0].push_back(1.0);
  EXPECT_THROW(check_scene_json(bad.dump(), "x.json"), Error);
  // joints, paths and joint axes (tree and plan scenes)
  bad = j;
  bad["joints"] = nlohmann::json::parse(R"([{"name": "hinge", "type": "revolute", "point": 5}])");
  try {
    check_scene_json(bad.dump(), "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("joints[0].point"), std::string::npos) << e.what();
  }
  bad["joints"][0]["point"] = 1;
  bad["frames"]["joint_axes_W"] = nlohmann::json::parse("[[0, 0]]");
  EXPECT_THROW(check_scene_json(bad.dump(), "x.json"), Error);
  bad["frames"]["joint_axes_W"] = nlohmann::json::parse("[[0, 0, 1]]");
  EXPECT_NO_THROW(check_scene_json(bad.dump(), "x.json"));
  bad["paths"] = nlohmann::json::parse(R"([{"name": "target path", "points_m": [[0, 0, 0], [1, 0]]}])");
  try {
    check_scene_json(bad.dump(), "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("paths[0].points_m[1]"), std::string::npos) << e.what();
  }
}

// Found by fuzz/scene_json_fuzz.cpp (regressions in fuzz/regressions/scene_json/): a number
// beyond double range made nlohmann throw out_of_range (not a parse_error), a non-string "format"
// a type_error, and a version of 2^32 + 1 passed as 1 (int conversion); all three escaped as
// non-tendyn exceptions or were accepted.
TEST(Scene, CheckSceneJsonRejectsOverflowAndWrongTypesWithError) {
  Scene s = two_point_scene();
  add(s, 0.0, 1.0);
  const auto j = nlohmann::json::parse(scene_json(s));
  auto message = [](const std::string& text) {
    try {
      (void)check_scene_json(text, "x.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("[1e400]"), "x.json: not valid JSON (number overflow parsing '1e400')");
  auto bad = j;
  bad["format"] = 5;
  EXPECT_EQ(message(bad.dump()), "x.json: not a tendyn scene (\"format\" must be \"tendyn-scene\")");
  bad = j;
  bad["version"] = 4294967297LL;
  EXPECT_EQ(message(bad.dump()), "x.json: unsupported scene version (this viewer reads version 1)");
  EXPECT_EQ(message(j.dump()), "accepted");
}

TEST(Scene, PageSceneJsonThinsLongRunsUnderTheLimitAndKeepsTheLastFrame) {
  Scene s = two_point_scene();
  for (int i = 0; i < 1001; ++i) add(s, 0.01 * i, 1.0 + 0.001 * i);
  s.paths.push_back({"track", {}, true});
  for (int i = 0; i < 1001; ++i) s.paths[0].points_m.insert(s.paths[0].points_m.end(), {0.01 * i, 0.0, 0.0});
  s.plots.push_back({"per frame", "m", {}, {{"a", std::vector<double>(1001, 0.5)}}});
  std::vector<double> own_t(4004), own_v(4004);
  for (int i = 0; i < 4004; ++i) own_t[static_cast<std::size_t>(i)] = own_v[static_cast<std::size_t>(i)] = 0.0025 * i;
  s.plots.push_back({"own time", "m", own_t, {{"b", own_v}}});
  const std::string full = scene_json(s);
  int stride = 0;
  // fits: the text unchanged (no trailing newline), stride 1
  EXPECT_EQ(page_scene_json(full, full.size(), "scene.json", &stride), full.substr(0, full.size() - 1));
  EXPECT_EQ(stride, 1);
  const std::size_t limit = full.size() / 5;
  const std::string page = page_scene_json(full, limit, "scene.json", &stride);
  EXPECT_LE(page.size(), limit);
  EXPECT_GE(stride, 5);
  const auto j = nlohmann::json::parse(page);
  const auto& t = j["frames"]["t_s"];
  const std::size_t kept = (1000 + stride - 1) / static_cast<std::size_t>(stride) + 1;  // 0, k, 2k, ... and the last
  ASSERT_EQ(t.size(), kept);
  EXPECT_DOUBLE_EQ(t[1].get<double>(), 0.01 * stride);
  EXPECT_DOUBLE_EQ(t.back().get<double>(), 10.0);
  for (const char* key : {"positions_m", "cable_tension_N", "cable_strain", "com_m"}) EXPECT_EQ(j["frames"][key].size(), kept) << key;
  EXPECT_EQ(j["frames"]["energy_J"]["total"].size(), kept);
  EXPECT_DOUBLE_EQ(j["frames"]["cable_tension_N"].back()[0].get<double>(), 2.5 * 2.0);
  EXPECT_EQ(j["paths"][0]["points_m"].size(), kept);
  EXPECT_EQ(j["plots"][0]["series"][0]["values"].size(), kept);
  EXPECT_EQ(j["plots"][1]["t_s"].size(), j["plots"][1]["series"][0]["values"].size());
  EXPECT_LT(j["plots"][1]["t_s"].size(), 4004U);
  EXPECT_EQ(j["thinned"]["stride"], stride);
  EXPECT_EQ(j["thinned"]["frames_in_run"], 1001);
  EXPECT_NO_THROW(check_scene_json(page, "page"));
  // too small for even two frames: an error naming the source and the option
  try {
    page_scene_json(full, 200, "out/scene.json");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out/scene.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-page-mb"), std::string::npos) << e.what();
  }
}

/// The bytes of RFC 4648 base64 text (the test's own decoder).
std::string unbase64(const std::string& b64) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : b64) {
    const int v = val(c);
    if (v < 0) break;  // '=' padding
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}
/// A packed block of plot_data (docs/VIEWER.md: delta1+shuffle+deflate) decoded by the test's own
/// reader: base64, zlib inflate, the bytes un-shuffled, per column of n values the prefix sums of
/// the bit patterns. Returns the W-byte patterns (count of them expected).
template <class U>
std::vector<U> unpack(const nlohmann::json& b64, std::size_t n, std::size_t count) {
  const std::string z = unbase64(b64.get<std::string>());
  constexpr std::size_t W = sizeof(U);
  std::string raw(W * count + 1, '\0');  // one byte more: a longer stream would fill it
  uLongf size = static_cast<uLongf>(raw.size());
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &size, reinterpret_cast<const Bytef*>(z.data()), static_cast<uLong>(z.size())),
            Z_OK);
  EXPECT_EQ(size, W * count);
  std::vector<U> v(count, 0);
  for (std::size_t i = 0; i < count && W * count == size; ++i)
    for (std::size_t b = 0; b < W; ++b) v[i] |= static_cast<U>(static_cast<unsigned char>(raw[b * count + i])) << (8 * b);
  for (std::size_t c0 = 0; c0 + n <= count && n > 0; c0 += n)
    for (std::size_t i = 1; i < n; ++i) v[c0 + i] += v[c0 + i - 1];
  return v;
}
std::vector<float> f32s(const nlohmann::json& b64, std::size_t n, std::size_t count) {
  std::vector<float> out;
  for (const auto u : unpack<std::uint32_t>(b64, n, count)) out.push_back(std::bit_cast<float>(u));
  return out;
}
std::vector<double> f64s(const nlohmann::json& b64, std::size_t n) {
  std::vector<double> out;
  for (const auto u : unpack<std::uint64_t>(b64, n, n)) out.push_back(std::bit_cast<double>(u));
  return out;
}
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

/// 40 points (as a robot's nodes: positions dominate the frames), one cable, n frames at 100 Hz;
/// tension(i) gives the cable's tension.
template <class Tension>
Scene forty_point_scene(int n, const Tension& tension) {
  Scene s;
  s.title = "forty";
  for (int k = 0; k < 40; ++k) s.points.push_back("p" + std::to_string(k));
  s.cables = {{"c", 0, 1}};
  for (int i = 0; i < n; ++i) {
    const double x = 1.0 + 0.001 * i + 1e-4 * std::sin(0.1 * i);
    std::vector<double> p(120);
    for (std::size_t k = 0; k < p.size(); ++k) p[k] = x + 0.01 * static_cast<double>(k);
    const double t[1] = {tension(i)}, strain[1] = {0.1 * x}, com[3] = {x / 2, 0, 0.5};
    const FrameEnergy e{x, 2 * x, 3 * x, 6 * x};
    add_frame(s, 0.01 * i, p, t, strain, com, &e);
  }
  s.plots.push_back({"per frame", "m", {}, {{"a", std::vector<double>(static_cast<std::size_t>(n), 0.25)}}});
  return s;
}

// Long runs: the 3D frames thinned, the plotted series kept losslessly packed at every frame of
// the run (a page whose plain float32 plot data had to keep every 2nd frame only).
TEST(Scene, PageSceneJsonKeepsEveryFrameOfThePlotsPackedLosslessly) {
  const Scene s = forty_point_scene(3001, [](int i) { return 2.5 * (1.0 + 0.001 * i + 1e-4 * std::sin(0.1 * i)); });
  const std::string full = scene_json(s);
  const auto fj = nlohmann::json::parse(full);
  const std::size_t limit = full.size() / 16;  // plain float32 base64 at every frame: 0.9 of it
  int stride = 0, bucket = -1;
  const std::string page = page_scene_json(full, limit, "scene.json", &stride, &bucket);
  EXPECT_LE(page.size(), limit);
  ASSERT_GE(stride, 2);
  const auto j = nlohmann::json::parse(page);
  ASSERT_TRUE(j.contains("plot_data"));
  const auto& pd = j["plot_data"];
  EXPECT_EQ(bucket, 1) << "every frame of the run";
  EXPECT_EQ(pd["bucket"], 1);
  EXPECT_EQ(pd["packing"], "delta1+shuffle+deflate");
  EXPECT_EQ(pd["samples_in_run"], 3001);
  const std::size_t n = 3001;
  ASSERT_EQ(pd["samples"], n);
  const auto t = f64s(pd["t_s"], n);
  const auto tension = f32s(pd["cable_tension_N"], n, n);
  const auto com = f32s(pd["com_m"], n, 3 * n);
  const auto total = f32s(pd["energy_J"]["total"], n, n);
  const auto extra = f32s(pd["plots"][0]["series"][0], n, n);
  ASSERT_EQ(t.size(), n);
  const auto& ff = fj["frames"];
  for (std::size_t i = 0; i < n; ++i) {  // bit for bit: float32 of scene.json's numbers (times float64)
    EXPECT_EQ(t[i], ff["t_s"][i].get<double>()) << i;
    EXPECT_EQ(bits(tension[i]), bits(static_cast<float>(ff["cable_tension_N"][i][0].get<double>()))) << i;
    EXPECT_EQ(bits(com[2 * n + i]), bits(static_cast<float>(ff["com_m"][i][2].get<double>()))) << i;  // column z
    EXPECT_EQ(bits(total[i]), bits(static_cast<float>(ff["energy_J"]["total"][i].get<double>()))) << i;
    EXPECT_EQ(extra[i], 0.25f);
  }
  // packed: well under the plain float32 base64 (4/3 x 4 bytes a value)
  const double plain = 4.0 / 3.0 * (8.0 * n + 4.0 * 10 * n);
  EXPECT_LT(static_cast<double>(pd.dump().size()), 0.5 * plain);
  EXPECT_NO_THROW(check_scene_json(page, "page"));
  // without plot_data (the compared runs of one page): the plots thinned with the frames
  const auto k = nlohmann::json::parse(page_scene_json(full, full.size() / 40, "scene.json", &stride, &bucket, false));
  EXPECT_FALSE(k.contains("plot_data"));
  EXPECT_EQ(bucket, 0);
}

// When even the packed full rate does not fit: per bucket of k frames the minimum and the maximum
// of every series, so that a one-frame spike stays in the plots.
TEST(Scene, PageSceneJsonKeepsTheMinimumAndMaximumOfEveryBucketWhenTheFullRateDoesNotFit) {
  // a noisy tension (deflates poorly) with a spike at one frame
  std::uint32_t seed = 12345;
  std::vector<double> noise(6001);
  for (auto& v : noise) {
    seed = seed * 1664525U + 1013904223U;
    v = 100.0 + static_cast<double>(seed >> 8) / 16777216.0;
  }
  constexpr int kSpike = 2347;
  noise[kSpike] = 250.0;
  const Scene s = forty_point_scene(6001, [&](int i) { return noise[static_cast<std::size_t>(i)]; });
  const std::string full = scene_json(s);
  const std::size_t limit = full.size() / 160;
  int stride = 0, bucket = 0;
  const auto j = nlohmann::json::parse(page_scene_json(full, limit, "scene.json", &stride, &bucket));
  ASSERT_TRUE(j.contains("plot_data"));
  const auto& pd = j["plot_data"];
  EXPECT_GE(bucket, 3);
  EXPECT_EQ(pd["bucket"], bucket);
  const auto k = static_cast<std::size_t>(bucket);
  const std::size_t nb = (6001 + k - 1) / k, last = 6001 - (nb - 1) * k;
  const std::size_t m = 2 * nb - (last == 1 ? 1 : 0);
  ASSERT_EQ(pd["samples"], m);
  const auto t = f64s(pd["t_s"], m);
  const auto tension = f32s(pd["cable_tension_N"], m, m);
  const auto fj = nlohmann::json::parse(full);
  const auto& ff = fj["frames"];
  // bucket b: its first and last time; the smaller and the larger tension in the order they occur
  for (std::size_t b = 0; b + 1 < nb; ++b) {
    ASSERT_EQ(t[2 * b], ff["t_s"][b * k].get<double>()) << b;
    ASSERT_EQ(t[2 * b + 1], ff["t_s"][b * k + k - 1].get<double>()) << b;
    double lo = 1e300, hi = -1e300;
    std::size_t ilo = 0, ihi = 0;
    for (std::size_t i = b * k; i < b * k + k; ++i) {
      const double v = ff["cable_tension_N"][i][0].get<double>();
      if (v < lo) {
        lo = v;
        ilo = i;
      }
      if (v > hi) {
        hi = v;
        ihi = i;
      }
    }
    const float first = static_cast<float>(ilo <= ihi ? lo : hi), second = static_cast<float>(ilo <= ihi ? hi : lo);
    ASSERT_EQ(bits(tension[2 * b]), bits(first)) << b;
    ASSERT_EQ(bits(tension[2 * b + 1]), bits(second)) << b;
  }
  // the spike is in the plots, in its bucket
  const auto top = std::max_element(tension.begin(), tension.end());
  EXPECT_EQ(*top, 250.0f);
  const std::size_t at = static_cast<std::size_t>(top - tension.begin());
  EXPECT_LE(t[at - at % 2], 0.01 * kSpike + 1e-9);
  EXPECT_GE(t[at - at % 2 + 1], 0.01 * kSpike - 1e-9);
  EXPECT_NO_THROW(check_scene_json(j.dump(), "page"));
}

TEST(Scene, HtmlEmbedsSceneSafely) {
  Scene s = two_point_scene();
  s.title = "</script><b>x</b>";
  add(s, 0.0, 1.0);
  const std::string html = viewer_html(scene_json(s), s.title, "console.log('</script>')", "body{}");
  // exactly three closing script tags: config, scene, code
  std::size_t n = 0;
  for (auto pos = html.find("</script>"); pos != std::string::npos; pos = html.find("</script>", pos + 1)) ++n;
  EXPECT_EQ(n, 3u);
  EXPECT_NE(html.find("<title>&lt;/script&gt;&lt;b&gt;x&lt;/b&gt; - tendyn</title>"), std::string::npos);
  // the embedded JSON still parses to the same title
  const auto a = html.find("id=\"tendyn-scene\">") + 18;
  const auto b = html.find("</script>", a);
  EXPECT_EQ(nlohmann::json::parse(html.substr(a, b - a))["title"], s.title);
  EXPECT_NE(html.find("{\"mode\":\"viewer\"}"), std::string::npos);
  EXPECT_NE(studio_html("", "").find("{\"mode\":\"studio\"}"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::viz
