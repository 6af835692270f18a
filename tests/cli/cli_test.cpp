// The tendyn program end to end: exit codes, messages, files written (and never half-written),
// byte-identical results on repeated runs.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;

using tendyn::test::write_file;

using tendyn::test::kModels;

}  // namespace

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "simulate", "sweep", "validate", "export"}) {
    const auto r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.code, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
  EXPECT_NE(run("").code, 0);
}

TEST(Cli, SimulateDefaultModelWritesResults) {
  const auto d = fresh_dir("default");
  const auto r = run("simulate --duration 1 -o " + d.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("normal mode"), std::string::npos);
  ASSERT_TRUE(fs::exists(d / "results.csv"));
  ASSERT_TRUE(fs::exists(d / "summary.json"));
  const auto csv = slurp(d / "results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 101) << "header + 101 rows at 0.01 s";
  EXPECT_NE(csv.find("top1.strain"), std::string::npos);
  for (const auto& e : fs::directory_iterator(d))
    EXPECT_EQ(e.path().extension(), e.path().extension() == ".partial" ? "" : e.path().extension());
}

// A passive model gains no energy; when the integration makes it (the tower's resting feet creep
// on the impulse ground), the summary says so instead of leaving it in a column. A free 3-prism
// without drives keeps its energy to round-off and gets no note.
TEST(Cli, SimulateNotesEnergyRiseOfAPassiveModel) {
  const auto d = fresh_dir("passive_rise");
  const auto r = run("simulate " + kModels + "tower.yaml --duration 30 --no-csv -o " + d.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("note: the total energy rose by"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("impulse ground creeps"), std::string::npos) << r.out;
  const auto d2 = fresh_dir("passive_flat");
  const auto r2 = run("simulate " + kModels + "prism3.yaml --duration 2 --no-csv -o " + d2.string());
  ASSERT_EQ(r2.code, 0) << r2.out;
  EXPECT_EQ(r2.out.find("note: the total energy rose"), std::string::npos) << r2.out;
}

// A cable with rest length 0 has no strain (l - l0) / l0: results.csv writes nan, summary.json
// null, and the run is not normal (before: strain 0 throughout and "normal mode: yes" on that basis).
TEST(Cli, ZeroRestLengthCableHasUndefinedStrainAndIsNotNormal) {
  const auto d = fresh_dir("zero_rest");
  std::string model = slurp(kModels + "three_bar.yaml");
  const std::string c7 = "{id: c7, nodes: [n1, n6], stiffness: 300, damping: 0.5, rest_length: 0.2}";
  const auto at = model.find(c7);
  ASSERT_NE(at, std::string::npos);
  model.replace(at, c7.size(), "{id: c7, nodes: [n1, n6], stiffness: 3, damping: 0.5, rest_length: 0}");
  write_file(d / "zero.yaml", model);
  const auto r = run("simulate " + (d / "zero.yaml").string() + " --duration 0.05 -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("normal mode: NO"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cable c7 at t = 0.0000 s"), std::string::npos) << r.out;  // first over-strain
  const auto summary = slurp(d / "out" / "summary.json");
  EXPECT_NE(summary.find("\"normal\": false"), std::string::npos);
  EXPECT_NE(summary.find("\"strain_undefined_cables\": [\n      \"c7\"\n    ]"), std::string::npos) << summary;
  const auto c7_id = summary.find("\"id\": \"c7\"");
  ASSERT_NE(c7_id, std::string::npos);
  const auto c7_entry = summary.rfind('{', c7_id);  // keys are sorted: final_strain comes before id
  EXPECT_NE(summary.find("\"final_strain\": null", c7_entry), std::string::npos);
  EXPECT_NE(summary.find("\"max_strain\": null", c7_entry), std::string::npos);
  const auto csv = slurp(d / "out" / "results.csv");
  const std::string header = csv.substr(0, csv.find('\n')),
                    row = csv.substr(csv.find('\n') + 1, csv.find('\n', csv.find('\n') + 1) - csv.find('\n') - 1);
  const auto column = [](const std::string& line, const std::string& name_or_empty, std::size_t index) {
    std::size_t k = 0, start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i)
      if (i == line.size() || line[i] == ',') {
        if (k == index) return line.substr(start, i - start);
        ++k;
        start = i + 1;
      }
    return name_or_empty;
  };
  std::size_t idx = 0, c8idx = 0;
  for (std::size_t k = 0;; ++k) {
    const auto name = column(header, "", k);
    if (name.empty()) break;
    if (name == "c7.strain") idx = k;
    if (name == "c8.strain") c8idx = k;
  }
  ASSERT_GT(idx, 0U);
  EXPECT_EQ(column(row, "?", idx), "nan");
  EXPECT_NE(column(row, "?", c8idx), "nan");
  // the unchanged model stays as it was
  const auto base = run("simulate " + kModels + "three_bar.yaml --duration 0.05 -o " + (d / "base").string());
  ASSERT_EQ(base.code, 0) << base.out;
  EXPECT_EQ(slurp(d / "base" / "summary.json").find("strain_undefined_cables"), std::string::npos);
}

