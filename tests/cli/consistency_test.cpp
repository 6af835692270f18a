// The command line's consistency rules (docs/CLI.md), end to end through the built program: every
// --help shows its defaults, -o is always an output directory, --html always a flag, the exit
// codes 0-4, "did you mean" for a mistyped command, progress only on a terminal (never a carriage
// return in a log), summary.json with the version and the model hash, units in every CSV column,
// "never" as null / an empty cell, no -0 or round-off noise in printed tables.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tendyn/version.hpp>

#include "support/cli_run.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;

using tendyn::test::kModels;

bool has_command(const std::string& name) { return run("--help").out.find("\n  " + name + " ") != std::string::npos; }

/// Runs a shell command line; exit code and stdout + stderr.
tendyn::test::CliRun shell(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

/// FNV-1a 64 (docs/CLI.md), written again here from its definition.
std::string fnv1a64(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// ------------------------------------------------------------------------------- --help parsing
struct HelpEntry {
  std::string section;  ///< Positionals, Options, Subcommands
  std::string name;     ///< first token: "-o,--out", "model", "simulate"
  std::string spec;     ///< the rest of the name column: "TEXT=out/plan", "TEXT:FILE REQUIRED", "" (a flag)
  std::string text;     ///< the description
};

/// The entries of CLI11's help layout: "  NAME SPEC<pad to column 30>DESCRIPTION", the description
/// on the next line(s), indented, when the name column is too wide.
std::vector<HelpEntry> parse_help(const std::string& help) {
  std::vector<HelpEntry> out;
  std::string section;
  const auto ls = lines_of(help);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    if (!l.empty() && l.back() == ':' && l[0] != ' ') {
      section = l.substr(0, l.size() - 1);
      continue;
    }
    if (section.empty() || l.size() < 3 || l[0] != ' ' || l[1] != ' ' || l[2] == ' ') continue;
    const bool wrapped = i + 1 < ls.size() && ls[i + 1].rfind(std::string(20, ' '), 0) == 0;
    std::string name_col = wrapped || l.size() <= 30 ? l.substr(2) : l.substr(2, 28);
    HelpEntry e;
    e.section = section;
    if (wrapped) {
      for (std::size_t k = i + 1; k < ls.size() && ls[k].rfind(std::string(20, ' '), 0) == 0; ++k) e.text += ls[k] + " ";
    } else if (l.size() > 30) {
      e.text = l.substr(30);
    }
    while (!name_col.empty() && name_col.back() == ' ') name_col.pop_back();
    const auto sp = name_col.find(' ');
    e.name = name_col.substr(0, sp);
    e.spec = sp == std::string::npos ? "" : name_col.substr(sp + 1);
    out.push_back(e);
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ------------------------------------------------------------------------------- CSV units
/// Rule 8: a column name ends with a unit suffix, or is one of the documented dimensionless or
/// label columns (docs/CLI.md).
bool column_has_unit(const std::string& c) {
  static const std::vector<std::string> units = {"_s", "_m", "_N", "_J", "_rad", "_radps", "_mps", "_deg", "_Nm", "_kg"};
  static const std::set<std::string> labels = {
      "status",   "loaded",         "variant",       "drive_cables", "normal", "first_slack_cable", "first_overstrain_cable",
      "rollouts", "forced_periods", "triple_spread", "joint"};
  static const std::vector<std::string> dimensionless = {".strain", "_strain", ".slack", ".qw", ".qx", ".qy", ".qz", "_shape", "_unit"};
  auto ends = [&](const std::string& s) { return c.size() >= s.size() && c.compare(c.size() - s.size(), s.size(), s) == 0; };
  if (labels.count(c)) return true;
  return std::any_of(units.begin(), units.end(), ends) || std::any_of(dimensionless.begin(), dimensionless.end(), ends);
}

void expect_units(const fs::path& csv) {
  const std::string text = slurp(csv);
  ASSERT_FALSE(text.empty()) << csv;
  const std::string header = text.substr(0, text.find('\n'));
  const auto cols = split(header, ',');
  for (const auto& c : cols) {
    // a column of mixed units (tree inverse/forward: N m or N per joint) has its unit column beside it
    const bool unit_column = std::find(cols.begin(), cols.end(), c + "_unit") != cols.end();
    EXPECT_TRUE(column_has_unit(c) || unit_column) << csv.filename() << ": column '" << c << "' has no unit";
  }
  // -0 is written as 0
  EXPECT_FALSE(std::regex_search(text, std::regex("(^|,)-0(,|\n)"))) << csv;
}

}  // namespace

// ------------------------------------------------------------------------------------ rule 1
TEST(CliConsistency, EveryHelpShowsTheDefaultsOfItsOptions) {
  std::vector<std::string> todo = {""}, walked;
  while (!todo.empty()) {
    const std::string cmd = todo.back();
    todo.pop_back();
    const auto r = run(cmd + " --help");
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.out;
    walked.push_back(cmd);
    for (const auto& e : parse_help(r.out)) {
      const std::string where = "tendyn " + cmd + " --help: " + e.name;
      if (e.section == "Subcommands") {
        todo.push_back(cmd.empty() ? e.name : cmd + " " + e.name);
        continue;
      }
      if (e.name == "-h,--help" || e.name == "--version") continue;
      if (!e.spec.empty()) {  // takes a value: shows its default, or says what happens without it
        const bool shows_default = e.spec.find('=') != std::string::npos;
        const bool required = e.spec.find("REQUIRED") != std::string::npos;
        EXPECT_TRUE(shows_default || required || lower(e.text).find("default") != std::string::npos)
            << where << " " << e.spec << ": no default shown and none described (" << e.text << ")";
      }
      const auto names = split(e.name, ',');
      if (std::find(names.begin(), names.end(), "--out") != names.end()) {  // rule 2
        EXPECT_NE(e.text.find("directory"), std::string::npos) << where << ": -o/--out must be an output directory";
      }
      if (e.name == "--html") {  // rule 3
        EXPECT_EQ(e.spec, "") << where << ": --html must be a flag";
      }
    }
  }
  EXPECT_GE(walked.size(), 11u);  // the root and its 10 commands without the CDPR and tree modules
  // the values themselves, one per kind of option
  std::vector<std::pair<std::string, std::string>> shown = {{"simulate", "--frame-interval FLOAT:NONNEGATIVE=0.01"},
                                                            {"sweep", "--layout TEXT=centred"},
                                                            {"sweep", "--pivot FLOAT:FLOAT in [0 - 1]=0.7"},
                                                            {"plan", "-o,--out TEXT=out/plan"},
                                                            {"serve", "-p,--port INT=8787"}};
  if (std::find(walked.begin(), walked.end(), "tension study") != walked.end()) {
    shown.push_back({"tension study", "--count INT=1000"});
    shown.push_back({"cdpr-experiment", "--speed FLOAT=0.15"});
  }
  if (std::find(walked.begin(), walked.end(), "tree simulate") != walked.end()) shown.push_back({"tree simulate", "--dt FLOAT=0.001"});
  for (const auto& [cmd, text] : shown) EXPECT_NE(run(cmd + " --help").out.find(text), std::string::npos) << cmd << ": " << text;
}

// ------------------------------------------------------------------------------------ rule 2
TEST(CliConsistency, OutIsAlwaysAnOutputDirectory) {
  const auto d = fresh_dir("outdir");
  auto r = run("formfind " + kModels + "prism3.yaml -o " + (d / "ff").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(run("validate " + (d / "ff" / "model.yaml").string()).code, 0);
  EXPECT_TRUE(nlohmann::json::parse(slurp(d / "ff" / "summary.json"))["converged"].get<bool>());
  // a spec sweep writes DIR/results.jsonl when -o is given (instead of the spec's `out`)
  std::ofstream(d / "spec.yaml") << "model: prism\nsimulation: {duration_s: 0.2}\ngrid:\n  psi_deg: [40, 60]\nout: "
                                 << (d / "unused.jsonl").string() << "\n";
  r = run("sweep -q --spec " + (d / "spec.yaml").string() + " -o " + (d / "sw").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(lines_of(slurp(d / "sw" / "results.jsonl")).size(), 2u);
  EXPECT_FALSE(fs::exists(d / "unused.jsonl"));
  // an existing file where the directory should be: bad input, nothing written
  std::ofstream(d / "file") << "x";
  r = run("simulate --duration 0.1 -o " + (d / "file").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("output directory '" + (d / "file").string() + "' exists and is not a directory"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "file"), "x");
  if (has_command("tree")) {
    const std::string m = kModels + "tree/arm6.yaml";
    ASSERT_EQ(run("tree info " + m + " --format json -o " + (d / "ti").string()).code, 0);
    EXPECT_EQ(nlohmann::json::parse(slurp(d / "ti" / "info.json"))["nlinks"], 7);
    ASSERT_EQ(run("tree inverse " + m + " --format csv -o " + (d / "tv").string()).code, 0);
    expect_units(d / "tv" / "inverse.csv");
    EXPECT_EQ(lines_of(slurp(d / "tv" / "inverse.csv")).size(), 7u);
    ASSERT_EQ(run("tree urdf " + m + " -o " + (d / "tu").string()).code, 0);
    EXPECT_NE(slurp(d / "tu" / "model.urdf").find("<robot"), std::string::npos);
  }
  if (has_command("tension")) {
    std::ofstream(d / "poses.csv") << "t_s,x_m,y_m,z_m,roll,pitch,yaw\n0,0,0,3,0,0,0\n1,0.5,0,3,0,0,0\n";
    r = run("tension trajectory " + kModels + "cdpr/printer8.yaml --in " + (d / "poses.csv").string() + " -o " + (d / "tt").string());
    ASSERT_EQ(r.code, 0) << r.out;
    expect_units(d / "tt" / "tensions.csv");
    EXPECT_TRUE(fs::exists(d / "tt" / "scene.json"));
    EXPECT_FALSE(fs::exists(d / "tt" / "view.html"));  // only with --html
  }
}

// ------------------------------------------------------------------------------------ rule 4
TEST(CliConsistency, Exit0ForHelpAndVersion) {
  for (const char* args : {"--help", "simulate --help", "sweep -h"}) EXPECT_EQ(run(args).code, 0) << args;
  const auto v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out, std::string(tendyn::kVersion) + "\n");
}

TEST(CliConsistency, Exit1ForEveryUsageError) {
  // no command, unknown option, missing value, malformed value, value outside its declared range,
  // missing required argument, extra argument, mistyped command (CLI11 alone would exit 105-109)
  for (const std::string& args :
       std::vector<std::string>{"", "--bogus", "simulate --bogus", "simulate --dt", "simulate --dt abc", "simulate --dt -1",
                                "plan --ramp 2", "validate", "validate " + kModels + "prism3.yaml extra", "simulte"}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 1) << "tendyn " << args << "\n" << r.out;
    EXPECT_FALSE(r.out.empty()) << args;
  }
  EXPECT_NE(run("simulate --dt -1").out.find("--dt: must be > 0 (got -1)"), std::string::npos);
}

TEST(CliConsistency, Exit2ForBadInputNamingTheOptionAndThePath) {
  const auto d = fresh_dir("exit2");
  auto r = run("simulate " + (d / "missing.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("model: no such file: '" + (d / "missing.yaml").string() + "'"), std::string::npos) << r.out;
  r = run("sweep --spec " + (d / "spec.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--spec: no such file: '" + (d / "spec.yaml").string() + "'"), std::string::npos) << r.out;
  r = run("validate " + d.string());  // a directory where a file is expected
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("is a directory, not a file"), std::string::npos) << r.out;
  EXPECT_EQ(run("view " + (d / "nothing").string()).code, 2);
  EXPECT_EQ(run("sweep --psi-step 0").code, 2);  // a value the command rejects
  r = run("plan --increment stair");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("plan: --increment: unknown increment shape 'stair' (valid: ramp, step)"), std::string::npos) << r.out;
  r = run("plan --increment step --ramp 0.5");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--ramp applies to --increment ramp only"), std::string::npos) << r.out;
  std::ofstream(d / "bad.yaml") << "tendyn: tensegrity\nrods: [1, 2\n";
  r = run("validate " + (d / "bad.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("bad.yaml:"), std::string::npos) << r.out;
  if (has_command("tension")) {
    r = run("tension trajectory " + kModels + "cdpr/printer8.yaml --in " + (d / "p.csv").string());
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("--in: no such file"), std::string::npos) << r.out;
  }
}

TEST(CliConsistency, Exit3ForASimulationFailure) {
  const auto d = fresh_dir("exit3");
  std::ofstream(d / "stiff.yaml") << "tendyn: tensegrity\nbuilder:\n  type: prism\n  stiffness: 1.0e7\n";
  const auto r = run("simulate " + (d / "stiff.yaml").string() + " --dt 0.01 --duration 5 -o " + (d / "out").string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("simulation failed"), std::string::npos) << r.out;
}

TEST(CliConsistency, Exit4ForAnInternalError) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit below";
#endif
  if (!has_command("tension")) GTEST_SKIP() << "built without the CDPR module";
  // out of memory (address space limited to 400 MB; a billion problems' rows do not fit)
  const auto r = shell("ulimit -v 400000; exec " + std::string(TENDYN_CLI) + " tension study --count 1000000000");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("internal error"), std::string::npos) << r.out;
}

// ------------------------------------------------------------------------------------ rule 5
TEST(CliConsistency, MistypedCommandSuggestsTheNearest) {
  auto r = run("simulte");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "tendyn: unknown command 'simulte'; did you mean 'simulate'?\n");
  EXPECT_NE(run("plna").out.find("did you mean 'plan'?"), std::string::npos);                // transposition
  EXPECT_NE(run("formfnd x.yaml").out.find("did you mean 'formfind'?"), std::string::npos);  // with arguments after it
  r = run("frobnicate");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("unknown command 'frobnicate' (commands: simulate, sweep,"), std::string::npos) << r.out;
  if (has_command("tree")) {
    r = run("tree simulte " + kModels + "tree/arm6.yaml");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("tendyn tree: unknown command 'simulte'; did you mean 'simulate'?"), std::string::npos) << r.out;
  }
  if (has_command("tension")) {
    EXPECT_NE(run("tension studdy").out.find("did you mean 'study'?"), std::string::npos);
  }
  // a positional argument of a real command is not a command
  r = run("validate simulte");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find("unknown command"), std::string::npos) << r.out;
}

