// Sweep specs (tensegrity/sweep.hpp): grid expansion, errors with their places, a point's metrics
// against a direct simulate, the results file's bytes for any thread count and after a resume.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/sweep.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

#include "support/error_of.hpp"

namespace ts = tendyn::tensegrity;
namespace fs = std::filesystem;

namespace {

using tendyn::test::error_of;

fs::path fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("tendyn_sweep_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kModelsDir = TENDYN_SOURCE_DIR "/models";

}  // namespace

TEST(Sweep, GridIsTheCartesianProductFirstNameSlowestInFileOrder) {
  const auto spec = ts::sweep_spec_from_string("grid:\n  stiffness_Npm: [8, 10.5, 12]\n  psi_deg: [40, 30]\n", "s.yaml");
  EXPECT_EQ(ts::sweep_npoint(spec), 6.0);
  const auto points = ts::grid_points(spec);
  ASSERT_EQ(points.size(), 6u);
  const double expected[6][2] = {{8, 40}, {8, 30}, {10.5, 40}, {10.5, 30}, {12, 40}, {12, 30}};
  for (std::size_t i = 0; i < 6; ++i) {
    ASSERT_EQ(points[i].size(), 2u);
    EXPECT_EQ(points[i][0].name, "stiffness_Npm");
    EXPECT_EQ(points[i][1].name, "psi_deg");
    EXPECT_EQ(points[i][0].value.number, expected[i][0]) << i;
    EXPECT_EQ(points[i][1].value.number, expected[i][1]) << i;
  }
  // integers stay integers in the records, keys sorted (the results file's bytes)
  EXPECT_EQ(ts::sweep_point_json(points[2]), "{\"psi_deg\":40,\"stiffness_Npm\":10.5}");
  EXPECT_EQ(points[0][0].value.kind, ts::SweepValue::Kind::kInteger);
  EXPECT_EQ(points[2][0].value.kind, ts::SweepValue::Kind::kReal);
  EXPECT_EQ(points[2][0].value.place, "s.yaml:2:22");
  EXPECT_EQ(ts::check_sweep_spec("grid: {psi_deg: [1, 2, 3], duration_s: [0.1, 0.2]}\n", "s.yaml"), 6u);
  // point i made alone (what run_sweep does) is point i of the expansion
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(ts::sweep_point_json(ts::grid_point(spec, i)), ts::sweep_point_json(points[i])) << i;
  EXPECT_THROW((void)ts::grid_point(spec, 6), std::out_of_range);
}

TEST(Sweep, BadSpecsAreRefusedWithTheirPlace) {
  std::string bomb = "threads:\n  - &a [1,1,1,1,1,1,1,1,1,1]\n";
  for (char c = 'b'; c <= 'g'; ++c) {
    bomb += std::string("  - &") + c + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? "," : "") + "*" + static_cast<char>(c - 1);
    bomb += "]\n";
  }
  std::string v = "[";
  for (int i = 1; i <= 40; ++i) v += std::to_string(i) + (i < 40 ? "," : "]");
  const std::pair<std::string, std::string> cases[] = {
      {"grid: {psi_deg: [10, inf]}\n", "s.yaml:1:22: grid.psi_deg[1]: must be a finite number (got 'inf')"},
      {"prism: {n: 3.7}\ngrid: {duration_s: [0.01]}\n", "s.yaml:1:12: prism.n: must be an integer (got '3.7')"},
      {"grid:\n  psi_deg: [1]\n  psi_deg: [2]\n", "s.yaml:3:3: key 'psi_deg' appears twice"},
      {"grid:\n  stiffness_Npm: [100, abc]\n", "s.yaml:2:24: grid.stiffness_Npm[1]: must be a finite number (got 'abc')"},
      {"prism: {stiffnes_Npm: 5}\ngrid: {psi_deg: [1]}\n", "s.yaml:1:9: prism has no field 'stiffnes_Npm'"},
      {"simulation: {dt: 0.1}\ngrid: {psi_deg: [1]}\n", "s.yaml:1:14: simulation has no field 'dt'"},
      {"grid: {psi: [1]}\n", "s.yaml:1:8: grid name 'psi' is neither a prism nor a simulation field"},
      {"model: " + kModelsDir + "/prism3.yaml\ngrid: {psi_deg: [1, 2]}\n",
       "s.yaml:2:8: grid name 'psi_deg' is a prism parameter, but 'model' is the file"},
      {"model: " + kModelsDir + "/prism3.yaml\nprism: {n: 3}\ngrid: {duration_s: [1]}\n", "s.yaml:2:8: prism: 'prism' is given but"},
      {"prism: {damping_law: sideways}\ngrid: {psi_deg: [1]}\n",
       "prism.damping_law: unknown damping law 'sideways' (valid: axial, relative_velocity)"},
      {"grid: {integrator: [rk5]}\n", "s.yaml:1:21: grid.integrator[0]: "},
      {"prism: {layout: centered}\ngrid: {psi_deg: [1]}\n", "prism.layout: unknown prism layout 'centered' (valid: pivot, centred)"},
      {"grid: {layout: [pivot, 3]}\n", "grid.layout[1]: must be text"},
      {"grid: {psi_deg: []}\n", "s.yaml:1:17: grid.psi_deg: must be a non-empty list"},
      {"model: prism\n", "s.yaml:1:1: needs a 'grid' mapping name -> list of values"},
      {"grids: {psi_deg: [1]}\n", "s.yaml:1:1: grids: unknown field 'grids' (allowed: model, prism, simulation, grid, out, threads)"},
      {"threads: -1\ngrid: {psi_deg: [1]}\n", "s.yaml:1:10: threads: must be an integer in [0, 4096]"},
      {"grid: {psi_deg: " + v + ", stiffness_Npm: " + v + ", damping_Nspm: " + v + ", rod_mass_kg: " + v + "}\n",
       "grid: the grid has 2560000 points or more, above the limit 1000000"},
      {bomb + "grid: {duration_s: [0.01]}\n", "s.yaml: the spec expands to more than 1000000 YAML nodes, the limit"},
  };
  for (const auto& [text, message] : cases) {
    const std::string e = error_of([&] { (void)ts::sweep_spec_from_string(text, "s.yaml"); });
    EXPECT_NE(e.find(message), std::string::npos) << "spec:\n" << text.substr(0, 200) << "\nerror: " << e;
  }
}

