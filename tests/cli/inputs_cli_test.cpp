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
using tendyn::test::slurp;
tendyn::test::CliRun run(const std::string& args) { return tendyn::test::run_cli(args); }
void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
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
  write(d / "m.yaml", "tendyn: tensegrity\nbuilder: {type: prism}\nsimulation: {dt: 1.0e-300, duration: 1}\n");
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
  for (const std::string& opt : std::vector<std::string>{"simulate " + kPrism + " --frame-interval inf", "simulate " + kPrism + " --dt -inf",
                                "sweep --psi-step inf", "sweep --damping nan"}) {
    const auto r = run(opt + " -q -o " + fresh_dir("nonfinite").string());
    EXPECT_EQ(r.code, 1) << opt;
    EXPECT_TRUE(r.out.find("must be a finite number") != std::string::npos || r.out.find("is not a number") != std::string::npos)
        << opt << ": " << r.out;
  }
  const auto r = run("sweep --psi-step inf -q");
  EXPECT_HAS(r.out, "--psi-step: must be a finite number (got inf)");
}
