#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/viz/studio.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/viz/scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/error_of.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tendyn::viz::studio {
namespace {

namespace ts = tensegrity;
using nlohmann::json;

std::string default_yaml() {
  const auto f = ts::default_model();
  return ts::to_yaml(f.model, &f.simulation);
}

std::string file_text(const std::string& rel) {
  std::ifstream in(std::string(TENDYN_SOURCE_DIR) + "/" + rel);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using test::error_of;

TEST(Studio, ModelJsonListsRodsAndCables) {
  const auto j = json::parse(model_json(ts::default_model().model));
  EXPECT_EQ(j["rods"].size(), 3u);
  EXPECT_EQ(j["cables"].size(), 9u);
  EXPECT_EQ(j["nodes"].size(), 6u);
  EXPECT_DOUBLE_EQ(j["cables"][0]["stiffness_Npm"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j["rods"][0]["length_m"].get<double>(), 0.3);
}

TEST(Studio, EditsChangeTheModelAndRoundTripThroughYaml) {
  const json edits = json::array({{{"op", "set"}, {"element", "cable"}, {"id", "side1"}, {"field", "stiffness_Npm"}, {"value", 42.0}},
                                  {{"op", "set"}, {"element", "rod"}, {"id", "I"}, {"field", "mass_kg"}, {"value", 2.0}},
                                  {{"op", "add_cable"}, {"id", "x1"}, {"from", "t1"}, {"to", "b2"}, {"stiffness_Npm", 5.0}}});
  const auto r = edit_model(default_yaml(), edits.dump());
  const auto f = ts::load_model_string(r.yaml, "edited");
  const auto& m = f.model;
  ASSERT_EQ(m.ncable(), 10);
  const auto k = std::find(m.cable_ids.begin(), m.cable_ids.end(), "side1") - m.cable_ids.begin();
  EXPECT_DOUBLE_EQ(m.cables[static_cast<std::size_t>(k)].stiffness_Npm, 42.0);
  EXPECT_DOUBLE_EQ(m.rods[0].mass_kg, 2.0);
  EXPECT_DOUBLE_EQ(m.rods[0].inertia_transverse_kgm2, 2.0 * 0.09 / 12.0);  // thin rod m L^2 / 12
  // the added cable's default rest length is the current node distance: it starts unstretched
  ts::Data d = ts::make_data(m);
  ts::forward_kinematics(m, m.initial_state, d);
  const auto& c = m.cables.back();
  EXPECT_NEAR(c.rest_length_m, (d.p_W_node.col(c.node[0]) - d.p_W_node.col(c.node[1])).norm(), 1e-12);
  EXPECT_EQ(json::parse(r.model_json)["cables"].size(), 10u);
  // removing it gives the original cable set back
  const auto back = edit_model(r.yaml, R"([{"op":"remove_cable","id":"x1"}])");
  EXPECT_EQ(ts::load_model_string(back.yaml).model.ncable(), 9);
}

TEST(Studio, RemovingADrivenCableRemovesItsDrive) {
  const std::string yaml = file_text("models/three_bar.yaml");
  const auto before = ts::load_model_string(yaml).model;
  ASSERT_FALSE(before.drives.empty());
  const std::string driven = before.cable_ids[static_cast<std::size_t>(before.drives[0].cable)];
  const auto r = edit_model(yaml, json::array({{{"op", "remove_cable"}, {"id", driven}}}).dump());
  const auto after = ts::load_model_string(r.yaml).model;
  EXPECT_EQ(after.drives.size(), before.drives.size() - 1);
  for (const auto& d : after.drives) EXPECT_NE(after.cable_ids[static_cast<std::size_t>(d.cable)], driven);
}

TEST(Studio, BadEditsAndBadYamlGiveMessagesWithThePlace) {
  const std::string y = default_yaml();
  EXPECT_NE(error_of([&] {
              edit_model(y, R"([{"op":"set","element":"cable","id":"nope","field":"stiffness_Npm","value":1}])");
            }).find("no cable 'nope'"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              edit_model(y, R"([{"op":"set","element":"cable","id":"side1","field":"stiffness_Npm","value":-1}])");
            }).find("edits[0]: cable 'side1' stiffness_Npm = -1: must be >= 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              edit_model(y, R"([{"op":"set","element":"rod","id":"I","field":"mass_kg","value":0}])");
            }).find("edits[0]: rod 'I' mass_kg = 0: must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { edit_model(y, R"([{"op":"explode"}])"); }).find("edits[0].op"), std::string::npos);
  const std::string msg = error_of([&] { edit_model("tendyn: tensegrity\nname: x\nrods: [oops\n", ""); });
  EXPECT_EQ(msg.rfind("model.yaml:", 0), 0u) << msg;
  std::string big(300 << 10, '#');
  EXPECT_NE(error_of([&] { edit_model(big, ""); }).find("limit"), std::string::npos);
}

// Before: a posted model of 250 KB could hold 125,000 YAML nodes, about 45 MB in yaml-cpp's tree
// per request (30 posts took the server to 1.35 GB). The nodes are counted before the tree is built.
TEST(Studio, PostedModelsAreBoundedInYamlNodes) {
  for (const char* kind : {"tensegrity", "cdpr"}) {
    std::string y = std::string("tendyn: ") + kind + "\ndescription: [0";
    while (y.size() < (250u << 10)) y += ",0";
    y += "]\n";
    const std::string msg = error_of([&] { edit_model(y, ""); });
    EXPECT_EQ(msg.rfind("model.yaml:2:", 0), 0u) << msg;
    EXPECT_NE(msg.find("more than 20000 YAML nodes (values, lists and mappings), the limit of a model in the studio"), std::string::npos)
        << msg;
    const std::string body = json{{"yaml", y}, {"duration_s", 1.0}}.dump();
    EXPECT_NE(error_of([&] { (void)parse_run_request(body, Limits{}); }).find("more than 20000 YAML nodes"), std::string::npos) << kind;
  }
  EXPECT_NO_THROW(edit_model(file_text("models/tower.yaml"), ""));  // a shipped model is far below it
}

// Before: the frame count was cast to long for the message (undefined above 9.2e18; printed
// "-9223372036854775808 frames").
TEST(Studio, FrameCountInMessagesIsAShortNumber) {
  const std::string body = json{{"yaml", default_yaml()}, {"duration_s", 60.0}, {"output_interval_s", 1e-300}}.dump();
  EXPECT_NE(error_of([&] {
              (void)parse_run_request(body, Limits{});
            }).find("request: duration_s / output_interval_s = 6e+301 frames, more than the limit of 10000"),
            std::string::npos);
}

TEST(Studio, RunRequestsAreCheckedAgainstTheLimits) {
  const std::string y = default_yaml();
  auto req = [&](json j) {
    j["yaml"] = y;
    return j.dump();
  };
  EXPECT_NE(error_of([&] { parse_run_request("{", {}); }).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_run_request(req({{"duration_s", 1000.0}}), {}); }).find("duration_s"), std::string::npos);
  EXPECT_NE(error_of([&] {
              parse_run_request(req({{"duration_s", 50.0}, {"output_interval_s", 0.001}}), {});
            }).find("frames"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] {
        parse_run_request(req({{"forward", {{"drives", json::array({{{"cable", "zz"}, {"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}}})}}}}), {});
      }).find("no cable 'zz'"),
      std::string::npos);
  EXPECT_NE(error_of([&] {
              parse_run_request(req({{"mode", "inverse"},
                                     {"inverse", {{"drive_cables", {"top1", "top2", "top3", "side1", "side2", "side3", "bottom1"}}}}}),
                                {});
            }).find("at most 6"),
            std::string::npos);
  Limits small;
  small.max_body_bytes = 100;
  EXPECT_NE(error_of([&] { parse_run_request(req({}), small); }).find("larger than"), std::string::npos);
  const auto ok = parse_run_request(
      req({{"duration_s", 0.5},
           {"forward", {{"drives", json::array({{{"cable", "side1"}, {"a", 0.01}, {"b", 6.0}, {"c", 0.0}, {"d", 0.0}}})}}}}),
      {});
  EXPECT_FALSE(ok.inverse);
  EXPECT_EQ(ok.file.model.drives.size(), 1u);
  EXPECT_DOUBLE_EQ(ok.file.simulation.duration_s, 0.5);
}

/// The message of the BadRequest thrown by f, or "" when f throws nothing or another error.
template <class F>
std::string bad_request_of(F&& f) {
  try {
    f();
  } catch (const BadRequest& e) {
    return e.what();
  } catch (const std::exception&) {
    return "";
  }
  return "";
}

// Issue 15: wrong JSON types ("mode": 5) and numbers outside the double range ("duration_s":
// 1e400) ended in nlohmann exceptions, i.e. HTTP 500. They are BadRequest (400) naming the field.
TEST(Studio, WrongJsonTypesAreBadRequestsNamingTheField) {
  const std::string y = json(default_yaml()).dump();
  const auto run = [&](const std::string& rest) { return bad_request_of([&] { parse_run_request("{\"yaml\": " + y + rest + "}", {}); }); };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {", \"mode\": 5", "request.mode: must be a string"},
      {", \"duration_s\": 1e400", "request.duration_s: number outside the range of a double"},
      {", \"duration_s\": \"2\"", "request.duration_s: must be a finite number"},
      {", \"output_interval_s\": null", "request.output_interval_s: must be a finite number"},
      {", \"forward\": 3", "request.forward: must be a JSON object"},
      {", \"forward\": {\"drives\": {}}", "request.forward.drives: must be an array"},
      {", \"forward\": {\"drives\": [7]}", "request.forward.drives[0]: must be a JSON object"},
      {", \"forward\": {\"drives\": [{\"cable\": \"side1\", \"a\": true, \"b\": 1, \"c\": 0, \"d\": 0}]}",
       "request.forward.drives[0].a: must be a finite number"},
      {", \"forward\": {\"drives\": [{\"cable\": \"side1\", \"a\": -1e999}]}",
       "request.forward.drives[0].a: number outside the range of a double"},
      {", \"mode\": \"inverse\", \"inverse\": {\"drive_cables\": [\"top1\"], \"path\": [[0, 0], [1, 2e400]]}",
       "request.inverse.path[1][1]: number outside the range of a double"},
      {", \"mode\": \"inverse\", \"inverse\": []", "request.inverse: must be a JSON object"},
      {", \"mode\": \"inverse\", \"inverse\": {\"drive_cables\": \"top1\"}", "request.inverse.drive_cables: must be an array"},
      {", \"mode\": \"inverse\", \"inverse\": {\"drive_cables\": [1]}", "request.inverse.drive_cables[0]: must be a string"},
      {", \"mode\": \"inverse\", \"inverse\": {\"drive_cables\": [\"top1\"], \"planner\": 7}", "request.inverse.planner: must be a string"},
      {", \"mode\": \"inverse\", \"inverse\": {\"drive_cables\": [\"top1\"], \"path\": [[0, 0], [1, \"x\"]]}",
       "request.inverse.path[1]: must be [x, y]"},
  };
  for (const auto& [rest, want] : cases) {
    const std::string msg = run(rest);
    EXPECT_NE(msg.find(want), std::string::npos) << rest << " -> '" << msg << "'";
  }
  EXPECT_NE(bad_request_of([] { parse_run_request("{\"yaml\": 3}", {}); }).find("request.yaml: must be a string"), std::string::npos);
  EXPECT_NE(bad_request_of([] { parse_run_request("[1, 2]", {}); }).find("request: must be a JSON object"), std::string::npos);
  EXPECT_NE(bad_request_of([] { parse_run_request("{\"yaml\": ", {}); }).find("request: not valid JSON"), std::string::npos);
  EXPECT_NE(bad_request_of([&] { edit_model(default_yaml(), "{\"op\": \"set\"}"); }).find("edits: must be an array"), std::string::npos);
  EXPECT_NE(bad_request_of([&] { edit_model(default_yaml(), "[{\"op\": 3}]"); }).find("edits[0].op: must be a string"), std::string::npos);
  // Content errors stay tendyn::Error (HTTP 422), not BadRequest.
  EXPECT_EQ(run(", \"duration_s\": 1000"), "");
  EXPECT_NE(error_of([&] { parse_run_request("{\"yaml\": " + y + ", \"duration_s\": 1000}", {}); }).find("duration_s"), std::string::npos);
  EXPECT_EQ(run(", \"mode\": \"sideways\""), "");
}

// Host / Origin / Content-Type checks of every request (CSRF and DNS rebinding), before the body.
TEST(Studio, HeaderChecksAcceptTheStudiosOwnPageOnly) {
  const Listen lo{"127.0.0.1", 8787};
  const std::string h = "127.0.0.1:8787", json_type = "application/json";
  const auto verdict = [](const char* method, const char* host, const char* origin, const char* type, const Listen& l) {
    const std::string hs = host ? host : "", os = origin ? origin : "", ts = type ? type : "";
    return check_request_headers(method, host ? &hs : nullptr, origin ? &os : nullptr, type ? &ts : nullptr, l).status;
  };
  // The page's own requests: Host and Origin are the loopback address with the port.
  EXPECT_EQ(verdict("GET", "127.0.0.1:8787", nullptr, nullptr, lo), 0);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", "http://127.0.0.1:8787", "application/json", lo), 0);
  EXPECT_EQ(verdict("POST", "localhost:8787", "http://localhost:8787", "application/json; charset=UTF-8", lo), 0);
  EXPECT_EQ(verdict("GET", "[::1]:8787", "http://[::1]:8787", nullptr, lo), 0);
  EXPECT_EQ(verdict("GET", "LOCALHOST:8787", nullptr, nullptr, lo), 0);
  // DNS rebinding: another name (resolving to 127.0.0.1), another port, no Host.
  EXPECT_EQ(verdict("GET", "evil.example:8787", nullptr, nullptr, lo), 403);
  EXPECT_EQ(verdict("GET", "127.0.0.1:9999", nullptr, nullptr, lo), 403);
  EXPECT_EQ(verdict("GET", "127.0.0.1", nullptr, nullptr, lo), 403);
  EXPECT_EQ(verdict("GET", nullptr, nullptr, nullptr, lo), 403);
  EXPECT_EQ(verdict("GET", "localhost.evil.example:8787", nullptr, nullptr, lo), 403);
  // CSRF: a page of another origin (also https, another port, "null").
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", "http://evil.example", "application/json", lo), 403);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", "https://127.0.0.1:8787", "application/json", lo), 403);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", "http://127.0.0.1:8788", "application/json", lo), 403);
  EXPECT_EQ(verdict("GET", "127.0.0.1:8787", "null", nullptr, lo), 403);
  // Content types a form of another site can send, or none.
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", nullptr, "text/plain", lo), 415);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", nullptr, "application/x-www-form-urlencoded", lo), 415);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", nullptr, "multipart/form-data; boundary=x", lo), 415);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", nullptr, nullptr, lo), 415);
  EXPECT_EQ(verdict("POST", "127.0.0.1:8787", nullptr, "application/jsonx", lo), 415);
  // Port 80: the port may be left out. A named --host is allowed besides the loopback names.
  EXPECT_EQ(verdict("GET", "localhost", nullptr, nullptr, Listen{"127.0.0.1", 80}), 0);
  EXPECT_EQ(verdict("GET", "192.168.1.5:8787", "http://192.168.1.5:8787", nullptr, Listen{"192.168.1.5", 8787}), 0);
  EXPECT_EQ(verdict("GET", "evil.example:8787", nullptr, nullptr, Listen{"192.168.1.5", 8787}), 403);
  // Wildcard --host: any Host, but an Origin must be that same host (same-origin requests only).
  const Listen any{"0.0.0.0", 8787};
  EXPECT_EQ(verdict("GET", "myhost:8787", nullptr, nullptr, any), 0);
  EXPECT_EQ(verdict("POST", "myhost:8787", "http://myhost:8787", "application/json", any), 0);
  EXPECT_EQ(verdict("POST", "myhost:8787", "http://evil.example", "application/json", any), 403);
  const auto msg = check_request_headers("GET", &h, nullptr, nullptr, Listen{"127.0.0.1", 1}).message;
  EXPECT_NE(msg.find("DNS rebinding"), std::string::npos) << msg;
  (void)json_type;
}

TEST(Studio, ForwardRunStreamsTheSameFramesAsTheCommandLine) {
  const auto r = parse_run_request(json{{"yaml", default_yaml()}, {"duration_s", 0.3}, {"output_interval_s", 0.01}}.dump(), {});
  Job job;
  run_job(r, job);
  ASSERT_EQ(job.status, "done") << job.error;
  EXPECT_EQ(job.scene.nframe(), 31);
  // reference: the recorder used by `tendyn simulate --html`
  Scene ref = make_scene(r.file.model);
  TensegritySceneRecorder rec(ref, 0.01);
  ts::simulate(r.file.model, r.file.simulation, &rec);
  rec.finish();
  EXPECT_EQ(job.scene.positions_m, ref.positions_m);
  EXPECT_EQ(job.scene.total_J, ref.total_J);
  const auto j = json::parse(job_json(job, 0));
  EXPECT_EQ(j["status"], "done");
  EXPECT_EQ(j["frames"]["t_s"].size(), 31u);
  EXPECT_EQ(j["scene"]["cables"].size(), 9u);
  EXPECT_EQ(j["summary"]["frames"], 31);
  const auto tail = json::parse(job_json(job, 29));
  EXPECT_EQ(tail["frames"]["t_s"].size(), 2u);
  EXPECT_FALSE(tail.contains("scene"));
}

TEST(Studio, StiffnessEditChangesTheRun) {
  const std::string y = default_yaml();
  auto final_x = [](const std::string& yaml) {
    Job job;
    run_job(parse_run_request(json{{"yaml", yaml}, {"duration_s", 0.2}}.dump(), {}), job);
    EXPECT_EQ(job.status, "done") << job.error;
    return job.scene.positions_m.back();
  };
  const auto edited = edit_model(y, R"([{"op":"set","element":"cable","id":"side1","field":"stiffness_Npm","value":40}])").yaml;
  EXPECT_GT(std::abs(final_x(y) - final_x(edited)), 1e-6);
}

TEST(Studio, WallTimeLimitAndCancelEndTheJobWithAMessage) {
  const auto r = parse_run_request(json{{"yaml", default_yaml()}, {"duration_s", 5.0}}.dump(), {});
  Limits l;
  l.max_wall_s = 1e-9;
  Job job;
  run_job(r, job, l);
  EXPECT_EQ(job.status, "error");
  EXPECT_NE(job.error.find("wall time"), std::string::npos) << job.error;
  Job cancelled;
  cancelled.cancel = true;
  run_job(r, cancelled);
  EXPECT_EQ(cancelled.status, "cancelled");
  EXPECT_NE(cancelled.error.find("cancelled"), std::string::npos);
}

TEST(Studio, InverseRunPlansThenSimulatesTheSchedule) {
  const json body = {{"yaml", file_text("models/three_bar.yaml")},
                     {"mode", "inverse"},
                     {"duration_s", 0.2},
                     {"inverse", {{"drive_cables", {"c1"}}, {"u0_m", 0.005}, {"period_s", 0.1}, {"path", {{0, 0}, {1, 0}}}}}};
  Job job;
  run_job(parse_run_request(body.dump(), {}), job);
  ASSERT_EQ(job.status, "done") << job.error;
  const auto s = json::parse(job.summary_json);
  EXPECT_EQ(s["mode"], "inverse");
  EXPECT_EQ(s["rollouts"], 6);  // 2 periods x 3^1 candidates
  EXPECT_NEAR(job.scene.t_s.back(), 0.2, 1e-12);
}

// The inverse mode applies the planning policies of `tendyn plan` (tensegrity/planner.hpp): the
// model's drive on a planned cable is dropped, and a model file asking for dopri5 on the impulse
// ground is planned and replayed with RK4 (before, the replay refused it after the planning).
TEST(Studio, InverseRunAppliesThePlanningPolicies) {
  std::string yaml = file_text("models/three_bar.yaml");
  const auto at = yaml.find("integrator: rk4");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, 15, "integrator: dopri5");
  const json body = {{"yaml", yaml}, {"mode", "inverse"}, {"duration_s", 0.1}, {"inverse", {{"drive_cables", {"c2"}}, {"period_s", 0.1}}}};
  const auto r = parse_run_request(body.dump(), {});
  EXPECT_EQ(r.file.simulation.integrator, ts::Integrator::kDormandPrince45);
  EXPECT_EQ(r.plan.rollout.integrator, ts::Integrator::kRK4);
  EXPECT_EQ(r.plan.drive_cables, std::vector<int>{1});
  ASSERT_EQ(r.file.model.drives.size(), 3u);  // c1, c3, c4 keep theirs
  for (const auto& d : r.file.model.drives) EXPECT_NE(d.cable, 1);
  Job job;
  run_job(r, job);
  ASSERT_EQ(job.status, "done") << job.error;
  EXPECT_EQ(json::parse(job.summary_json)["rollouts"], 3);
}

// job_json is built with nlohmann::ordered_json: the keys come in the order the front end and
// docs/VIEWER.md list them (status, progress, frame_count, error, scene, from, frames, summary).
TEST(Studio, JobJsonKeepsItsKeyOrder) {
  const auto r = parse_run_request(json{{"yaml", default_yaml()}, {"duration_s", 0.05}}.dump(), {});
  Job job;
  run_job(r, job);
  ASSERT_EQ(job.status, "done") << job.error;
  const std::string text = job_json(job, 0);
  EXPECT_EQ(text.rfind("{\"status\":\"done\",\"progress\":1.0,\"frame_count\":6,\"scene\":{", 0), 0u) << text.substr(0, 80);
  const auto from = text.find(",\"from\":0,\"frames\":{"), summary = text.find(",\"summary\":{");
  EXPECT_NE(from, std::string::npos);
  EXPECT_NE(summary, std::string::npos);
  EXPECT_LT(from, summary);
  EXPECT_EQ(json::parse(text)["summary"], json::parse(job.summary_json));
  Job failed;
  failed.cancel = true;
  run_job(r, failed);
  const std::string e = job_json(failed, 3);
  EXPECT_EQ(e.rfind("{\"status\":\"cancelled\",\"progress\":0.0,\"frame_count\":1,\"error\":\"run cancelled\",\"from\":3,\"frames\":", 0),
            0u)
      << e;
}

// Issue 17: node positions are edited in a table, not only as YAML text. Moving a rod end moves
// that node only, the rod's length follows the new node distance (mass kept, inertia rebuilt),
// the other nodes and every initial velocity stay.
TEST(Studio, NodeEditMovesTheNodeAndSetsTheRodLength) {
  std::string yaml = default_yaml();
  const auto before = ts::load_model_string(yaml).model;
  const Eigen::MatrixX3d P0 = ts::node_positions(before, before.initial_state);
  const auto j0 = json::parse(model_json(before));
  ASSERT_EQ(j0["node_positions"].size(), 6u);
  EXPECT_EQ(j0["kind"], "tensegrity");
  EXPECT_DOUBLE_EQ(j0["node_positions"][0]["x_m"].get<double>(), P0(0, 0));
  EXPECT_EQ(j0["node_positions"][0]["fixed"], false);
  const std::string id = before.node_ids[0];
  const double x_new = P0(0, 0) + 0.02;
  const auto r =
      edit_model(yaml, json::array({{{"op", "set"}, {"element", "node"}, {"id", id}, {"field", "x_m"}, {"value", x_new}}}).dump());
  const auto after = ts::load_model_string(r.yaml).model;
  const Eigen::MatrixX3d P1 = ts::node_positions(after, after.initial_state);
  EXPECT_NEAR(P1(0, 0), x_new, 1e-9);
  for (int i = 0; i < P0.rows(); ++i)
    for (int a = 0; a < 3; ++a)
      if (i != 0 || a != 0) {
        EXPECT_NEAR(P1(i, a), P0(i, a), 1e-9) << "node " << i << " axis " << a;
      }
  const auto& rod = after.rods[static_cast<std::size_t>(after.nodes[0].rod)];
  EXPECT_NEAR(rod.length_m, (P1.row(rod.node[1]) - P1.row(rod.node[0])).norm(), 1e-12);
  EXPECT_GT(std::abs(rod.length_m - 0.3), 1e-3);  // was 0.3 m
  EXPECT_DOUBLE_EQ(rod.mass_kg, 1.0);
  EXPECT_DOUBLE_EQ(rod.inertia_transverse_kgm2, rod.mass_kg * rod.length_m * rod.length_m / 12.0);  // thin rod
  EXPECT_NEAR(json::parse(r.model_json)["node_positions"][0]["x_m"].get<double>(), x_new, 1e-9);
  // errors name the edit: unknown node, unknown field, both ends of a rod on one point
  EXPECT_NE(
      error_of([&] { edit_model(yaml, R"([{"op":"set","element":"node","id":"zz","field":"x_m","value":0}])"); }).find("no node 'zz'"),
      std::string::npos);
  EXPECT_NE(
      error_of([&] { edit_model(yaml, R"([{"op":"set","element":"node","id":"t1","field":"w_m","value":0}])"); }).find("not a node field"),
      std::string::npos);
  const auto& r0 = before.rods[0];
  const std::string a = before.node_ids[static_cast<std::size_t>(r0.node[0])], b = before.node_ids[static_cast<std::size_t>(r0.node[1])];
  json onto = json::array();
  for (int ax = 0; ax < 3; ++ax)
    onto.push_back(
        {{"op", "set"}, {"element", "node"}, {"id", a}, {"field", std::string(1, "xyz"[ax]) + "_m"}, {"value", P0(r0.node[1], ax)}});
  EXPECT_NE(error_of([&] { edit_model(yaml, onto.dump()); }).find("edits[2]: rod"), std::string::npos)
      << error_of([&] { edit_model(yaml, onto.dump()); });
}

TEST(Studio, NodeEditMovesAnAnchor) {
  const std::string yaml =
      "tendyn: tensegrity\nname: pendulum\ngravity: [0, 0, -9.81]\n"
      "nodes:\n  - {id: top, position: [0, 0, 1], fixed: true}\n  - {id: a, position: [0, 0, 0.5]}\n  - {id: b, position: [0, 0, 0.2]}\n"
      "rods:\n  - {id: r, mass: 1, length: 0.3, nodes: [a, b]}\n"
      "cables:\n  - {id: hang, nodes: [top, a], stiffness: 100, rest_length: 0.4}\n";
  const auto j = json::parse(edit_model(yaml, "").model_json);
  EXPECT_EQ(j["node_positions"][0]["fixed"], true);
  const auto r = edit_model(yaml, R"([{"op":"set","element":"node","id":"top","field":"y_m","value":0.25}])");
  const auto m = ts::load_model_string(r.yaml).model;
  EXPECT_DOUBLE_EQ(m.nodes[0].p_W_anchor.y(), 0.25);
  EXPECT_DOUBLE_EQ(m.rods[0].length_m, 0.3);
}

/// A forward run of the default 3-prism in which cable side1 is driven hard enough to go slack.
void slack_run(Job& job, double duration_s = 1.0) {
  const json body = {{"yaml", default_yaml()},
                     {"duration_s", duration_s},
                     {"output_interval_s", 0.01},
                     {"forward", {{"drives", json::array({{{"cable", "side1"}, {"a", 0.08}, {"b", 12.0}, {"c", 0.0}, {"d", 0.0}}})}}}};
  run_job(parse_run_request(body.dump(), {}), job);
}

// Issue 17: the summary is for people: which cable went slack first and when, how far the COM
// went, the energies. Numbers checked against the recorded frames.
TEST(Studio, SummaryNamesTheFirstSlackCableAndTheEnergies) {
  Job job;
  slack_run(job);
  ASSERT_EQ(job.status, "done") << job.error;
  const auto s = json::parse(job.summary_json);
  const Scene& sc = job.scene;
  const auto nc = static_cast<std::size_t>(sc.ncable());
  ASSERT_TRUE(s["first_slack"].is_object()) << s.dump();
  EXPECT_EQ(s["normal_mode"], false);
  // the frames: the first one with a zero tension, and the cables slack in it
  double t_frame = -1.0;
  std::vector<std::string> slack_at_first;
  for (std::size_t f = 0; f < static_cast<std::size_t>(sc.nframe()) && t_frame < 0.0; ++f)
    for (std::size_t k = 0; k < nc; ++k)
      if (sc.tension_N[f * nc + k] == 0.0) {
        t_frame = sc.t_s[f];
        slack_at_first.push_back(sc.cables[k].name);
      }
  ASSERT_GE(t_frame, 0.0);
  // the summary's cable is one of them (the monitor sees each integration step: it tells which
  // went first when several are slack by the first frame), at most one output interval earlier
  const std::string first = s["first_slack"]["cable"];
  EXPECT_NE(std::find(slack_at_first.begin(), slack_at_first.end(), first), slack_at_first.end()) << s.dump();
  const double t = s["first_slack"]["t_s"].get<double>();
  EXPECT_GT(t, 0.0);
  EXPECT_LE(t, t_frame + 1e-12);
  EXPECT_GT(t, t_frame - 0.01 - 1e-12);
  // the per-cable list: first zero-tension frame of each, by time
  ASSERT_GE(s["slack_cables"].size(), slack_at_first.size());
  for (std::size_t i = 0; i < slack_at_first.size(); ++i) {
    EXPECT_EQ(s["slack_cables"][i]["cable"], slack_at_first[i]);
    EXPECT_DOUBLE_EQ(s["slack_cables"][i]["t_s"].get<double>(), t_frame);
  }
  EXPECT_TRUE(s["first_overstrain"].is_object());  // side1 is pulled beyond 100 % strain
  // energies: initial, final, extremes and drift of the recorded total
  const auto& e = s["energy_J"];
  EXPECT_DOUBLE_EQ(e["initial"].get<double>(), sc.total_J.front());
  EXPECT_DOUBLE_EQ(e["final"].get<double>(), sc.total_J.back());
  EXPECT_DOUBLE_EQ(e["min"].get<double>(), *std::min_element(sc.total_J.begin(), sc.total_J.end()));
  EXPECT_DOUBLE_EQ(e["max"].get<double>(), *std::max_element(sc.total_J.begin(), sc.total_J.end()));
  EXPECT_DOUBLE_EQ(e["drift"].get<double>(), sc.total_J.back() - sc.total_J.front());
  EXPECT_LT(e["final"].get<double>(), e["max"].get<double>());  // damped cables dissipate
  // COM: this symmetric prism in zero gravity does not move it
  EXPECT_LT(s["com"]["displacement_m"].get<double>(), 1e-12);
  // the three-bar robot under gravity on its ground does: travelled >= displacement > 0, and the
  // displacement is that of the first and last frame
  Job walk;
  run_job(parse_run_request(json{{"yaml", file_text("models/three_bar.yaml")}, {"duration_s", 0.5}}.dump(), {}), walk);
  ASSERT_EQ(walk.status, "done") << walk.error;
  const auto com = json::parse(walk.summary_json)["com"];
  const auto& wc = walk.scene.com_m;
  const double disp = com["displacement_m"].get<double>();
  EXPECT_GT(disp, 1e-5);
  EXPECT_GE(com["travelled_m"].get<double>(), disp);
  EXPECT_GE(com["travelled_m"].get<double>(), com["floor_travelled_m"].get<double>());
  const std::size_t last = wc.size() - 3;
  EXPECT_NEAR(disp, std::hypot(wc[last] - wc[0], wc[last + 1] - wc[1], wc[last + 2] - wc[2]), 1e-15);
  EXPECT_EQ(com["final_m"][2].get<double>(), wc[last + 2]);
  // a run without slack says so
  Job calm;
  run_job(parse_run_request(json{{"yaml", default_yaml()}, {"duration_s", 0.05}}.dump(), {}), calm);
  ASSERT_EQ(calm.status, "done") << calm.error;
  const auto cs = json::parse(calm.summary_json);
  if (cs["normal_mode"] == true) {
    EXPECT_TRUE(cs["first_slack"].is_null());
    EXPECT_TRUE(cs["slack_cables"].empty());
  }
}

// Issue 17: the run as CSV (a header line with units) and as JSON (scene.json + summary).
TEST(Studio, RunCsvAndJsonHoldTheFrames) {
  Job job;
  slack_run(job, 0.2);
  ASSERT_EQ(job.status, "done") << job.error;
  const std::string csv = run_csv(job);
  std::vector<std::string> lines;
  std::istringstream in(csv);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(job.scene.nframe()) + 1);
  EXPECT_EQ(lines[0].rfind("t_s,com_x_m,com_y_m,com_z_m,kinetic_J,elastic_J,gravitational_J,total_J,", 0), 0u) << lines[0];
  const auto header = io::split_fields(lines[0]);
  EXPECT_EQ(header.size(), 8u + 2u * 9u + 3u * 6u);
  const auto col = static_cast<std::size_t>(std::find(header.begin(), header.end(), "side1.tension_N") - header.begin());
  ASSERT_LT(col, header.size());
  const auto row = io::split_fields(lines[11]);  // frame 10
  const auto k = static_cast<std::size_t>(
      std::find_if(job.scene.cables.begin(), job.scene.cables.end(), [](const SceneCable& c) { return c.name == "side1"; }) -
      job.scene.cables.begin());
  EXPECT_NEAR(std::stod(row[col]), job.scene.tension_N[10 * 9 + k], 1e-8 * std::max(1.0, job.scene.tension_N[10 * 9 + k]));
  EXPECT_NEAR(std::stod(row[0]), 0.1, 1e-12);
  const std::string text = run_json(job);
  EXPECT_EQ(check_scene_json(text, "run.json"), job.scene.title);
  const auto j = json::parse(text);
  EXPECT_EQ(j["summary"], json::parse(job.summary_json));
  EXPECT_EQ(j["frames"]["t_s"].size(), static_cast<std::size_t>(job.scene.nframe()));
}

TEST(Studio, ModelKindTellsCdprFromTensegrity) {
  EXPECT_EQ(model_kind(default_yaml()), "tensegrity");
  EXPECT_EQ(model_kind("# a robot\nkind: cdpr  # spatial\nname: x\n"), "cdpr");
  EXPECT_EQ(model_kind("kind: \"cdpr\"\n"), "cdpr");
  EXPECT_EQ(model_kind("name: x\n  kind: cdpr\n"), "tensegrity");  // not top level
}

// The table's values travel with the run: a value out of range refuses the run naming the
// element and field; the model is never run with its previous value instead.
TEST(Studio, RunRequestEditsApplyTheTableValuesAndRefuseInvalidOnes) {
  const auto body = [](const json& edits) { return json{{"yaml", default_yaml()}, {"duration_s", 0.1}, {"edits", edits}}.dump(); };
  const auto ok = parse_run_request(
      body(json::array({{{"op", "set"}, {"element", "cable"}, {"id", "side1"}, {"field", "stiffness_Npm"}, {"value", 42.0}}})));
  const auto& m = ok.file.model;
  const auto k = static_cast<std::size_t>(std::find(m.cable_ids.begin(), m.cable_ids.end(), "side1") - m.cable_ids.begin());
  EXPECT_DOUBLE_EQ(m.cables[k].stiffness_Npm, 42.0);
  const std::string msg = error_of([&] {
    parse_run_request(
        body(json::array({{{"op", "set"}, {"element", "cable"}, {"id", "side1"}, {"field", "stiffness_Npm"}, {"value", -5.0}}})));
  });
  EXPECT_NE(msg.find("request.edits[0]: cable 'side1' stiffness_Npm = -5: must be >= 0"), std::string::npos) << msg;
  const std::string rod = error_of([&] {
    parse_run_request(body(json::array({{{"op", "set"}, {"element", "rod"}, {"id", "I"}, {"field", "length_m"}, {"value", -0.3}}})));
  });
  EXPECT_NE(rod.find("request.edits[0]: rod 'I' length_m = -0.3: must be > 0"), std::string::npos) << rod;
  EXPECT_NE(error_of([&] {
              parse_run_request(json{{"yaml", default_yaml()}, {"edits", 3}}.dump());
            }).find("request.edits: must be an array"),
            std::string::npos);
}

TEST(Studio, NextRunSharesTheSlotsFairly) {
  // one client's second run waits while the last slot stays free for another client
  EXPECT_EQ(next_run({{"a", 2}}, {{"a", 1}}, 1), -1);
  EXPECT_EQ(next_run({{"a", 2}, {"b", 3}}, {{"a", 1}}, 1), 1);
  // two free slots: a client with a run may take one
  EXPECT_EQ(next_run({{"a", 2}}, {{"a", 1}}, 2), 0);
  // the client with the fewest runs first, then the earliest
  EXPECT_EQ(next_run({{"a", 5}, {"b", 7}, {"c", 6}}, {{"a", 2}, {"b", 1}}, 3), 2);
  EXPECT_EQ(next_run({{"a", 5}, {"b", 4}}, {}, 2), 1);
  EXPECT_EQ(next_run({{"a", 1}}, {}, 0), -1);
  EXPECT_EQ(next_run({}, {}, 2), -1);
}

TEST(Studio, TokensAndRunIdsAreRandomAndComparedWhole) {
  const std::string a = random_hex(16), b = random_hex(16);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
  EXPECT_NE(a, b);
  EXPECT_TRUE(token_matches(a, a));
  EXPECT_FALSE(token_matches(b, a));
  EXPECT_FALSE(token_matches(a.substr(0, 31), a));
  EXPECT_FALSE(token_matches("", ""));  // no token never matches
}

TEST(Studio, PeerClientKeyNamesTheLocalUserOfALoopbackConnection) {
  const int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(lfd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(lfd, 4), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const int cfd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(cfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const int sfd = ::accept(lfd, nullptr, nullptr);
  ASSERT_GE(sfd, 0);
  EXPECT_EQ(peer_client_key(sfd), "uid:" + std::to_string(::getuid()));
  EXPECT_EQ(peer_client_key(lfd), "unknown");  // no peer
  ::close(sfd);
  ::close(cfd);
  ::close(lfd);
}

TEST(Studio, ModelJsonShowsBodyPointsEndCapsAndWinchesAndRefusesEditsOfRealRods) {
  const std::string yaml = file_text("models/three_bar_motorised.yaml");
  const auto j = json::parse(model_json(ts::load_model_string(yaml).model));
  ASSERT_EQ(j["winches"].size(), 6u);
  EXPECT_EQ(j["winches"][0]["cable"], "c1");
  EXPECT_EQ(j["winches"][0]["control"], "position");
  EXPECT_DOUBLE_EQ(j["winches"][0]["spool_radius_m"].get<double>(), 0.0035);
  EXPECT_NEAR(j["winches"][0]["max_rate_mps"].get<double>(), 3572.46 * 0.0035 / 75.81, 1e-15);
  EXPECT_TRUE(j["rods"][0]["general_inertia"].get<bool>());
  bool point = false;
  for (const auto& n : j["node_positions"]) {
    if (n["id"] == "n1") {
      EXPECT_DOUBLE_EQ(n["end_cap_radius_m"].get<double>(), 0.0175);
      EXPECT_EQ(n["on"], "");
    }
    if (n["id"] == "c1_n1") {
      point = true;
      EXPECT_EQ(n["on"], "rod1");
      EXPECT_FALSE(n["contact"].get<bool>());
    }
  }
  EXPECT_TRUE(point);
  // the studio's rod reshaping and node moves are for the documents' rods: refused, not wrong
  EXPECT_NE(error_of([&] {
              edit_model(yaml, R"([{"op":"set","element":"rod","id":"rod1","field":"mass_kg","value":1}])");
            }).find("rod 'rod1' has a full inertia tensor"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              edit_model(yaml, R"([{"op":"set","element":"node","id":"n1","field":"x_m","value":0}])");
            }).find("edit it in the YAML"),
            std::string::npos);
  // removing a winch's cable removes its winch (and its three state numbers); later winches move down
  const auto r = edit_model(yaml, R"([{"op":"remove_cable","id":"c2"}])");
  const auto m = ts::load_model_string(r.yaml).model;
  ASSERT_EQ(m.nwinch(), 5);
  EXPECT_EQ(m.cable_ids[static_cast<std::size_t>(m.winches[1].cable)], "c3");
  EXPECT_EQ(m.initial_state.x.size(), 3 * 13 + 5 * 3);
}

}  // namespace
}  // namespace tendyn::viz::studio