// ------------------------------------------------------------------------------------ rule 6
namespace {
/// The commands that can run longer than ~3 s (short runs of them here) and their progress labels.
std::vector<std::pair<std::string, std::string>> long_commands(const fs::path& d) {
  std::vector<std::pair<std::string, std::string>> c = {
      {"simulate --duration 2 -o " + (d / "sim").string(), "simulate"},
      {"sweep --psi-min 40 --psi-max 44 --psi-step 2 --duration 1 -o " + (d / "sweep").string(), "sweep"},
      {"plan --duration 0.2 --drive c1,c2 -o " + (d / "plan").string(), "plan"},
      {"study distributions --duration 0.1 --no-plot -o " + (d / "study").string(), "study distributions"}};
  if (has_command("tension")) {
    c.push_back({"tension study --count 100", "tension study"});
    c.push_back({"cdpr-experiment --speed 1 --no-plot -o " + (d / "cdpr").string(), "cdpr-experiment"});
  }
  return c;
}
}  // namespace

TEST(CliConsistency, NoProgressLinesOrCarriageReturnsWhenStderrIsNotATerminal) {
  const auto d = fresh_dir("noprogress");
  for (const auto& [args, label] : long_commands(d)) {
    std::string err;
    const auto r = tendyn::test::run_cli_stderr_apart(args, err);
    ASSERT_EQ(r.code, 0) << args << "\n" << err;
    EXPECT_EQ(err.find('\r'), std::string::npos) << args << ": " << err;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << args;
    EXPECT_EQ(err.find("elapsed"), std::string::npos) << args << ": " << err;
  }
}