TEST(Sweep, SpecBuiltInCodeIsCheckedAlikeAndNamedBySpecName) {
  ts::SweepSpec spec;  // name "sweep spec": the place of values without one
  spec.prism.push_back({"stiffnes_Npm", ts::SweepValue::real(5.0), ""});
  EXPECT_EQ(error_of([&] { ts::validate(spec); }), "sweep spec: prism has no field 'stiffnes_Npm'");
  spec.prism.clear();
  spec.prism.push_back({"n", ts::SweepValue::real(3.5), ""});
  EXPECT_EQ(error_of([&] { ts::validate(spec); }), "sweep spec: prism.n: must be an integer (got '3.5')");
  spec.prism.clear();
  const ts::SweepPoint unknown = {{"psi", ts::SweepValue::integer(10), ""}};
  EXPECT_EQ(error_of([&] { (void)ts::make_sweep_setup(spec, unknown); }),
            "sweep spec: grid name 'psi' is neither a prism nor a simulation field");
  const ts::SweepPoint inf = {{"psi_deg", ts::SweepValue::real(std::numeric_limits<double>::infinity()), ""}};
  EXPECT_EQ(error_of([&] { (void)ts::make_sweep_setup(spec, inf); }), "sweep spec: grid.psi_deg: must be a finite number (got 'inf')");
}

