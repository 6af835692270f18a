#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/viz/studio.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace tendyn::viz::studio
