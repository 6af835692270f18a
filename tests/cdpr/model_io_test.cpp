// CDPR model files: the shipped models load and balance gravity; malformed files give
// file:line:col errors naming the field.
#include <gtest/gtest.h>

#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/error.hpp>

#include <filesystem>
#include <limits>

#include "cdpr/test_util.hpp"

namespace tendyn::cdpr {
namespace {

const char* kPlanar = R"(kind: cdpr
name: t
motion: planar
tension: {min: 1, max: 100}
platform: {mass: 1.0}
pose: [0, 0, 0]
cables:
  - {name: a, anchor: [-1, 1], attachment: [-0.1, 0.1]}
  - {name: b, anchor: [1, 1], attachment: [0.1, 0.1]}
  - {name: c, anchor: [1, -1], attachment: [0.1, -0.1]}
  - {name: d, anchor: [-1, -1], attachment: [-0.1, -0.1]}
)";

std::string load_error(const std::string& text) {
  try {
    parse_model(text, "m.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelIo, ParsesAPlanarModel) {
  const auto mf = parse_model(kPlanar, "m.yaml");
  EXPECT_EQ(mf.model.ncable(), 4);
  EXPECT_EQ(mf.model.motion, Motion::kPlanar);
  EXPECT_EQ(mf.model.cable_names[2], "c");
  EXPECT_DOUBLE_EQ(mf.model.f_max_N, 100.0);
  EXPECT_EQ(mf.default_pose.size(), 3);
  const Eigen::VectorXd w = gravity_compensation_wrench(mf.model, pose_planar(0, 0, 0));
  EXPECT_NEAR(w[1], 9.81, 1e-12);
}

TEST(ModelIo, ErrorsNameFileLineAndField) {
  std::string t = kPlanar;
  auto bad = t;
  bad.replace(bad.find("[1, -1]"), 7, "[1, .nan]");
  EXPECT_NE(load_error(bad).find("m.yaml:10:"), std::string::npos) << load_error(bad);
  EXPECT_NE(load_error(bad).find("cables[2].anchor"), std::string::npos) << load_error(bad);
  bad = t;
  bad.replace(bad.find("[1, -1]"), 7, "[1, -1, 0]");
  EXPECT_NE(load_error(bad).find("cables[2].anchor"), std::string::npos) << load_error(bad);
  bad = t;
  bad.replace(bad.find("[1, -1]"), 7, "[1, 1]");
  EXPECT_NE(load_error(bad).find("coincides with the anchor of cable 'b'"), std::string::npos) << load_error(bad);
  bad = t + "colour: red\n";
  EXPECT_NE(load_error(bad).find("colour"), std::string::npos) << load_error(bad);
  bad = t;
  bad.replace(bad.find("kind: cdpr"), 10, "kind: tensegrity");
  EXPECT_NE(load_error(bad).find("expected 'cdpr'"), std::string::npos);
  bad = t;
  bad.replace(bad.find("max: 100"), 8, "max: 0.5");
  EXPECT_NE(load_error(bad).find("tension.max"), std::string::npos) << load_error(bad);
  EXPECT_THROW(load_model("/nonexistent/cdpr.yaml"), Error);
}

TEST(ModelIo, ShippedModelsLoadAndHoldTheirPlatform) {
  const std::filesystem::path dir = std::string(TENDYN_SOURCE_DIR) + "/models/cdpr";
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    SCOPED_TRACE(e.path().string());
    const auto mf = load_model(e.path().string());
    ++count;
    ASSERT_GT(mf.default_pose.size(), 0) << "every shipped model has a default pose";
    Data d = make_data(mf.model);
    const Pose pose = pose_from_vector(mf.model, mf.default_pose);
    update_geometry(mf.model, pose, d);
    SolverOptions o;
    o.f_min_N = mf.model.f_min_N;
    o.f_max_N = mf.model.f_max_N;
    const auto r = solve_tensions(Method::kExact, d.J, gravity_compensation_wrench(mf.model, pose), o);
    EXPECT_EQ(r.status, Status::kOk) << to_string(r.status) << " residual " << r.residual_norm;
  }
  EXPECT_GE(count, 3);
}

// to_yaml writes what parse_model reads: every shipped model (and one with a quote in a name and
// no upper bound) comes back field for field, numbers bit for bit.
TEST(ModelIo, ToYamlReadsBackToTheSameModel) {
  auto same = [](const ModelFile& a, const ModelFile& b) {
    EXPECT_EQ(a.model.name, b.model.name);
    EXPECT_EQ(a.model.motion, b.model.motion);
    EXPECT_EQ(a.model.p_WA, b.model.p_WA);
    EXPECT_EQ(a.model.p_PB, b.model.p_PB);
    EXPECT_EQ(a.model.cable_names, b.model.cable_names);
    EXPECT_EQ(a.model.cable_groups, b.model.cable_groups);
    EXPECT_EQ(a.model.f_min_N, b.model.f_min_N);
    EXPECT_EQ(a.model.f_max_N, b.model.f_max_N);
    EXPECT_EQ(a.model.platform_mass_kg, b.model.platform_mass_kg);
    EXPECT_EQ(a.model.p_PC, b.model.p_PC);
    EXPECT_EQ(a.model.gravity_W, b.model.gravity_W);
    EXPECT_EQ(a.default_pose, b.default_pose);
    EXPECT_EQ(a.source, b.source);
  };
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(TENDYN_SOURCE_DIR) + "/models/cdpr")) {
    if (e.path().extension() != ".yaml") continue;
    SCOPED_TRACE(e.path().string());
    const ModelFile f = load_model(e.path().string());
    same(f, parse_model(to_yaml(f), "written.yaml"));
    ++count;
  }
  EXPECT_GE(count, 3);
  ModelFile f = load_model(std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/" + "planar4.yaml");
  f.model.name = "a \"quoted\" name: with colon";
  f.model.cable_names[0] = "c#1";
  f.model.f_max_N = std::numeric_limits<double>::infinity();
  f.model.platform_mass_kg = 0.1 + 0.2;  // not a short decimal
  same(f, parse_model(to_yaml(f), "written.yaml"));
}

}  // namespace
}  // namespace tendyn::cdpr

