// Result sets end to end (issue 15, docs/CLI.md "Outputs"): a failed or interrupted run leaves the
// previous results and no partial files; runs above the output budget are refused up front.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;

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

namespace {

// Starts `tendyn simulate --duration 3000 -o out` in the background and waits until its staging
// directory holds results.csv.partial (the run is under way). Returns its pid.
pid_t start_long_simulate(const fs::path& out) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string o = out.string();
    ::execl(TENDYN_CLI, TENDYN_CLI, "simulate", "-q", "--duration", "3000", "-o", o.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto staging = fs::path(out.string() + ".partial-" + std::to_string(pid));
  for (int i = 0; i < 400 && !fs::exists(staging / "results.csv.partial"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_TRUE(fs::exists(staging / "results.csv.partial"));
  return pid;
}

// Before: two runs into the same -o at once both exited 0 and could leave one run's results.csv
// beside the other's summary.json. The output directory is locked for the whole run: a second
// run is refused at once (exit 2, the directory and the holder named) and writes nothing.
TEST(Outputs, SecondRunIntoALockedDirectoryIsRefused) {
  const auto root = fresh_dir("outputs_lock");
  const auto out = root / "run";
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + out.string()).code, 0);
  const std::string csv = slurp(out / "results.csv");
  const pid_t pid = start_long_simulate(out);
  const auto second = run("simulate -q --duration 0.3 -o " + out.string());
  EXPECT_EQ(second.code, 2) << second.out;
  EXPECT_NE(second.out.find("output '" + out.string() + "' is in use by another run (pid " + std::to_string(pid) + ", lock file '" +
                            out.string() + ".lock'); wait for it to finish or choose another output"),
            std::string::npos)
      << second.out;
  // a psi sweep (journal and result set) into the same directory: refused before it runs
  const auto sweep = run("sweep -q --psi-min 30 --psi-max 30 --duration 0.05 -o " + out.string());
  EXPECT_EQ(sweep.code, 2) << sweep.out;
  EXPECT_NE(sweep.out.find("is in use by another run"), std::string::npos) << sweep.out;
  EXPECT_FALSE(fs::exists(out / "sweep.journal.jsonl"));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(slurp(out / "results.csv"), csv);
  EXPECT_FALSE(fs::exists(root / "run.lock"));  // removed on SIGTERM
  EXPECT_EQ(count_partials(root), 0);
  EXPECT_EQ(run("simulate -q --duration 0.3 -o " + out.string()).code, 0);  // free again
}

// Pairs of runs started together into one directory: whatever the timing, each run exits 0 or
// is refused (exit 2), and the directory holds one run's complete set, never a mix.
TEST(Outputs, ConcurrentRunsIntoOneDirectoryNeverMix) {
  const auto root = fresh_dir("outputs_concurrent");
  const auto ref2 = root / "ref2", ref3 = root / "ref3", out = root / "run";
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + ref2.string()).code, 0);
  ASSERT_EQ(run("simulate -q --duration 0.3 -o " + ref3.string()).code, 0);
  const std::string csv2 = slurp(ref2 / "results.csv"), csv3 = slurp(ref3 / "results.csv");
  ASSERT_NE(csv2, csv3);
  int refused = 0;
  for (int pair = 0; pair < 12; ++pair) {
    const std::string o = " -o " + out.string() + " 2>&1; echo \"exit $?\"";
    const auto r = tendyn::test::run_shell("(" + std::string(TENDYN_CLI) + " simulate -q --duration 0.2" + o + ") & (" + TENDYN_CLI +
                                           " simulate -q --duration 0.3" + o + "); wait");
    std::size_t exits = 0;
    for (std::size_t p = r.out.find("exit "); p != std::string::npos; p = r.out.find("exit ", p + 1)) {
      ++exits;
      const char code = r.out[p + 5];
      EXPECT_TRUE(code == '0' || code == '2') << r.out;
      if (code == '2') {
        ++refused;
        EXPECT_NE(r.out.find("is in use by another run"), std::string::npos) << r.out;
      }
    }
    EXPECT_EQ(exits, 2u) << r.out;
    const std::string csv = slurp(out / "results.csv"), summary = slurp(out / "summary.json");
    const bool is2 = csv == csv2 && summary.find("\"duration_s\": 0.2") != std::string::npos;
    const bool is3 = csv == csv3 && summary.find("\"duration_s\": 0.3") != std::string::npos;
    EXPECT_TRUE(is2 || is3) << "pair " << pair << ": a mixed set";
  }
  EXPECT_EQ(count_partials(root), 0);
  std::printf("[ info ] %d of 24 runs refused while the other held the directory\n", refused);
}

