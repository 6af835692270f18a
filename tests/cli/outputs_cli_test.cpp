// Result sets end to end (issue 15, docs/CLI.md "Outputs"): a failed or interrupted run leaves the
// previous results and no partial files; runs above the output budget are refused up front.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tendyn::test::fresh_dir;
using tendyn::test::slurp;
using tendyn::test::run;

int count_partials(const fs::path& parent) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(parent))
    if (e.path().filename().string().find(".partial") != std::string::npos) ++n;
  return n;
}

// Before: the files of a run were committed one by one; when the last write (summary.json) failed,
// the new results.csv and scene.json sat beside the previous run's summary.json.
TEST(Outputs, FailedLastWriteLeavesThePreviousResultSet) {
  const auto root = fresh_dir("outputs_fail");
  const auto out = root / "run";
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + out.string()).code, 0);
  const std::string csv = slurp(out / "results.csv");
  const auto r2 = run("simulate -q --duration 0.3 -o " + out.string());
  ASSERT_EQ(r2.code, 0);
  const std::string csv_new = slurp(out / "results.csv");
  ASSERT_NE(csv_new, csv);
  ASSERT_EQ(::setenv("TENDYN_TEST_FAIL_WRITE", "summary.json", 1), 0);
  const auto bad = run("simulate -q --duration 0.2 -o " + out.string());
  ::unsetenv("TENDYN_TEST_FAIL_WRITE");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("summary.json.partial': No space left on device (injected"), std::string::npos) << bad.out;
  EXPECT_EQ(slurp(out / "results.csv"), csv_new);  // the 0.3 s run's set, complete and unmixed
  EXPECT_NE(slurp(out / "summary.json").find("\"duration_s\": 0.3"), std::string::npos);
  EXPECT_EQ(count_partials(root), 0);
}