TEST(Sweep, PointMetricsEqualADirectSimulation) {
  const auto spec = ts::sweep_spec_from_string(
      "prism: {damping_Nspm: 5.0, damping_law: relative_velocity}\nsimulation: {duration_s: 0.2}\ngrid: {psi_deg: [50], stiffness_Npm: [12]}\n",
      "s.yaml");
  const auto points = ts::grid_points(spec);
  ASSERT_EQ(points.size(), 1u);
  const auto m = ts::run_sweep_point(spec, points[0]);

  ts::PrismParams p;
  p.damping_Nspm = 5.0;
  p.damping_law = ts::DampingLaw::kRelativeVelocity;
  p.psi_rad = 50.0 * std::numbers::pi / 180.0;
  p.stiffness_Npm = 12.0;
  const auto model = ts::make_prism(p);
  ts::SimulationOptions o;
  o.duration_s = 0.2;
  const auto s = ts::simulate(model, o);
  // bit for bit: the same model, options and code
  EXPECT_EQ(m.energy_final_J, s.final_energy.total());
  EXPECT_EQ(m.kinetic_final_J, s.final_energy.kinetic_J);
  EXPECT_EQ(m.elastic_final_J, s.final_energy.elastic_J);
  EXPECT_EQ(m.max_abs_energy_drift_J, s.max_abs_energy_drift_J);
  EXPECT_EQ(m.com_final_m, s.com_final_m);
  EXPECT_EQ(m.steps, 200);
  ASSERT_EQ(m.max_strain.size(), 9u);
  for (int k = 0; k < 9; ++k) {
    EXPECT_EQ(m.max_strain[static_cast<std::size_t>(k)], s.monitor.max_strain[k]);
    EXPECT_EQ(m.min_strain[static_cast<std::size_t>(k)], s.monitor.min_strain[k]);
  }
  EXPECT_EQ(m.normal_mode, s.monitor.normal_mode);
  EXPECT_EQ(m.first_slack_time_s, s.monitor.first_slack_time_s);
  EXPECT_EQ(m.first_overstrain_time_s, -1.0);  // never
  EXPECT_TRUE(m.first_overstrain_cable.empty());
  const std::string j = ts::sweep_metrics_json(m);
  EXPECT_NE(j.find("\"first_overstrain_cable\":null,\"first_overstrain_time_s\":null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"steps\":200}"), std::string::npos) << j;
}

TEST(Sweep, LayoutIsAPrismFieldAndAGridName) {
  const auto spec = ts::sweep_spec_from_string("prism: {radius_m: 0.05}\ngrid: {layout: [pivot, centred], psi_deg: [40]}\n", "s.yaml");
  const auto points = ts::grid_points(spec);
  ASSERT_EQ(points.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    ts::PrismParams p;
    p.radius_m = 0.05;
    p.psi_rad = 40.0 * std::numbers::pi / 180.0;
    p.layout = i == 0 ? ts::PrismLayout::kPivot : ts::PrismLayout::kCentred;
    const auto setup = ts::make_sweep_setup(spec, points[i]);
    EXPECT_TRUE(setup.model.initial_state.x == ts::make_prism(p).initial_state.x) << i;
  }
  // the layouts differ (the test above would pass for either if they did not)
  EXPECT_FALSE(ts::make_sweep_setup(spec, points[0]).model.initial_state.x == ts::make_sweep_setup(spec, points[1]).model.initial_state.x);
}

