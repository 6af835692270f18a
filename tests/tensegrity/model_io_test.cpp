// Model files: every kind of bad input names the file, the line and the field; good files
// round-trip.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <filesystem>
#include <fstream>
#include <numbers>
#include <regex>

#include <unistd.h>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;

namespace {

// Two rods joined by three cables and one anchor cable; each test breaks one thing.
const std::string kGood = R"(tendyn: tensegrity
name: two-rods
gravity: [0, 0, -9.81]
nodes:
  - {id: a0, position: [0, 0, 0]}
  - {id: a1, position: [0, 0, 1]}
  - {id: b0, position: [1, 0, 0]}
  - {id: b1, position: [1, 0, 1]}
  - {id: hook, position: [0.5, 0, 2], fixed: true}
rods:
  - {id: A, mass: 1.0, length: 1.0, nodes: [a0, a1]}
  - {id: B, mass: 2.0, length: 1.0, nodes: [b0, b1], radius_outer: 0.01, radius_inner: 0.005}
cables:
  - {id: c0, nodes: [a0, b0], stiffness: 100, rest_length: 0.9}
  - {id: c1, nodes: [a1, b1], stiffness: 100, rest_length: 0.9, damping: 0.1}
  - {id: c2, nodes: [a0, b1], stiffness: 50, rest_length: 1.2}
  - {id: up, nodes: [hook, a1], stiffness: 200, rest_length: 0.5}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

int line_of(const std::string& text, const std::string& needle) {
  const auto pos = text.find(needle);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

// Loads `text` expecting an error whose message has "test.yaml:<line>:" and all `parts`.
void expect_error(const std::string& text, int line, std::initializer_list<std::string> parts) {
  try {
    ts::load_model_string(text, "test.yaml");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const tendyn::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("test.yaml:" + std::to_string(line) + ":"), std::string::npos) << msg;
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

}  // namespace

TEST(ModelIo, GoodFileLoads) {
  const auto f = ts::load_model_string(kGood, "test.yaml");
  EXPECT_EQ(f.model.nrod(), 2);
  EXPECT_EQ(f.model.nnode(), 5);
  EXPECT_EQ(f.model.ncable(), 4);
  EXPECT_TRUE(f.model.nodes[4].is_anchor());
  EXPECT_NEAR(f.model.rods[1].inertia_axial_kgm2, 2.0 * (1e-4 + 2.5e-5) / 2, 1e-15);
  EXPECT_EQ(f.model.gravity_W.z(), -9.81);
}

TEST(ModelIo, CableNamingMissingNode) {
  const auto t = replace(kGood, "nodes: [a1, b1], stiffness: 100", "nodes: [a1, zz], stiffness: 100");
  expect_error(t, line_of(t, "zz"), {"cables[1].nodes[1]", "'zz'", "not defined"});
}

TEST(ModelIo, RodNamingMissingNode) {
  const auto t = replace(kGood, "nodes: [b0, b1]", "nodes: [b0, b9]");
  expect_error(t, line_of(t, "b9"), {"rods[1].nodes[1]", "'b9'"});
}

TEST(ModelIo, DuplicateId) {
  const auto t = replace(kGood, "{id: b1, position", "{id: a1, position");
  expect_error(t, line_of(t, "{id: a1, position: [1"), {"nodes[3].id", "duplicate node id 'a1'"});
  const auto t2 = replace(kGood, "{id: c2,", "{id: c0,");
  expect_error(t2, line_of(t2, "{id: c0, nodes: [a0, b1]"), {"cables[2].id", "duplicate cable id 'c0'"});
}

TEST(ModelIo, NonPositiveMassAndLength) {
  const auto t = replace(kGood, "mass: 2.0", "mass: -2.0");
  expect_error(t, line_of(t, "mass: -2.0"), {"rods[1].mass", "must be > 0"});
  const auto t2 = replace(kGood, "mass: 1.0, length: 1.0", "mass: 1.0, length: 0");
  expect_error(t2, line_of(t2, "length: 0"), {"rods[0].length", "must be > 0"});
}

TEST(ModelIo, NotANumber) {
  const auto t = replace(kGood, "stiffness: 50", "stiffness: .nan");
  expect_error(t, line_of(t, ".nan"), {"cables[2].stiffness", "finite"});
  const auto t2 = replace(kGood, "[0.5, 0, 2]", "[0.5, .inf, 2]");
  expect_error(t2, line_of(t2, ".inf"), {"nodes[4].position[1]", "finite"});
  const auto t3 = replace(kGood, "rest_length: 1.2", "rest_length: long");
  expect_error(t3, line_of(t3, "long"), {"cables[2].rest_length", "expected a number"});
}

TEST(ModelIo, UnknownKey) {
  const auto t = replace(kGood, "stiffness: 200", "stifness: 200");
  expect_error(t, line_of(t, "stifness"), {"unknown field 'stifness'", "allowed:"});
  const auto t2 = replace(kGood, "gravity:", "gravty:");
  expect_error(t2, line_of(t2, "gravty"), {"unknown field 'gravty'"});
}

TEST(ModelIo, MissingField) {
  const auto t = replace(kGood, "{id: A, mass: 1.0, ", "{id: A, ");
  expect_error(t, line_of(t, "{id: A,"), {"rods[0]", "missing field 'mass'"});
}

TEST(ModelIo, NegativeStiffnessAndRestLength) {
  const auto t = replace(kGood, "stiffness: 200", "stiffness: -200");
  expect_error(t, line_of(t, "-200"), {"cables[3].stiffness", "must be >= 0"});
  const auto t2 = replace(kGood, "rest_length: 0.5", "rest_length: -0.5");
  expect_error(t2, line_of(t2, "-0.5"), {"cables[3].rest_length", "must be >= 0"});
}

TEST(ModelIo, RodLengthMustMatchNodes) {
  const auto t = replace(kGood, "mass: 2.0, length: 1.0", "mass: 2.0, length: 1.5");
  expect_error(t, line_of(t, "length: 1.5"), {"rods[1].length", "apart"});
}

TEST(ModelIo, NodeUsedTwiceOrDangling) {
  const auto t = replace(kGood, "nodes: [b0, b1]", "nodes: [b0, a1]");
  expect_error(t, line_of(t, "[b0, a1]"), {"rods[1].nodes[1]", "already an end of rod 'A'"});
}

TEST(ModelIo, SyntaxErrorHasLine) {
  const auto t = replace(kGood, "  - {id: c2, nodes: [a0, b1]", "  - {id: c2, nodes: [a0, b1");
  try {
    ts::load_model_string(t, "test.yaml");
    FAIL();
  } catch (const tendyn::Error& e) {
    EXPECT_TRUE(std::regex_search(std::string(e.what()), std::regex("^test\\.yaml:[0-9]+:[0-9]+: YAML syntax error"))) << e.what();
  }
}

TEST(ModelIo, OtherStructuralErrors) {
  expect_error("tendyn: tensegrity\nname: x\n", 1, {"exactly one of"});
  expect_error("tendyn: cdpr\nbuilder: {type: prism}\n", 1, {"tendyn", "'tensegrity'"});
  const std::string b = "tendyn: tensegrity\nbuilder:\n  type: dodecahedron\n";
  expect_error(b, 3, {"builder.type", "unknown builder 'dodecahedron'"});
  const std::string b2 = "tendyn: tensegrity\nbuilder:\n  type: prism\n  n: 2\n";
  expect_error(b2, 4, {"builder.n", "must be in [3, 10000]"});
  EXPECT_THROW(ts::load_model_string("", "empty.yaml"), tendyn::Error);
  EXPECT_THROW(ts::load_model_file("/nonexistent/model.yaml"), tendyn::Error);
}

TEST(ModelIo, PrismBuilderLayout) {
  expect_error("tendyn: tensegrity\nbuilder:\n  type: prism\n  layout: centered\n", 4,
               {"builder.layout", "unknown prism layout 'centered' (valid: pivot, centred)"});
  const auto f = ts::load_model_string("tendyn: tensegrity\nbuilder: {type: prism, layout: centred, psi_deg: 30}\n", "test.yaml");
  ts::PrismParams p;
  p.layout = ts::PrismLayout::kCentred;
  p.psi_rad = 30.0 * std::numbers::pi / 180.0;
  EXPECT_TRUE(f.model.initial_state.x == ts::make_prism(p).initial_state.x);
  // without `layout`: the pivot layout, as before
  const auto g = ts::load_model_string("tendyn: tensegrity\nbuilder: {type: prism, psi_deg: 30}\n", "test.yaml");
  p.layout = ts::PrismLayout::kPivot;
  EXPECT_TRUE(g.model.initial_state.x == ts::make_prism(p).initial_state.x);
}

TEST(ModelIo, ListsAndFilesAreBounded) {
  // 100,001 cables are refused before any is read (flow list: parsing stays fast)
  std::string many = replace(kGood, "cables:\n", "cables: [");
  many = many.substr(0, many.find("cables: [") + 9);
  for (int i = 0; i < 100001; ++i) many += i ? ",0" : "0";
  many += "]\n";
  expect_error(many, line_of(many, "cables:"), {"cables: has 100001 entries; at most 100000 are accepted"});
  // files above 16 MiB are refused before they are read
  const auto big = std::filesystem::temp_directory_path() / ("tendyn_big_model_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(big) << kGood << "description: '" << std::string(17u << 20, 'x') << "'\n";
  try {
    (void)ts::load_model_file(big.string());
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the 16 MiB limit of YAML input files"), std::string::npos) << e.what();
  }
  std::filesystem::remove(big);
}

TEST(ModelIo, SimulationSectionIsValidated) {
  const auto t = kGood + "simulation:\n  integrator: euler\n";
  expect_error(t, line_of(t, "euler"), {"simulation.integrator", "unknown integrator"});
  const auto t2 = kGood + "simulation:\n  dt: 0\n";
  expect_error(t2, line_of(t2, "dt: 0"), {"simulation.dt", "must be > 0"});
}

TEST(ModelIo, RoundTripGivesIdenticalRun) {
  for (const auto& src : {ts::load_model_string(kGood, "test.yaml").model, ts::default_model().model,
                          ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/superball.yaml").model}) {
    const auto back = ts::load_model_string(ts::to_yaml(src), "roundtrip.yaml").model;
    ASSERT_EQ(back.ncable(), src.ncable());
    const auto a = tendyn::test::run(src, 0.5, 1e-3), b = tendyn::test::run(back, 0.5, 1e-3);
    EXPECT_LT((a.final_state.x - b.final_state.x).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(ModelIo, ShippedModelsLoad) {
  for (const char* name : {"prism3.yaml", "prism3_matrices.yaml", "superball.yaml"}) {
    EXPECT_NO_THROW(ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/" + name)) << name;
  }
  // the matrix form of document 000's prism is the builder's prism
  const auto a = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/prism3.yaml");
  const auto b = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/prism3_matrices.yaml");
  const auto ra = tendyn::test::run(a.model, 2.0, 1e-3), rb = tendyn::test::run(b.model, 2.0, 1e-3);
  EXPECT_NEAR(ra.final_energy.total(), rb.final_energy.total(), 1e-9);
}

TEST(ModelIo, CableForceSign) {
  EXPECT_EQ(ts::load_model_string(kGood, "test.yaml").model.cable_force_sign, ts::CableForceSign::kClampTension);
  const auto t = replace(kGood, "gravity: [0, 0, -9.81]\n", "gravity: [0, 0, -9.81]\ncable_force_sign: paper_law\n");
  const auto m = ts::load_model_string(t, "test.yaml").model;
  EXPECT_EQ(m.cable_force_sign, ts::CableForceSign::kPaperLaw);
  // canonical YAML keeps it (and leaves the default out)
  EXPECT_NE(ts::to_yaml(m).find("cable_force_sign: paper_law"), std::string::npos);
  EXPECT_EQ(ts::to_yaml(ts::load_model_string(kGood, "test.yaml").model).find("cable_force_sign"), std::string::npos);
  EXPECT_EQ(ts::load_model_string(ts::to_yaml(m), "back.yaml").model.cable_force_sign, ts::CableForceSign::kPaperLaw);
  const auto bad = replace(kGood, "gravity: [0, 0, -9.81]\n", "gravity: [0, 0, -9.81]\ncable_force_sign: clamp\n");
  expect_error(bad, line_of(bad, "clamp"), {"cable_force_sign", "unknown cable force sign 'clamp' (valid: clamp_tension, paper_law)"});
}