TEST(CliConsistency, LongCommandsShowProgressOnATerminal) {
  if (shell("command -v script").code != 0) GTEST_SKIP() << "no script(1) to give the program a terminal";
  const auto d = fresh_dir("progress");
  for (const auto& [args, label] : long_commands(d)) {
    // script(1) runs the command on a pseudo-terminal
    const auto r = shell("script -qec \"" + std::string(TENDYN_CLI) + " " + args + "\" /dev/null");
    ASSERT_EQ(r.code, 0) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("\r" + label + ": "), std::string::npos) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(label + ": 100.0%"), std::string::npos) << args << "\n" << r.out;
  }
}

// ------------------------------------------------------------------------------------ rule 7
TEST(CliConsistency, CdprExperimentWritesSummaryJsonAndItsPlot) {
  if (!has_command("cdpr-experiment")) GTEST_SKIP() << "built without the CDPR module";
  const auto d = fresh_dir("cdpr");
  const auto r = run("cdpr-experiment --speed 1 -q -o " + d.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "");  // -q
  for (const char* f : {"stage1_without.csv", "stage2_with.csv", "summary.json", "summary.txt", "scene.json"})
    EXPECT_TRUE(fs::exists(d / f)) << f;
  const auto s = nlohmann::json::parse(slurp(d / "summary.json"));
  EXPECT_GT(s["stage1_without"]["worst_lower_norm_N"].get<double>(), 1000.0);
  EXPECT_GT(s["stage2_with"]["samples"].get<int>(), 100);
  EXPECT_DOUBLE_EQ(s["options"]["speed_mps"].get<double>(), 1.0);
  EXPECT_EQ(s["tendyn"]["version"], std::string(tendyn::kVersion));
  EXPECT_TRUE(s["tendyn"]["model_file"].is_null());  // the default model
  EXPECT_EQ(s["tendyn"]["model_fnv1a64"], fnv1a64(slurp(kModels + "cdpr/printer8.yaml")));
  expect_units(d / "stage1_without.csv");
  expect_units(d / "stage2_with.csv");
  if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0) {
    EXPECT_GT(fs::file_size(d / "experiment.png"), 10000u);
  }
}