TEST(Sweep, ResultsFileIsTheSameForAnyThreadCountAndAfterAResume) {
  const auto d = fresh_dir("run");
  // the first points are the slowest, so with 2 threads later points finish first
  const auto spec =
      ts::sweep_spec_from_string("simulation: {duration_s: 0.02}\ngrid:\n  duration_s: [0.3, 0.02]\n  psi_deg: [30, 45, 60]\n", "s.yaml");
  ts::SweepRunOptions o;
  o.out = (d / "j1.jsonl").string();
  o.threads = 1;
  const auto r1 = ts::run_sweep(spec, o);
  EXPECT_EQ(r1.npoint, 6u);
  EXPECT_EQ(r1.nrun, 6u);
  o.out = (d / "j2.jsonl").string();
  o.threads = 2;
  std::size_t calls = 0;
  o.progress = [&](std::size_t done, std::size_t total) {
    ++calls;
    EXPECT_EQ(total, 6u);
    EXPECT_EQ(done, calls);
  };
  (void)ts::run_sweep(spec, o);
  EXPECT_EQ(calls, 6u);
  const std::string j1 = slurp(d / "j1.jsonl");
  EXPECT_EQ(slurp(d / "j2.jsonl"), j1);
  EXPECT_EQ(std::count(j1.begin(), j1.end(), '\n'), 6);
  EXPECT_EQ(j1.rfind("{\"index\":0,\"point\":{\"duration_s\":0.3,\"psi_deg\":30},\"result\":{", 0), 0u) << j1.substr(0, 80);

  // interrupted: two lines and a cut one; the rerun runs only the 4 missing points
  const auto second_nl = j1.find('\n', j1.find('\n') + 1);
  std::ofstream(d / "j2.jsonl", std::ios::binary | std::ios::trunc) << j1.substr(0, second_nl + 30);
  std::size_t started_with = 99;
  o.on_start = [&](std::size_t npoint, std::size_t nresumed, int threads) {
    EXPECT_EQ(npoint, 6u);
    EXPECT_EQ(threads, 2);
    started_with = nresumed;
  };
  o.progress = {};
  const auto r2 = ts::run_sweep(spec, o);
  EXPECT_EQ(started_with, 2u);
  EXPECT_EQ(r2.nresumed, 2u);
  EXPECT_EQ(r2.nrun, 4u);
  EXPECT_EQ(slurp(d / "j2.jsonl"), j1);

  // another grid into the same file is refused, the file is left as it was
  const auto other = ts::sweep_spec_from_string("simulation: {duration_s: 0.02}\ngrid: {psi_deg: [31]}\n", "t.yaml");
  const std::string e = error_of([&] { (void)ts::run_sweep(other, o); });
  EXPECT_NE(e.find("j2.jsonl: holds point 0 of a different grid (use another 'out' file)"), std::string::npos) << e;
  EXPECT_EQ(slurp(d / "j2.jsonl"), j1);
  fs::remove_all(d);
}

TEST(SweepJournal, HeaderOfAnotherRunIsRefusedAndRecordsComeOutInIndexOrder) {
  const auto d = fresh_dir("journal");
  const auto path = d / "sub" / "j.jsonl";
  const std::vector<std::string> points = {"{\"x\":1}", "{\"x\":2}", "{\"x\":3}"};
  {
    ts::SweepJournal j(path, points, "{\"run\":\"a\"}", "start over");
    EXPECT_EQ(j.nresumed(), 0u);
    j.record(2, "{\"y\":30}");
    EXPECT_EQ(slurp(path), "{\"run\":\"a\"}\n");  // 2 waits for 0 and 1
    j.record(0, "{\"y\":10.5}");
    EXPECT_EQ(slurp(path), "{\"run\":\"a\"}\n{\"index\":0,\"point\":{\"x\":1},\"result\":{\"y\":10.5}}\n");
  }
  {
    // reopened: 0 in the file; 2 was lost with the process (it waited in memory)
    ts::SweepJournal j(path, points, "{\"run\":\"a\"}", "start over");
    EXPECT_EQ(j.nresumed(), 1u);
    EXPECT_TRUE(j.done(0));
    EXPECT_FALSE(j.done(1));
    EXPECT_EQ(j.result_json(0), "{\"y\":10.5}");
  }
  EXPECT_EQ(error_of([&] { ts::SweepJournal j(path, points, "{\"run\":\"b\"}", "start over"); }),
            path.string() + ":1: was written by a different run (start over)");
  std::ofstream(path, std::ios::app) << "{\"index\": 1, \"pt\": 2}\n";
  EXPECT_EQ(error_of([&] { ts::SweepJournal j(path, points, "{\"run\":\"a\"}", "start over"); }),
            path.string() + ":3: not a sweep record (a JSON object with \"index\" and \"point\"); fix or remove the line, or start over");
  fs::remove_all(d);
}
