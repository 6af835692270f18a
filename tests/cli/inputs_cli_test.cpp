// Hostile inputs end to end (issue 15, "Wrong results with exit 0" and "Unclear errors"): each
// input once ran to exit 0 with a wrong result, or ended in an internal error; now each exits 2
// (bad input) or 1 (an option out of range) with the option name or file:line:col.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;
using tendyn::test::write_file;
const std::string kPrism = std::string(TENDYN_SOURCE_DIR) + "/models/prism3.yaml";

#define EXPECT_HAS(out, text) EXPECT_NE((out).find(text), std::string::npos) << (out)

}  // namespace

// ------------------------------------------------------------------------------- step counts
// Before: lround(duration / dt) = 0 steps, exit 0 with a one-row result.
TEST(InputsSteps, DurationShorterThanHalfAStepIsRefused) {
  const auto d = fresh_dir("steps_short");
  const auto r = run("simulate " + kPrism + " --duration 1 --dt 3 -q -o " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "duration (1 s) is shorter than half a step dt (3 s): no step would run");
  EXPECT_FALSE(fs::exists(d / "results.csv"));
}

// Before: 1e300 / dt overflowed lround (0 steps, exit 0).
TEST(InputsSteps, StepCountAboveTheLimitIsRefusedWithTheNumber) {
  const auto d = fresh_dir("steps_long");
  const auto r = run("simulate " + kPrism + " --duration 1e300 -q -o " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "duration / dt = 1e+300 / 0.001 = 1e+303 steps is above the limit 1e+09");
}

// Before: the model file's dt of 1e-300 ran 0 steps.
TEST(InputsSteps, TinyModelFileStepIsRefused) {
  const auto d = fresh_dir("steps_tiny");
  write_file(d / "m.yaml", "tendyn: tensegrity\nbuilder: {type: prism}\nsimulation: {dt: 1.0e-300, duration: 1}\n");
  const auto r = run("simulate " + (d / "m.yaml").string() + " -q -o " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "steps is above the limit 1e+09");
}

