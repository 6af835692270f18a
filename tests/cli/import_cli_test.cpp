// tendyn import / validate / simulate on MuJoCo MJCF files (docs/MODEL_FORMAT.md, "MJCF import").
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;
using tendyn::test::write_file;
const std::string kMjcf = std::string(TENDYN_SOURCE_DIR) + "/tests/data/mjcf/";

#define EXPECT_HAS(out, text) EXPECT_NE((out).find(text), std::string::npos) << (out)

}  // namespace

// An exported ideal-rod model comes back as model.yaml that loads and describes the same robot.
TEST(ImportCli, ExportedModelImportsToYamlThatValidates) {
  const auto d = fresh_dir("import_roundtrip");
  const auto e = run("export --mjcf " + (d / "robot.xml").string());
  ASSERT_EQ(e.code, 0) << e.out;
  const auto r = run("import " + (d / "robot.xml").string() + " -o " + (d / "imp").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "import: ");
  EXPECT_HAS(r.out, "with a free joint -> rod");
  EXPECT_HAS(r.out, "-> spring that pushes and pulls");
  ASSERT_TRUE(fs::exists(d / "imp" / "model.yaml"));
  const auto v = run("validate " + (d / "imp" / "model.yaml").string());
  EXPECT_EQ(v.code, 0) << v.out;
  EXPECT_HAS(v.out, "3 rods");
}

// Body geometry (off-axis sites, end-caps, composite inertia) goes into model.yaml with the keys of
// "Real rods", and the written model is the same robot: the sites at the same places.
TEST(ImportCli, ModelWithBodyGeometryIsWrittenWithItsGeometry) {
  const auto d = fresh_dir("import_geometry");
  const auto r = run("import " + kMjcf + "three_bar_global.xml -o " + (d / "out").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "keep a full inertia tensor");
  ASSERT_TRUE(fs::exists(d / "out" / "model.yaml"));
  const auto a = tendyn::tensegrity::load_mjcf_file(kMjcf + "three_bar_global.xml").model;
  const auto b = tendyn::tensegrity::load_model_file((d / "out" / "model.yaml").string()).model;
  ASSERT_EQ(a.nnode(), b.nnode());
  const Eigen::MatrixX3d pa = tendyn::tensegrity::node_positions(a, a.initial_state);
  const Eigen::MatrixX3d pb = tendyn::tensegrity::node_positions(b, b.initial_state);
  EXPECT_LT((pa - pb).cwiseAbs().maxCoeff(), 1e-9);
  for (int j = 0; j < a.nrod(); ++j) {
    EXPECT_NEAR(a.rods[static_cast<std::size_t>(j)].mass_kg, b.rods[static_cast<std::size_t>(j)].mass_kg, 1e-12);
    EXPECT_LT((a.initial_state.p_WC(j) - b.initial_state.p_WC(j)).norm(), 1e-9);
    EXPECT_LT((a.initial_state.w_W(j) - b.initial_state.w_W(j)).norm(), 1e-9);
  }
}

TEST(ImportCli, ValidateReadsMjcfByExtension) {
  const auto r = run("validate " + kMjcf + "six_bar.xml");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "model 'six_bar': 6 rods");
  EXPECT_HAS(r.out, "24 elements");
}

TEST(ImportCli, UnsupportedElementsAndBadXmlExitTwoWithFileLine) {
  const auto d = fresh_dir("import_bad");
  const std::string body = "<mujoco>\n<worldbody>\n<body name=\"b\">\n<freejoint/>\n<geom type=\"capsule\" size=\"0.1 0.5\"/>\n";
  write_file(d / "hinge.xml", body + "<joint type=\"hinge\"/>\n</body>\n</worldbody>\n</mujoco>\n");
  write_file(d / "broken.xml", body + "</worldbody>\n</mujoco>\n");
  write_file(d / "act.xml", body +
                                "<site name=\"s\"/>\n</body>\n<site name=\"w\" pos=\"0 0 1\"/>\n</worldbody>\n"
                                "<tendon><spatial name=\"t\"><site site=\"s\"/><site site=\"w\"/></spatial></tendon>\n"
                                "<actuator><general tendon=\"t\" dyntype=\"muscle\"/></actuator>\n</mujoco>\n");
  auto r = run("import " + (d / "hinge.xml").string() + " -o " + (d / "o1").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, (d / "hinge.xml").string() + ":6:1: <joint>: hinge joints are not supported");
  r = run("simulate " + (d / "hinge.xml").string() + " -q -o " + (d / "o2").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "hinge.xml:6:1: <joint>");
  r = run("validate " + (d / "broken.xml").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "broken.xml:6:1: XML error: </worldbody> closes <body>");
  r = run("import " + (d / "act.xml").string() + " -o " + (d / "o3").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "act.xml:11:11: <general>: dyntype 'muscle' is not supported");
  EXPECT_FALSE(fs::exists(d / "o3" / "model.yaml"));
  r = run("import " + (d / "act.xml").string() + " --ignore-actuators -o " + (d / "o3").string());
  EXPECT_HAS(r.out, "actuator ignored on request");
  EXPECT_FALSE(fs::exists(d / "o1"));
  // a motor on the tendon: imported as a force actuator, written to model.yaml
  std::string motor = slurp(d / "act.xml");
  const std::string filter = "<general tendon=\"t\" dyntype=\"muscle\"/>";
  motor.replace(motor.find(filter), filter.size(), "<motor name=\"m\" tendon=\"t\" gear=\"2\"/>");
  write_file(d / "motor.xml", motor);
  r = run("import " + (d / "motor.xml").string() + " -o " + (d / "o4").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "<motor> 'm' on tendon 't' -> force actuator, gear 2");
  EXPECT_HAS(slurp(d / "o4" / "model.yaml"), "actuators:");
}