namespace tendyn::cdpr {
namespace {

TEST(Printer, LowerGroupThreeByFourAlongAPathMatchesTheExactSolver) {
  // Document system (4): the lower cables alone against (Fx, Fy, Mz). Along a straight path with a
  // constant horizontal load, the exhaustive method and the exact solver return the same tensions,
  // and the tensions vary continuously (piecewise-smooth profile of the document's Fig. 3).
  const auto mf = load_model(test::model_path("printer8.yaml"));
  const auto lower = cables_in_group(mf.model, "lower");
  ASSERT_EQ(lower.size(), 4u);
  Data d = make_data(mf.model);
  Workspace ws(3, 4);
  TensionResult ex, exh;
  Eigen::VectorXd prev;
  const Eigen::Vector3d w(800.0, -300.0, 150.0);  // [N, N, N m]
  for (int k = 0; k <= 40; ++k) {
    const double s = -6.0 + 12.0 * k / 40.0;  // x from -6 m to 6 m at y = 2 m, z = 3 m
    update_geometry(mf.model, pose_from_xyz_rpy(Eigen::Vector3d(s, 2.0, 3.0), Eigen::Vector3d::Zero()), d);
    Eigen::MatrixXd Jl(6, 4);
    for (int c = 0; c < 4; ++c) Jl.col(c) = d.J.col(lower[static_cast<std::size_t>(c)]);
    const Eigen::MatrixXd J = select_rows(Jl, {WrenchRow::kFx, WrenchRow::kFy, WrenchRow::kMz});
    solve_tensions(Method::kExact, J, w, {}, ws, ex);
    solve_tensions(Method::kExhaustive, J, w, {}, ws, exh);
    ASSERT_EQ(ex.status, Status::kOk) << "x = " << s;
    EXPECT_LT((ex.f_N - exh.f_N).norm(), 1e-6 * ex.tension_norm) << "x = " << s;
    if (prev.size() > 0) {
      EXPECT_LT((ex.f_N - prev).norm(), 0.2 * ex.tension_norm) << "jump at x = " << s;
    }
    prev = ex.f_N;
  }
}

}  // namespace
}  // namespace tendyn::cdpr
