#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/viz/studio.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/error_of.hpp"

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
  EXPECT_NE(error_of([&] { edit_model(y, R"([{"op":"set","element":"cable","id":"nope","field":"stiffness_Npm","value":1}])"); })
                .find("no cable 'nope'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { edit_model(y, R"([{"op":"set","element":"cable","id":"side1","field":"stiffness_Npm","value":-1}])"); })
                .find("after the edits"),
            std::string::npos);
  EXPECT_NE(error_of([&] { edit_model(y, R"([{"op":"explode"}])"); }).find("edits[0].op"), std::string::npos);
  const std::string msg = error_of([&] { edit_model("tendyn: tensegrity\nname: x\nrods: [oops\n", ""); });
  EXPECT_EQ(msg.rfind("model.yaml:", 0), 0u) << msg;
  std::string big(300 << 10, '#');
  EXPECT_NE(error_of([&] { edit_model(big, ""); }).find("limit"), std::string::npos);
}

TEST(Studio, RunRequestsAreCheckedAgainstTheLimits) {
  const std::string y = default_yaml();
  auto req = [&](json j) {
    j["yaml"] = y;
    return j.dump();
  };
  EXPECT_NE(error_of([&] { parse_run_request("{", {}); }).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_run_request(req({{"duration_s", 1000.0}}), {}); }).find("duration_s"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_run_request(req({{"duration_s", 50.0}, {"output_interval_s", 0.001}}), {}); }).find("frames"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
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
  const auto ok = parse_run_request(req({{"duration_s", 0.5}, {"forward", {{"drives", json::array({{{"cable", "side1"}, {"a", 0.01}, {"b", 6.0}, {"c", 0.0}, {"d", 0.0}}})}}}}), {});
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
  const auto run = [&](const std::string& rest) {
    return bad_request_of([&] { parse_run_request("{\"yaml\": " + y + rest + "}", {}); });
  };
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
      {", \"mode\": \"inverse\", \"inverse\": {\"drive_cables\": [\"top1\"], \"planner\": 7}",
       "request.inverse.planner: must be a string"},
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
  EXPECT_NE(bad_request_of([&] { edit_model(default_yaml(), "{\"op\": \"set\"}"); }).find("edits: must be an array"),
            std::string::npos);
  EXPECT_NE(bad_request_of([&] { edit_model(default_yaml(), "[{\"op\": 3}]"); }).find("edits[0].op: must be a string"),
            std::string::npos);
  // Content errors stay tendyn::Error (HTTP 422), not BadRequest.
  EXPECT_EQ(run(", \"duration_s\": 1000"), "");
  EXPECT_NE(error_of([&] { parse_run_request("{\"yaml\": " + y + ", \"duration_s\": 1000}", {}); }).find("duration_s"),
            std::string::npos);
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
  EXPECT_EQ(cancelled.status, "error");
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
  const json body = {{"yaml", yaml},
                     {"mode", "inverse"},
                     {"duration_s", 0.1},
                     {"inverse", {{"drive_cables", {"c2"}}, {"period_s", 0.1}}}};
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
  EXPECT_EQ(e.rfind("{\"status\":\"error\",\"progress\":0.0,\"frame_count\":1,\"error\":\"run cancelled\",\"from\":3,\"frames\":", 0), 0u) << e;
}

}  // namespace
}  // namespace tendyn::viz::studio
