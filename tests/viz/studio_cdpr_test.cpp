// The studio's CDPR models (src/viz/studio_cdpr.cpp): MODEL JSON, edits, the model file written
// back, and the run (the tension distribution along a platform path).
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/viz/scene.hpp>
#include <tendyn/viz/studio.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "support/error_of.hpp"

namespace tendyn::viz::studio {
namespace {

using nlohmann::json;
using test::error_of;

std::string file_text(const std::string& rel) {
  std::ifstream in(std::string(TENDYN_SOURCE_DIR) + "/" + rel);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Issue 17: CDPR models are edited and run like tensegrity ones. The run is the tension
// distribution along the path (as `tendyn tension trajectory`): at every frame J f = w.
TEST(StudioCdpr, ModelEditsRoundTripAndRun) {
  const std::string yaml = file_text("models/cdpr/planar4.yaml");
  const auto r0 = edit_model(yaml, "");
  EXPECT_EQ(r0.kind, "cdpr");
  const auto j0 = json::parse(r0.model_json);
  EXPECT_EQ(j0["kind"], "cdpr");
  EXPECT_EQ(j0["cables"].size(), 4u);
  EXPECT_DOUBLE_EQ(j0["platform"]["mass_kg"].get<double>(), 1.0);
  EXPECT_EQ(j0["cables"][0]["anchor_m"], json::array({-1.0, 1.0}));
  // the written file reads back as the same model
  const auto a = cdpr::parse_model(yaml, "a").model, b = cdpr::parse_model(r0.yaml, "b").model;
  EXPECT_EQ(a.p_WA, b.p_WA);
  EXPECT_EQ(a.p_PB, b.p_PB);
  EXPECT_EQ(a.gravity_W, b.gravity_W);
  EXPECT_EQ(a.f_max_N, b.f_max_N);
  EXPECT_EQ(a.cable_groups, b.cable_groups);
  // edits: platform mass, an anchor; a planar model has no z; bad values name the edit
  const auto r1 = edit_model(yaml, R"([{"op":"set","element":"platform","field":"mass_kg","value":3},
                                       {"op":"set","element":"cable","id":"c2","field":"anchor_x_m","value":1.2}])");
  const auto m1 = cdpr::parse_model(r1.yaml, "edited").model;
  EXPECT_DOUBLE_EQ(m1.platform_mass_kg, 3.0);
  EXPECT_DOUBLE_EQ(m1.p_WA(0, 1), 1.2);
  EXPECT_NE(
      error_of([&] { edit_model(yaml, R"([{"op":"set","element":"cable","id":"c1","field":"anchor_z_m","value":1}])"); }).find("no z"),
      std::string::npos);
  EXPECT_NE(error_of([&] { edit_model(yaml, R"([{"op":"set","element":"platform","field":"mass_kg","value":-1}])"); }).find("edits[0]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              edit_model(yaml, R"([{"op":"set","element":"cable","id":"c1","field":"anchor_x_m","value":1}])");
            }).find("after the edits"),
            std::string::npos);  // on c2's anchor (1, 1)
  // runs: 0.2 m/s along the default path; tensions balance gravity, and scale with the mass
  const auto run = [&](const std::string& y, Job& job) {
    run_job(parse_run_request(json{{"yaml", y}, {"output_interval_s", 0.05}, {"cdpr", {{"speed_mps", 0.2}}}}.dump(), {}), job);
    EXPECT_EQ(job.status, "done") << job.error;
  };
  const auto mass3 = edit_model(yaml, R"([{"op":"set","element":"platform","field":"mass_kg","value":3}])").yaml;
  Job j1, j3;
  run(r0.yaml, j1);
  run(mass3, j3);
  const auto s1 = json::parse(j1.summary_json);
  EXPECT_EQ(s1["mode"], "cdpr");
  EXPECT_EQ(s1["not_ok_poses"], 0);
  const auto path = j0["default_path_m"];
  const double length =
      std::hypot(path[1][0].get<double>() - path[0][0].get<double>(), path[1][1].get<double>() - path[0][1].get<double>()) +
      std::hypot(path[2][0].get<double>() - path[1][0].get<double>(), path[2][1].get<double>() - path[1][1].get<double>());
  EXPECT_NEAR(s1["duration_s"].get<double>(), length / 0.2, 1e-12);
  EXPECT_EQ(j1.scene.nframe(), static_cast<int>(std::ceil(length / 0.2 / 0.05 - 1e-9)) + 1);
  EXPECT_NEAR(j1.scene.t_s.back(), length / 0.2, 1e-12);
  // equilibrium at a frame: sum of f_i u_i + m g = 0 (forces; planar x, y)
  const auto m = cdpr::parse_model(r0.yaml, "m").model;
  const int n = m.ncable(), np = j1.scene.npoint();
  for (int f : {0, j1.scene.nframe() / 2, j1.scene.nframe() - 1}) {
    Eigen::Vector3d F = m.platform_mass_kg * m.gravity_W;
    for (int i = 0; i < n; ++i) {
      const double* A = &j1.scene.positions_m[static_cast<std::size_t>(3 * (np * f + i))];
      const double* B = &j1.scene.positions_m[static_cast<std::size_t>(3 * (np * f + n + i))];
      const Eigen::Vector3d u = (Eigen::Vector3d(A[0], A[1], A[2]) - Eigen::Vector3d(B[0], B[1], B[2])).normalized();
      F += j1.scene.tension_N[static_cast<std::size_t>(n * f + i)] * u;
    }
    EXPECT_LT(F.norm(), 1e-6) << "frame " << f;
  }
  // the path starts at the default pose
  const auto P = static_cast<std::size_t>(3 * 2 * n);
  EXPECT_NEAR(j1.scene.positions_m[P], path[0][0].get<double>(), 1e-12);
  // three times the mass: the tensions change (more than the 1 N minimum allows to stay)
  const auto s3 = json::parse(j3.summary_json);
  EXPECT_GT(s3["tension_N"]["max"]["value_N"].get<double>(), 2.0 * s1["tension_N"]["max"]["value_N"].get<double>());
  EXPECT_DOUBLE_EQ(s3["platform_mass_kg"].get<double>(), 3.0);
  EXPECT_NEAR(s1["com"]["travelled_m"].get<double>(), length, 1e-9);  // the COM is at P
  // request errors: a path point of the wrong size, a path beyond the time limit, a bad method
  EXPECT_NE(error_of([&] {
              parse_run_request(json{{"yaml", yaml}, {"cdpr", {{"path", {{0, 0, 0}, {1, 0, 0}}}}}}.dump(), {});
            }).find("[x, y]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              parse_run_request(json{{"yaml", yaml}, {"cdpr", {{"speed_mps", 1e-4}}}}.dump(), {});
            }).find("limit"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              parse_run_request(json{{"yaml", yaml}, {"cdpr", {{"method", "magic"}}}}.dump(), {});
            }).find("request.cdpr.method"),
            std::string::npos);
  Limits small;
  small.max_yaml_bytes = 100;
  EXPECT_NE(error_of([&] { parse_run_request(json{{"yaml", yaml}}.dump(), small); }).find("limit"), std::string::npos);
  EXPECT_NE(error_of([&] { edit_model(yaml, "", small); }).find("limit"), std::string::npos);
  // cancel and the wall-time limit end a CDPR job with a message, as a tensegrity one
  Job cancelled;
  cancelled.cancel = true;
  run_job(parse_run_request(json{{"yaml", yaml}}.dump(), {}), cancelled);
  EXPECT_EQ(cancelled.status, "cancelled");
  EXPECT_NE(cancelled.error.find("cancelled"), std::string::npos) << cancelled.error;
  // the CSV of a CDPR run: tensions per cable, no energies
  EXPECT_EQ(run_csv(j1).rfind("t_s,com_x_m,com_y_m,com_z_m,c1.tension_N,c1.strain,", 0), 0u);
  // its JSON is a scene with the tension-norm and residual plots of `tendyn tension trajectory`
  const std::string text = run_json(j1);
  EXPECT_NO_THROW(check_scene_json(text, "run.json"));
  const auto rj = json::parse(text);
  ASSERT_EQ(rj["plots"].size(), 2u);
  EXPECT_EQ(rj["plots"][0]["series"][0]["values"].size(), static_cast<std::size_t>(j1.scene.nframe()));
  EXPECT_EQ(rj["summary"]["mode"], "cdpr");
}

}  // namespace
}  // namespace tendyn::viz::studio