// Before: a pre-existing summary.json.partial symlink was followed and its target overwritten.
TEST(Outputs, PartialSymlinkIsNotFollowed) {
  const auto root = fresh_dir("outputs_symlink");
  std::ofstream(root / "victim.txt") << "precious\n";
  fs::create_symlink(root / "victim.txt", root / "prism.yaml.partial");
  const auto r = run("export --yaml " + (root / "prism.yaml").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(slurp(root / "victim.txt"), "precious\n");
  EXPECT_NE(slurp(root / "prism.yaml").find("rods:"), std::string::npos);
  EXPECT_FALSE(fs::is_symlink(root / "prism.yaml"));
}

// Before: a killed run left a 100+ MB partial file. SIGTERM now removes the staging directory and
// the previous results stay as they were.
TEST(Outputs, SigtermDuringSimulateLeavesNoPartialAndThePreviousResults) {
  const auto root = fresh_dir("outputs_sigterm");
  const auto out = root / "run";
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + out.string()).code, 0);
  const std::string csv = slurp(out / "results.csv"), sum = slurp(out / "summary.json");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string o = out.string();
    ::execl(TENDYN_CLI, TENDYN_CLI, "simulate", "-q", "--duration", "3000", "-o", o.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto staging = fs::path(out.string() + ".partial-" + std::to_string(pid));
  for (int i = 0; i < 200 && !fs::exists(staging / "results.csv.partial"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_TRUE(fs::exists(staging / "results.csv.partial"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_FALSE(fs::exists(staging));
  EXPECT_EQ(count_partials(root), 0);
  EXPECT_EQ(slurp(out / "results.csv"), csv);
  EXPECT_EQ(slurp(out / "summary.json"), sum);
}

// Before: `simulate --duration 1e6` was accepted and grew memory ~8 MB/s and disk ~27 MB/s.
TEST(Outputs, RunAboveTheBudgetIsRefusedBeforeStarting) {
  const auto root = fresh_dir("outputs_budget");
  const auto r = run("simulate --duration 1e6 -o " + (root / "run").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("simulate: the run would write about 2.65e+05 MB (1e+08 rows x 84 columns of results.csv and 1e+08 frames "
                       "of scene.json), above the output budget of 2048 MB"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--max-output-mb"), std::string::npos);
  EXPECT_FALSE(fs::exists(root / "run"));
  EXPECT_EQ(count_partials(root), 0);
  // the memory budget (the viewer frames held until scene.json is written), with the disk budget raised
  const auto m = run("simulate --duration 1e6 --max-output-mb 1e9 -o " + (root / "run").string());
  EXPECT_EQ(m.code, 2) << m.out;
  EXPECT_NE(m.out.find("above the memory budget of 1024 MB"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("--max-memory-mb"), std::string::npos);
  // raised budget: a small run under a tiny budget is refused, and accepted with the option
  EXPECT_EQ(run("simulate -q --duration 0.1 --max-output-mb 0.001 -o " + (root / "small").string()).code, 2);
  EXPECT_EQ(run("simulate -q --duration 0.1 --max-output-mb 1 -o " + (root / "small").string()).code, 0);
}

// `plan` has the same budget (tensegrity::estimate_plan_output: schedule.csv, planned.yaml, the
// replay's scene.json; in memory the replay's frames and the rollouts of a period), checked
// before the planning starts: nothing is written.
TEST(Outputs, PlanAboveTheBudgetIsRefusedBeforeWritingAnything) {
  const auto root = fresh_dir("outputs_plan_budget");
  const auto out = root / "run";
  const auto r = run("plan --duration 0.3 --max-output-mb 0.01 -o " + out.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("plan: the run would write about"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rows x 13 columns of schedule.csv"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("above the output budget of 0.01 MB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--max-output-mb"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(count_partials(root), 0);
  // memory: the lookahead planner keeps (1 + beam) x 3^m rollouts of a period
  const auto m = run("plan --planner lookahead --beam 50 --drive c1,c2,c3,c4,c5,c6,c7,c8,c9 --max-memory-mb 100 -o " + out.string());
  EXPECT_EQ(m.code, 2) << m.out;
  EXPECT_NE(m.out.find("above the memory budget of 100 MB"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("rollouts kept per period"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("drive fewer cables"), std::string::npos) << m.out;
  EXPECT_FALSE(fs::exists(out));
  // the same small plan within a budget that admits it
  EXPECT_EQ(run("plan -q --duration 0.1 --drive c1 --max-output-mb 1 -o " + out.string()).code, 0);
  EXPECT_TRUE(fs::exists(out / "schedule.csv"));
}

}  // namespace

namespace {

// Before: `sweep --spec` wrote results.jsonl lines as points finished: a different order for
// different thread counts and reruns. Now index order, also after resuming a shuffled file.
TEST(Outputs, SweepSpecJsonlIsInIndexOrderForAnyThreadCount) {
  const auto d = fresh_dir("outputs_jsonl");
  // the first point is the slowest (longest), so with 2 threads later points finish first
  std::ofstream(d / "spec.yaml") << "model: prism\nsimulation: {duration_s: 0.05}\ngrid:\n  psi_deg: [30, 40, 50, 60]\n"
                                    "  duration_s: [2, 0.05]\n";
  ASSERT_EQ(run("sweep -q -j1 --spec " + (d / "spec.yaml").string() + " -o " + (d / "j1").string()).code, 0);
  ASSERT_EQ(run("sweep -q -j2 --spec " + (d / "spec.yaml").string() + " -o " + (d / "j2").string()).code, 0);
  const std::string j1 = slurp(d / "j1" / "results.jsonl");
  EXPECT_EQ(slurp(d / "j2" / "results.jsonl"), j1);
  std::size_t pos = 0;
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(j1.compare(pos, 10 + std::to_string(i).size(), "{\"index\":" + std::to_string(i) + ","), 0) << j1.substr(pos, 40);
    pos = j1.find('\n', pos) + 1;
  }
  // a resumed file holding lines 5 and 2 (out of order, with gaps): completed in index order
  std::vector<std::string> lines;
  for (std::size_t s = 0, nl; (nl = j1.find('\n', s)) != std::string::npos; s = nl + 1) lines.push_back(j1.substr(s, nl - s + 1));
  ASSERT_EQ(lines.size(), 8u);
  fs::create_directories(d / "r");
  std::ofstream(d / "r" / "results.jsonl") << lines[5] << lines[2];
  const auto r = run("sweep -j2 --spec " + (d / "spec.yaml").string() + " -o " + (d / "r").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("8 points (2 already in"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "r" / "results.jsonl"), j1);
}

}  // namespace

namespace {

// Before: the plain psi sweep was not resumable (issue 15): an interrupted run started again from
// the first angle. Finished angles are now journaled in <out>/sweep.journal.jsonl as they finish;
// a rerun into the same directory runs only the others, and its files equal an uninterrupted run's.
TEST(Outputs, PsiSweepResumesAnInterruptedRunWithIdenticalOutputs) {
  const auto root = fresh_dir("outputs_psi_resume");
  const std::string args = "sweep --psi-min 30 --psi-max 60 --psi-step 10 --duration 0.3 -j 2 ";
  const auto ref = root / "ref", out = root / "run";
  ASSERT_EQ(run(args + "-q -o " + ref.string()).code, 0);
  const std::string csv = slurp(ref / "sweep.csv"), summary = slurp(ref / "sweep.json");
  EXPECT_FALSE(fs::exists(ref / "sweep.journal.jsonl"));  // removed once the result set is published

  // a run whose last write fails: no result set, every angle in the journal (header + 4 lines)
  ASSERT_EQ(::setenv("TENDYN_TEST_FAIL_WRITE", "sweep.json", 1), 0);
  const auto bad = run(args + "-q -o " + out.string());
  ::unsetenv("TENDYN_TEST_FAIL_WRITE");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_FALSE(fs::exists(out / "sweep.csv"));  // the result set is atomic: nothing published
  EXPECT_FALSE(fs::exists(out / "sweep.json"));
  const std::string journal = slurp(out / "sweep.journal.jsonl");
  ASSERT_EQ(std::count(journal.begin(), journal.end(), '\n'), 5) << journal;
  EXPECT_EQ(journal.rfind("{\"psi_study\":{", 0), 0u) << journal.substr(0, 80);

  // an interruption after two angles: the header, two records and a cut third line
  std::size_t cut = 0;
  for (int i = 0; i < 3; ++i) cut = journal.find('\n', cut) + 1;
  const std::string interrupted = journal.substr(0, cut + 25);
  std::ofstream(out / "sweep.journal.jsonl", std::ios::binary | std::ios::trunc) << interrupted;
  const auto r = run(args + "-o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("resumed: 2 of 4 angles read from the journal"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(out / "sweep.csv"), csv);
  EXPECT_EQ(slurp(out / "sweep.json"), summary);
  EXPECT_FALSE(fs::exists(out / "sweep.journal.jsonl"));
  EXPECT_EQ(count_partials(root), 0);

  // a journal left by a run with other options is refused (exit 2), the published set stays
  std::ofstream(out / "sweep.journal.jsonl", std::ios::binary | std::ios::trunc) << interrupted;
  const auto other = run(args + "--damping 3 -q -o " + out.string());
  EXPECT_EQ(other.code, 2) << other.out;
  EXPECT_NE(other.out.find("sweep.journal.jsonl:1: was written by a different run (a psi sweep with other options; rerun with "
                           "the same options, use another output directory, or delete the file to start over)"),
            std::string::npos)
      << other.out;
  EXPECT_EQ(slurp(out / "sweep.csv"), csv);
  // other angles at the same positions are refused too
  const auto moved = run("sweep --psi-min 31 --psi-max 61 --psi-step 10 --duration 0.3 -q -o " + out.string());
  EXPECT_EQ(moved.code, 2) << moved.out;
  EXPECT_NE(moved.out.find("sweep.journal.jsonl: holds point 0 of a different grid"), std::string::npos) << moved.out;
  fs::remove_all(root);
}

}  // namespace