// ------------------------------------------------------------------------------------ rule 8
TEST(CliConsistency, EveryCsvColumnCarriesItsUnitAndNeverIsEmptyOrNull) {
  const auto d = fresh_dir("units");
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + (d / "sim").string()).code, 0);
  expect_units(d / "sim" / "results.csv");
  // normal run: no slack ever -> null, not -1
  const auto sum = nlohmann::json::parse(slurp(d / "sim" / "summary.json"));
  EXPECT_TRUE(sum["normal_mode"]["normal"].get<bool>());
  EXPECT_TRUE(sum["normal_mode"]["first_slack_time_s"].is_null());
  EXPECT_TRUE(sum["cables"][0]["first_slack_time_s"].is_null());
  ASSERT_EQ(run("plan -q --duration 0.2 --drive c1,c2 -o " + (d / "plan").string()).code, 0);
  expect_units(d / "plan" / "schedule.csv");
  ASSERT_EQ(run("study drive-vs-passive -q --duration 0.1 --no-plot -o " + (d / "study").string()).code, 0);
  expect_units(d / "study" / "drive-vs-passive.csv");
  // psi 24 deg leaves the normal mode (a cable goes slack), 50 deg stays in it (with l0 = 0.14 m:
  // with the default 0.2 m no angle is normal in the default centred layout)
  ASSERT_EQ(run("sweep -q --psi-min 24 --psi-max 50 --psi-step 26 --duration 3 --rest-length 0.14 -o " + (d / "sweep").string()).code, 0);
  expect_units(d / "sweep" / "sweep.csv");
  const auto rows = lines_of(slurp(d / "sweep" / "sweep.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const auto head = split(rows[0], ',');
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  const auto slack = split(rows[1], ','), normal = split(rows[2], ',');
  EXPECT_EQ(slack[col("normal")], "0");
  EXPECT_FALSE(slack[col("first_slack_time_s")].empty());
  EXPECT_EQ(normal[col("normal")], "1");
  EXPECT_EQ(normal[col("first_slack_time_s")], "");
  EXPECT_EQ(normal[col("first_slack_cable")], "");
  EXPECT_EQ(normal[col("first_overstrain_time_s")], "");
  // spec sweep records: null (this point goes slack at 0.143 s, never over-strains)
  std::ofstream(d / "spec.yaml") << "model: prism\nsimulation: {duration_s: 0.2}\ngrid:\n  psi_deg: [50]\nout: " << (d / "r.jsonl").string()
                                 << "\n";
  ASSERT_EQ(run("sweep -q --spec " + (d / "spec.yaml").string()).code, 0);
  const auto rec = nlohmann::json::parse(lines_of(slurp(d / "r.jsonl")).at(0));
  EXPECT_NEAR(rec["result"]["first_slack_time_s"].get<double>(), 0.143, 1e-9);
  EXPECT_TRUE(rec["result"]["first_overstrain_time_s"].is_null());
  EXPECT_TRUE(rec["result"]["first_overstrain_cable"].is_null());
  if (has_command("tree")) {
    const std::string m = kModels + "tree/double_pendulum.yaml";
    ASSERT_EQ(run("tree simulate " + m + " --duration 0.05 -o " + (d / "tree").string()).code, 0);
    expect_units(d / "tree" / "results.csv");
    ASSERT_EQ(run("tree forward " + m + " --format csv -o " + (d / "tf").string()).code, 0);
    expect_units(d / "tf" / "forward.csv");
    EXPECT_NE(slurp(d / "tf" / "forward.csv").find(",rad/s^2,"), std::string::npos);
    ASSERT_EQ(run("tree simulate " + kModels + "tree/biped.yaml --base free --duration 0.01 -o " + (d / "free").string()).code, 0);
    expect_units(d / "free" / "results.csv");
  }
}

// ------------------------------------------------------------------------------------ rule 9
TEST(CliConsistency, TablesPrintZeroNotNegativeZeroOrRoundOffNoise) {
  // -0, -0.0000 or a tiny e-1x value printed where the quantity is zero up to round-off
  const std::regex noise(R"((^|[ (,=])[-+]?[0-9.]+e-1[0-9]\b|(^|[ (,=])-0(\.0+)?([ ,)]|$))");
  const auto check = [&](const std::string& args) {
    const auto r = run(args);
    ASSERT_EQ(r.code, 0) << args << "\n" << r.out;
    for (const auto& l : lines_of(r.out)) EXPECT_FALSE(std::regex_search(l, noise)) << args << ": " << l;
  };
  const auto d = fresh_dir("zeros");
  check("simulate --duration 1 -o " + d.string());  // the COM of the symmetric prism: x, y = 0 (+-1e-17 computed)
  if (has_command("tree")) check("tree inverse " + kModels + "tree/arm6.yaml");          // tau_1 = 0 (-5.6e-17 computed)
  if (has_command("tension")) check("tension solve " + kModels + "cdpr/printer8.yaml");  // residuals ~1e-12 of 3e3 N
  // the files keep the computed value
  if (has_command("tree")) {
    EXPECT_NE(run("tree inverse " + kModels + "tree/arm6.yaml --format csv").out.find("e-17"), std::string::npos);
  }
}

// ----------------------------------------------------------------------------------- rule 10
TEST(CliConsistency, SummaryJsonRecordsTheVersionAndTheModelHash) {
  const auto d = fresh_dir("provenance");
  const fs::path model = d / "prism3.yaml";
  fs::copy_file(kModels + "prism3.yaml", model);
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + (d / "a").string() + " " + model.string()).code, 0);
  auto s = nlohmann::json::parse(slurp(d / "a" / "summary.json"));
  EXPECT_EQ(s["tendyn"]["version"], std::string(tendyn::kVersion));
  EXPECT_EQ(s["tendyn"]["model_file"], model.string());
  EXPECT_EQ(s["tendyn"]["model_fnv1a64"], fnv1a64(slurp(model)));
  // a comment changes the file's bytes (so its hash), not the results
  std::ofstream(model, std::ios::app) << "# edited\n";
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + (d / "b").string() + " " + model.string()).code, 0);
  const auto s2 = nlohmann::json::parse(slurp(d / "b" / "summary.json"));
  EXPECT_EQ(s2["tendyn"]["model_fnv1a64"], fnv1a64(slurp(model)));
  EXPECT_NE(s2["tendyn"]["model_fnv1a64"], s["tendyn"]["model_fnv1a64"]);
  EXPECT_EQ(slurp(d / "a" / "results.csv"), slurp(d / "b" / "results.csv"));
  // the built-in model: the hash of its YAML as `tendyn export --yaml` writes it
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + (d / "c").string()).code, 0);
  ASSERT_EQ(run("export --yaml " + (d / "builtin.yaml").string()).code, 0);
  s = nlohmann::json::parse(slurp(d / "c" / "summary.json"));
  EXPECT_TRUE(s["tendyn"]["model_file"].is_null());
  EXPECT_EQ(s["tendyn"]["model_fnv1a64"], fnv1a64(slurp(d / "builtin.yaml")));
  // the other summaries: plan, formfind, sweep
  ASSERT_EQ(run("plan -q --duration 0.2 --drive c1,c2 -o " + (d / "plan").string() + " " + kModels + "three_bar.yaml").code, 0);
  s = nlohmann::json::parse(slurp(d / "plan" / "summary.json"));
  EXPECT_EQ(s["tendyn"]["model_fnv1a64"], fnv1a64(slurp(kModels + "three_bar.yaml")));
  EXPECT_GT(s["rollouts"].get<int>(), 0);
  ASSERT_EQ(run("formfind " + model.string() + " -o " + (d / "ff").string()).code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(d / "ff" / "summary.json"))["tendyn"]["model_fnv1a64"], fnv1a64(slurp(model)));
  ASSERT_EQ(run("sweep -q --psi-min 40 --psi-max 40 --duration 0.2 -o " + (d / "sweep").string()).code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(d / "sweep" / "sweep.json"))["tendyn"]["version"], std::string(tendyn::kVersion));
}