TEST(Cli, RepeatedRunsAreByteIdentical) {
  const auto a = fresh_dir("det_a"), b = fresh_dir("det_b");
  for (const auto& d : {a, b}) ASSERT_EQ(run("simulate " + kModels + "superball.yaml --duration 2 -q -o " + d.string()).code, 0);
  EXPECT_EQ(slurp(a / "results.csv"), slurp(b / "results.csv"));
  EXPECT_EQ(slurp(a / "summary.json"), slurp(b / "summary.json"));
  EXPECT_GT(slurp(a / "results.csv").size(), 10000u);
}

TEST(Cli, BadModelFileExits2WithPlaceAndReason) {
  const auto d = fresh_dir("bad");
  const auto model = d / "bad.yaml";
  write_file(model, "tendyn: tensegrity\nbuilder:\n  type: prism\n  rod_mass: -1\n");
  const auto r = run("simulate " + model.string() + " -o " + (d / "out").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad.yaml:4:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("builder.rod_mass"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "out" / "results.csv"));
  EXPECT_EQ(run("validate " + model.string()).code, 2);
}

TEST(Cli, BlowUpExits3AndLeavesNoFiles) {
  const auto d = fresh_dir("blowup");
  const auto model = d / "stiff.yaml";
  write_file(model, "tendyn: tensegrity\nbuilder:\n  type: prism\n  stiffness: 1.0e7\n");
  const auto r = run("simulate " + model.string() + " --dt 0.01 --duration 5 -o " + d.string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("simulation failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("t = "), std::string::npos) << r.out;
  for (const auto& e : fs::directory_iterator(d)) EXPECT_EQ(e.path().filename(), "stiff.yaml") << "left behind: " << e.path();
}

TEST(Cli, ValidateAndExportMjcf) {
  const auto v = run("validate " + kModels + "prism3.yaml");
  EXPECT_EQ(v.code, 0) << v.out;
  EXPECT_NE(v.out.find("3 rods"), std::string::npos) << v.out;
  const auto d = fresh_dir("export");
  const auto r = run("export " + kModels + "superball.yaml --mjcf " + (d / "sb.xml").string());
  // relative-velocity damping has no MuJoCo equivalent: approximated, and said on stderr and in the file
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("export: relative-velocity damping (document 000 eq. 3) of 24 elements is approximated"), std::string::npos)
      << r.out;
  EXPECT_NE(slurp(d / "sb.xml").find("* relative-velocity damping (document 000 eq. 3) of 24 elements"), std::string::npos);
  const auto r2 = run("export --mjcf " + (d / "p.xml").string() + " --yaml " + (d / "p.yaml").string());
  EXPECT_EQ(r2.code, 0) << r2.out;
  EXPECT_NE(r2.out.find("export: relative-velocity damping"), std::string::npos) << "built-in model has eq. (3) damping too";
  write_file(d / "axial.yaml", "tendyn: tensegrity\nbuilder: {type: expanded-octahedron, damping: 1.0}\n");
  const auto r3 = run("export " + (d / "axial.yaml").string() + " --mjcf " + (d / "o.xml").string() + " --yaml " + (d / "o.yaml").string());
  ASSERT_EQ(r3.code, 0) << r3.out;
  const auto xml = slurp(d / "o.xml");
  std::size_t count = 0;
  for (auto pos = xml.find("<spatial"); pos != std::string::npos; pos = xml.find("<spatial", pos + 1)) ++count;
  EXPECT_EQ(count, 24u);
  EXPECT_NE(xml.find("<freejoint/>"), std::string::npos);
  EXPECT_EQ(run("validate " + (d / "o.yaml").string()).code, 0);
}

TEST(Cli, SweepWritesTableAndRange) {
  const auto d = fresh_dir("sweep");
  // the default layout is the authors' (centred, radius L/8); with their stated l0 = 0.2 m no angle
  // is normal, with 0.14 m a range appears (docs/VALIDATION.md)
  auto r = run("sweep --psi-min 30 --psi-max 76 --psi-step 4 --duration 6 --rest-length 0.14 -q -o " + d.string());
  ASSERT_EQ(r.code, 0) << r.out;
  auto json = slurp(d / "sweep.json");
  EXPECT_NE(json.find("\"normal_range_deg\": ["), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("\"layout\": \"centred\""), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("\"radius_m\": 0.0375"), std::string::npos) << json.substr(0, 400);
  const auto csv = slurp(d / "sweep.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 12);
  EXPECT_EQ(run("sweep --psi-step 0 -o " + d.string()).code, 2);
  // --layout pivot --radius: today's layout, its radius and pivot written
  r = run("sweep --psi-min 50 --psi-max 50 --duration 0.1 --layout pivot --radius 0.1 -q -o " + d.string());
  ASSERT_EQ(r.code, 0) << r.out;
  json = slurp(d / "sweep.json");
  EXPECT_NE(json.find("\"layout\": \"pivot\""), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("\"radius_m\": 0.1"), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("\"pivot\": 0.7"), std::string::npos) << json.substr(0, 400);
  r = run("sweep --layout centered -o " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("sweep: --layout: unknown prism layout 'centered' (valid: pivot, centred)"), std::string::npos) << r.out;
}

TEST(Cli, SweepSpecRunsAndResumes) {
  const auto d = fresh_dir("spec");
  const auto out = d / "results.jsonl";
  write_file(d / "spec.yaml",
             "model: prism\nprism: {damping_Nspm: 5.0}\nsimulation: {duration_s: 0.5}\ngrid:\n  psi_deg: [30, 50, 70]\n"
             "  stiffness_Npm: [8, 12]\nout: " +
                 out.string() + "\n");
  ASSERT_EQ(run("sweep --spec " + (d / "spec.yaml").string() + " -q").code, 0);
  const auto full = slurp(out);
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 6);
  // cut the file in the middle of its last record: the rerun redoes only that point
  std::ofstream(out, std::ios::trunc) << full.substr(0, full.size() - 40);
  const auto r = run("sweep --spec " + (d / "spec.yaml").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 points (5 already in"), std::string::npos) << r.out;
  const auto again = slurp(out);
  EXPECT_EQ(std::count(again.begin(), again.end(), '\n'), 6);
  write_file(d / "bad.yaml", "model: prism\ngrid:\n  psi_degrees: [30]\nout: " + (d / "b.jsonl").string() + "\n");
  const auto b = run("sweep --spec " + (d / "bad.yaml").string());
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.out.find("psi_degrees"), std::string::npos) << b.out;
}

TEST(Cli, FormfindOnGroundWritesTheRestStateWithItsCommandAndResiduals) {
  const auto d = fresh_dir("formfind-ground");
  const auto r = run("formfind " + kModels + "gen/three_bar_lying_4-1.yaml --on-ground --settle-only -o " + (d / "rest").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("at rest on the ground: residual"), std::string::npos) << r.out;
  const std::string yaml = slurp(d / "rest" / "model.yaml");
  EXPECT_EQ(yaml.rfind("# Equilibrium found by: tendyn formfind ", 0), 0U) << yaml.substr(0, 200);
  EXPECT_NE(yaml.find("--on-ground --settle-only\n# at rest on the ground (tensegrity::settle_on_ground): residual "), std::string::npos);
  EXPECT_NE(yaml.find("0 slack, contacts n2,n4,n5"), std::string::npos) << yaml.substr(0, 400);
  EXPECT_EQ(run("validate " + (d / "rest" / "model.yaml").string()).code, 0);
  const std::string summary = slurp(d / "rest" / "summary.json");
  EXPECT_NE(summary.find("\"slack_cables\": 0"), std::string::npos) << summary;
  // the settle options need --on-ground (usage error); a slack cable at rest is bad input naming it
  const auto u = run("formfind " + kModels + "tower_guess.yaml --settle-only -o " + (d / "x").string());
  EXPECT_EQ(u.code, 1) << u.out;
  EXPECT_NE(u.out.find("--settle-only"), std::string::npos) << u.out;
  EXPECT_NE(u.out.find("needs --on-ground"), std::string::npos) << u.out;
  EXPECT_FALSE(fs::exists(d / "x"));
  std::string loose = slurp(fs::path(kModels) / "tower.yaml");
  const auto at = loose.find("rest_length: 0.95", loose.find("id: c22"));
  ASSERT_NE(at, std::string::npos);
  loose.replace(at, 17, "rest_length: 2.0");
  std::ofstream(d / "loose.yaml") << loose;
  const auto s = run("formfind " + (d / "loose.yaml").string() + " --on-ground --settle-only -o " + (d / "y").string());
  EXPECT_EQ(s.code, 2) << s.out;
  EXPECT_NE(s.out.find("c22 (length"), std::string::npos) << s.out;
  EXPECT_FALSE(fs::exists(d / "y"));
}