// A failure part-way through publishing (injected: the rename of summary.json) leaves the
// previous set: never the new results.csv beside the old summary.json.
TEST(Outputs, RenameFailingPartWayLeavesThePreviousSet) {
  const auto root = fresh_dir("outputs_rename");
  const auto out = root / "run";
  ASSERT_EQ(run("simulate -q --duration 0.3 -o " + out.string()).code, 0);
  const std::string csv = slurp(out / "results.csv"), summary = slurp(out / "summary.json");
  ASSERT_EQ(::setenv("TENDYN_TEST_FAIL_RENAME", "summary.json", 1), 0);
  const auto bad = run("simulate -q --duration 0.2 -o " + out.string());
  ::unsetenv("TENDYN_TEST_FAIL_RENAME");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("(the previous files of '" + out.string() + "' are left as they were)"), std::string::npos) << bad.out;
  EXPECT_EQ(slurp(out / "results.csv"), csv);
  EXPECT_EQ(slurp(out / "summary.json"), summary);
  EXPECT_EQ(count_partials(root), 0);
  // a directory where summary.json goes: refused before results.csv is replaced
  fs::remove(out / "summary.json");
  fs::create_directories(out / "summary.json");
  const auto blocked = run("simulate -q --duration 0.2 -o " + out.string());
  EXPECT_EQ(blocked.code, 2) << blocked.out;
  EXPECT_NE(blocked.out.find("summary.json' is a directory"), std::string::npos) << blocked.out;
  EXPECT_EQ(slurp(out / "results.csv"), csv);
  EXPECT_EQ(count_partials(root), 0);
}