// Before: lround(1e300 / dt) overflowed and every step was written.
TEST(InputsSteps, OutputIntervalLongerThanTheRunWritesStartAndEndOnly) {
  const auto d = fresh_dir("steps_out");
  const auto r = run("simulate " + kPrism + " --duration 0.05 --dt 0.001 --output-interval 1e300 -q -o " + d.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string csv = slurp(d / "results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // header, t = 0, t = 0.05
  EXPECT_NE(csv.find("\n0.05,"), std::string::npos) << csv;
}

// Before: --frame-interval inf was accepted (nan was refused by the check, inf was not).
TEST(InputsSteps, NonFiniteNumberOptionsAreRefusedByName) {
  for (const std::string& opt :
       std::vector<std::string>{"simulate " + kPrism + " --frame-interval inf", "simulate " + kPrism + " --dt -inf", "sweep --psi-step inf",
                                "sweep --damping nan"}) {
    const auto r = run(opt + " -q -o " + fresh_dir("nonfinite").string());
    EXPECT_EQ(r.code, 1) << opt;
    EXPECT_TRUE(r.out.find("must be a finite number") != std::string::npos || r.out.find("is not a number") != std::string::npos)
        << opt << ": " << r.out;
  }
  const auto r = run("sweep --psi-step inf -q");
  EXPECT_HAS(r.out, "--psi-step: must be a finite number (got inf)");
}

// ------------------------------------------------------------------------------- sweep specs
namespace {
tendyn::test::CliRun spec(const std::string& name, const std::string& text) {
  const auto d = fresh_dir("spec_" + name);
  write_file(d / "s.yaml", text);
  return run("sweep --spec " + (d / "s.yaml").string() + " -q -o " + (d / "o").string());
}
}  // namespace

// Before: inf became -9.2e18 (undefined float-to-int conversion) and ran.
TEST(InputsSpec, NonFiniteGridValueIsRefusedWithPlace) {
  const auto r = spec("inf", "grid: {psi_deg: [10, inf]}\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "s.yaml:1:22: grid.psi_deg[1]: must be a finite number (got 'inf')");
}

// Before: n: 3.7 was truncated to 3.
TEST(InputsSpec, NonIntegerNIsRefused) {
  const auto r = spec("n", "prism: {n: 3.7}\ngrid: {duration_s: [0.01]}\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "s.yaml:1:12: prism.n: must be an integer (got '3.7')");
}

// Before: the second psi_deg silently replaced the first.
TEST(InputsSpec, DuplicateGridKeyIsRefused) {
  const auto r = spec("dup", "grid:\n  psi_deg: [1]\n  psi_deg: [2]\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "s.yaml:3:3: key 'psi_deg' appears twice");
}

// Before: psi_deg was ignored when model: is a file (every point the same run).
TEST(InputsSpec, PrismParameterWithModelFileNamesBothKeys) {
  const auto r = spec("modelfile", "model: " + kPrism + "\ngrid: {psi_deg: [1, 2]}\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "s.yaml:2:8: grid name 'psi_deg' is a prism parameter, but 'model' is the file");
}

// Before: exit 4 ("internal error: [json.exception.type_error.302] type must be number").
TEST(InputsSpec, TypeErrorExits2WithPlace) {
  const auto r = spec("type", "grid:\n  stiffness_Npm: [100, abc]\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "s.yaml:2:24: grid.stiffness_Npm[1]: must be a finite number (got 'abc')");
}

// Before: a 40^5 grid ended in bad_alloc. Refused before expanding, with the count and the limit.
TEST(InputsSpec, GridAboveTheLimitIsRefusedBeforeExpansion) {
  std::string v = "[";
  for (int i = 1; i <= 40; ++i) v += std::to_string(i) + (i < 40 ? "," : "]");
  const auto r = spec("big", "grid: {psi_deg: " + v + ", stiffness_Npm: " + v + ", damping_Nspm: " + v + ", rod_mass_kg: " + v +
                                 ", rest_length_m: " + v + "}\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "grid: the grid has 2560000 points or more, above the limit 1000000");
}

// Before: aliases were expanded when converting to JSON (a billion-laughs spec grew past 556 MB).
TEST(InputsSpec, AliasBombIsRefusedWithTheNodeLimit) {
  std::string text = "threads:\n  - &a [1,1,1,1,1,1,1,1,1,1]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    text += std::string("  - &") + c + " [";
    for (int k = 0; k < 10; ++k) text += std::string(k ? "," : "") + "*" + static_cast<char>(c - 1);
    text += "]\n";
  }
  const auto r = spec("bomb", text + "grid: {duration_s: [0.01]}\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "s.yaml: the spec expands to more than 1000000 YAML nodes, the limit");
}

// Before: "internal error: parse error at line 1" (exit 4) for a corrupt line in the middle.
TEST(InputsSpec, CorruptResultsLineOnResumeNamesFileAndLine) {
  const auto d = fresh_dir("spec_resume");
  write_file(d / "s.yaml", "simulation: {duration_s: 0.01}\ngrid: {psi_deg: [10, 20, 30]}\n");
  ASSERT_EQ(run("sweep --spec " + (d / "s.yaml").string() + " -q -o " + d.string()).code, 0);
  std::string lines = slurp(d / "results.jsonl");
  const auto nl = lines.find('\n');
  lines.replace(nl + 1, 5, "{oops");
  write_file(d / "results.jsonl", lines);
  const auto r = run("sweep --spec " + (d / "s.yaml").string() + " -q -o " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "results.jsonl:2: not a sweep record");
}

// ------------------------------------------------------------------------------- model files
// Before: a non-zero diagonal in S was ignored (MODEL_FORMAT.md says it is rejected).
TEST(InputsModel, NonZeroDiagonalOfSIsRejectedAtItsPlace) {
  const auto d = fresh_dir("model_sdiag");
  write_file(d / "m.yaml",
             "tendyn: tensegrity\n"
             "matrices:\n"
             "  R: [[1, 2]]\n"
             "  S: [[0, 1, 0], [1, 5, 0], [0, 0, 0]]\n"
             "  P: [[0, 0, 0], [0, 0, 0], [0, 0, 1]]\n"
             "  positions: [[0, 0, 0], [0, 0, 1], [1, 0, 0]]\n"
             "  rod: {mass: 1}\n");
  const auto r = run("validate " + (d / "m.yaml").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "m.yaml:4:22: matrices.S[1][1]: the diagonal of S must be 0");
}

// Before: validate said OK, but the exported YAML (12 significant digits) failed its own length check.
TEST(InputsModel, PrismFarAwayIsRefusedWithTheLimit) {
  const auto d = fresh_dir("model_height");
  write_file(d / "m.yaml", "tendyn: tensegrity\nbuilder: {type: prism, height: 9999999999}\n");
  const auto r = run("validate " + (d / "m.yaml").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "m.yaml:2:32: builder.height: must be at most 10000 rod lengths in magnitude");
  // within the limit, export --yaml round-trips
  write_file(d / "ok.yaml", "tendyn: tensegrity\nbuilder: {type: prism, height: 1000}\n");
  ASSERT_EQ(run("export " + (d / "ok.yaml").string() + " --yaml " + (d / "out.yaml").string()).code, 0);
  const auto v = run("validate " + (d / "out.yaml").string());
  EXPECT_EQ(v.code, 0) << v.out;
}

// Before: validate said OK; simulate wrote results.csv, then died in JSON (type_error.316, exit 4).
TEST(InputsModel, NonUtf8ByteIsRejectedAtLoadWithItsPlace) {
  const auto d = fresh_dir("model_latin1");
  write_file(d / "m.yaml", "tendyn: tensegrity\nname: caf\xe9\nbuilder: {type: prism}\n");
  for (const std::string& cmd : std::vector<std::string>{"validate ", "simulate -q --duration 0.01 -o " + (d / "o").string() + " "}) {
    const auto r = run(cmd + (d / "m.yaml").string());
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_HAS(r.out, "m.yaml:2:10: not UTF-8 (byte 0xE9)");
  }
  EXPECT_FALSE(fs::exists(d / "o" / "results.csv"));
#ifdef TENDYN_WITH_TREE
  write_file(d / "r.urdf", "<robot name=\"r\">\n  <link name=\"b\xe9\"/>\n</robot>\n");
  const auto u = run("tree info " + (d / "r.urdf").string());
  EXPECT_EQ(u.code, 2);
  EXPECT_HAS(u.out, "r.urdf:2:16: not UTF-8 (byte 0xE9)");
#endif
}

// Before: "empty model file".
TEST(InputsModel, DirectoryAsModelFileIsNamedAsSuch) {
  const auto d = fresh_dir("model_dir");
  const auto r = run("validate " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "is a directory");
  EXPECT_EQ(r.out.find("empty model file"), std::string::npos) << r.out;
}

// Before: limits were printed with std::to_string (DBL_MAX as 309 digits); the model-level check
// named the file only.
TEST(InputsModel, ModelLevelCheckNamesTheElementAtItsPlaceWithShortNumbers) {
  const auto d = fresh_dir("model_level");
  write_file(d / "m.yaml",
             "tendyn: tensegrity\n"
             "nodes:\n"
             "  - {id: a, position: [0, 0, 0]}\n"
             "  - {id: b, position: [0, 0, 1]}\n"
             "  - {id: c, position: [1, 0, 0], fixed: true}\n"
             "rods:\n"
             "  - {id: r1, nodes: [a, b], mass: 1, length: 1}\n"
             "cables:\n"
             "  - {id: c1, nodes: [b, c], stiffness: 10, rest_length: 1, rest_length_max: 1.0e308, rest_length_min: 2.0e300}\n"
             "drives:\n"
             "  - {cable: c1, sinusoid: {a: 1.0e300, b: 1, c: 0, d: 0}}\n");
  const auto r = run("validate " + (d / "m.yaml").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(
      r.out,
      "m.yaml:9:5: cables[0]: cable 'c1': drive takes the rest length to [-1e+300, 1e+300] m, outside its limits [2e+300, 1e+308] m");
}

// Before: "cable 'c1' has zero or non-finite length (its two nodes coincide)", no time.
TEST(InputsModel, OverflowBlowUpSaysNonFiniteWithTheTime) {
  const auto d = fresh_dir("model_blowup");
  write_file(d / "m.yaml", "tendyn: tensegrity\nbuilder: {type: prism, stiffness: 1.0e308}\n");
  const auto r = run("simulate " + (d / "m.yaml").string() + " -q --duration 0.1 -o " + d.string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_HAS(r.out, "non-finite");
  EXPECT_HAS(r.out, "at t = ");
  EXPECT_EQ(r.out.find("coincide"), std::string::npos) << r.out;
}