// Before: `export --yaml /dev/stdout` (as root) replaced the device link by a regular file; a
// symlink, a FIFO, a device at the destination were replaced, a 0600 file became 0644.
TEST(Outputs, ExportWritesThroughLinksFifosAndDevicesAndKeepsTheMode) {
  const auto root = fresh_dir("outputs_export_dest");
  // a link to the process's stdout (as /dev/stdout is): the YAML comes out on stdout, the link stays
  fs::create_symlink("/proc/self/fd/1", root / "stdout");
  const auto r = run("export --yaml " + (root / "stdout").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("rods:"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_symlink(root / "stdout"));
  // a symlink to a file elsewhere: the file is replaced, the link stays
  fs::create_directories(root / "models");
  std::ofstream(root / "models" / "prism.yaml") << "old\n";
  fs::create_symlink(root / "models" / "prism.yaml", root / "link.yaml");
  EXPECT_EQ(run("export --yaml " + (root / "link.yaml").string()).code, 0);
  EXPECT_TRUE(fs::is_symlink(root / "link.yaml"));
  EXPECT_NE(slurp(root / "models" / "prism.yaml").find("rods:"), std::string::npos);
  // a 0600 file stays 0600
  std::ofstream(root / "private.yaml") << "old\n";
  ASSERT_EQ(::chmod((root / "private.yaml").c_str(), 0600), 0);
  EXPECT_EQ(run("export --yaml " + (root / "private.yaml").string()).code, 0);
  EXPECT_EQ(fs::status(root / "private.yaml").permissions(), fs::perms::owner_read | fs::perms::owner_write);
  // a FIFO with a reader: written through, still a FIFO
  ASSERT_EQ(::mkfifo((root / "pipe").c_str(), 0600), 0);
  const int rd = ::open((root / "pipe").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  EXPECT_EQ(run("export --yaml " + (root / "pipe").string()).code, 0);
  EXPECT_TRUE(fs::is_fifo(root / "pipe"));
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(rd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(rd);
  EXPECT_NE(got.find("rods:"), std::string::npos) << got.substr(0, 200);
  // a full device (a private node of /dev/full where allowed): exit 2 with the reason, still a device
  fs::path full = root / "full";
  if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) full = ::geteuid() == 0 ? fs::path() : fs::path("/dev/full");
  if (!full.empty()) {
    const auto f = run("export --mjcf " + full.string());
    EXPECT_EQ(f.code, 2) << f.out;
    EXPECT_NE(f.out.find("write error on '" + full.string() + "': No space left on device"), std::string::npos) << f.out;
    EXPECT_TRUE(fs::is_character_file(full));
  }
}

// Before: SIGHUP (a closed terminal) killed the run without the cleanup of SIGINT/SIGTERM and left
// its staging directory.
TEST(Outputs, SighupDuringSimulateLeavesNoPartialAndThePreviousResults) {
  const auto root = fresh_dir("outputs_sighup");
  const auto out = root / "run";
  ASSERT_EQ(run("simulate -q --duration 0.2 -o " + out.string()).code, 0);
  const std::string csv = slurp(out / "results.csv");
  const pid_t pid = start_long_simulate(out);
  ::kill(pid, SIGHUP);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP) << status;
  EXPECT_FALSE(fs::exists(fs::path(out.string() + ".partial-" + std::to_string(pid))));
  EXPECT_EQ(count_partials(root), 0);
  EXPECT_EQ(slurp(out / "results.csv"), csv);
}

// Before: a psi sweep refused for a bad option (here a negative rod mass, found when the first
// angle's model is built) left a journal whose header blocked the corrected run ("was written by
// a different run"). A journal without any finished angle is no resumable state: started over.
TEST(Outputs, RefusedSweepDoesNotBlockTheCorrectedRun) {
  const auto root = fresh_dir("outputs_sweep_refused");
  const auto out = root / "run";
  const std::string args = "sweep -q --psi-min 30 --psi-max 40 --psi-step 10 --duration 0.05 -o " + out.string();
  const auto bad = run(args + " --rod-mass -1");
  EXPECT_EQ(bad.code, 2) << bad.out;
  const auto good = run(args);
  EXPECT_EQ(good.code, 0) << good.out;
  EXPECT_TRUE(fs::exists(out / "sweep.csv"));
  EXPECT_FALSE(fs::exists(out / "sweep.journal.jsonl"));
}

// Before: a directory where results.jsonl or the journal goes ended in exit 4 (an internal error).
TEST(Outputs, DirectoryWhereTheSweepResultsGoIsBadInput) {
  const auto root = fresh_dir("outputs_sweep_dir");
  std::ofstream(root / "spec.yaml") << "model: prism\nsimulation: {duration_s: 0.05}\ngrid:\n  psi_deg: [30, 40]\n";
  fs::create_directories(root / "spec_out" / "results.jsonl");
  const auto s = run("sweep -q --spec " + (root / "spec.yaml").string() + " -o " + (root / "spec_out").string());
  EXPECT_EQ(s.code, 2) << s.out;
  EXPECT_NE(s.out.find((root / "spec_out" / "results.jsonl").string() + ": is a directory, where the sweep keeps its results"),
            std::string::npos)
      << s.out;
  fs::create_directories(root / "psi_out" / "sweep.journal.jsonl");
  const auto p = run("sweep -q --psi-min 30 --psi-max 30 --duration 0.05 -o " + (root / "psi_out").string());
  EXPECT_EQ(p.code, 2) << p.out;
  EXPECT_NE(p.out.find((root / "psi_out" / "sweep.journal.jsonl").string() + ": is a directory"), std::string::npos) << p.out;
}

// Before: with -o naming a symlink to a directory on another file system, every run failed (the
// staging directory was made beside the link: a cross-device rename). Now beside the target.
TEST(Outputs, OutputThroughASymlinkToAnotherFileSystem) {
  const auto root = fresh_dir("outputs_xdev");
  struct stat a {
  }, b{};
  if (::stat("/dev/shm", &b) != 0 || ::stat(root.c_str(), &a) != 0 || a.st_dev == b.st_dev)
    GTEST_SKIP() << "no /dev/shm on another file system than " << root;
  const fs::path far = "/dev/shm/tendyn_cli_xdev_" + std::to_string(::getpid());
  fs::remove_all(far);
  fs::create_directories(far / "old");
  fs::create_symlink(far / "old", root / "to_old");
  fs::create_symlink(far / "new", root / "to_new");
  for (const char* link : {"to_new", "to_old", "to_old"}) {  // a new target, an empty one, one with a set
    const auto r = run("simulate -q --duration 0.1 -o " + (root / link).string());
    EXPECT_EQ(r.code, 0) << link << ": " << r.out;
  }
  EXPECT_TRUE(fs::exists(far / "new" / "results.csv"));
  EXPECT_TRUE(fs::exists(far / "old" / "summary.json"));
  EXPECT_TRUE(fs::is_symlink(root / "to_new"));
  EXPECT_EQ(count_partials(far), 0);
  fs::remove_all(far);
}

}  // namespace
