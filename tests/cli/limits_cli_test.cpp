// Bounded readers end to end (issue 15): inputs past a reader's limit exit 2 with the place and
// the limit, never crash. The files are generated in a fresh temporary directory.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run;

#ifdef TENDYN_WITH_TREE
// Before: a 350 KB URDF of 50,000 nested elements overflowed the recursive reader's stack and
// `tendyn tree info deep.urdf` exited 139.
TEST(ReaderLimits, DeeplyNestedUrdfExits2WithPlaceAndLimit) {
  const auto dir = fresh_dir("deep_urdf");
  const auto file = dir / "deep.urdf";
  {
    std::ofstream f(file);
    f << "<robot name=\"deep\">\n<link name=\"a\">\n";
    for (int k = 0; k < 50000; ++k) f << "<x>";
    for (int k = 0; k < 50000; ++k) f << "</x>";
    f << "</link>\n</robot>\n";
  }
  const auto r = run("tree info " + file.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("deep.urdf:3:763: XML error: elements nested deeper than the limit of 256"), std::string::npos) << r.out;
}

// Before: tree models above ~50k links ended in bad_alloc (exit 4).
TEST(ReaderLimits, TooManyTreeLinksExit2WithTheLimit) {
  const auto dir = fresh_dir("many_links");
  const auto file = dir / "chain.yaml";
  {
    std::ofstream f(file);
    f << "name: chain\nlinks:\n";
    for (int i = 0; i < 5000; ++i)
      f << "  - {name: l" << i << ", parent: " << (i ? "l" + std::to_string(i - 1) : "world")
        << ", joint: {type: revolute}, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n";
  }
  const auto r = run("tree info " + file.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("chain.yaml:3:3: links: 5000 links, more than the limit of 4096"), std::string::npos) << r.out;
}
#endif

TEST(ReaderLimits, LargeTensegrityModelsExit2BeforeReading) {
  const auto d = fresh_dir("limits_tensegrity");
  // 100,001 cables (flow list: parsed in a fraction of a second) and a 17 MiB file
  std::ofstream many(d / "many.yaml");
  many << "tendyn: tensegrity\nnodes: [{id: a, position: [0, 0, 0]}, {id: b, position: [0, 0, 1]}]\n"
          "rods: [{id: r, mass: 1, length: 1, nodes: [a, b]}]\ncables: [0";
  for (int i = 0; i < 100000; ++i) many << ",0";
  many << "]\n";
  many.close();
  auto r = run("validate " + (d / "many.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("many.yaml:4:9: cables: has 100001 entries; at most 100000 are accepted"), std::string::npos) << r.out;
  std::ofstream(d / "big.yaml") << "tendyn: tensegrity\n# " << std::string(17u << 20, 'x') << "\n";
  r = run("simulate " + (d / "big.yaml").string() + " -o " + (d / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("larger than the 16 MiB limit of YAML input files"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(d / "out"));
  std::filesystem::remove_all(d);
}

// Unbounded work and memory (issue "Trust, round 2"): each is refused with exit 2, the option or
// place and the limit named, before the work or the allocation. The commands run under a 2 GB
// address-space cap and a time limit, so a regression fails instead of eating the machine.
struct Timed {
  tendyn::test::CliRun r;
  double cpu_s;  // CPU time of the command (user + system, its children included)
};
// AddressSanitizer reserves terabytes of shadow address space at start, so the cap is left out in
// the sanitizer build (the exit codes, messages and time limit are still checked there).
#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kAddressCap = "";
#else
constexpr const char* kAddressCap = "ulimit -v 2000000; ";
#endif
// The bound on a refused command's CPU time: the refusal comes before the work, so a fraction of
// a second in Release, a few seconds under the sanitizers; the work it prevents takes minutes.
// CPU time, not wall time: a loaded machine (CI, parallel ctest) must not fail it (it did, 5.08 s
// of wall time for a 60 MiB attribute at load 11).
constexpr double kRefusalCpuS = 20.0;
double children_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
Timed capped(const std::string& args) {
  const double c0 = children_cpu_s();
  auto r = tendyn::test::run_shell(std::string(kAddressCap) + "timeout 60 " + std::string(TENDYN_CLI) + " " + args + " 2>&1");
  return {r, children_cpu_s() - c0};
}

// Before: --psi-step 1e-6 allocated 7.5 GB of angles (exit 4 under a memory cap); --psi-step 1e-9
// overflowed the angle count and said "no psi values".
TEST(WorkLimits, SweepAngleCountIsBoundedBeforeAllocating) {
  const auto d = fresh_dir("limits_psi_step");
  auto t = capped("sweep --psi-step 1e-6 -q -o " + d.string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("sweep: --psi-min 20 to --psi-max 80 by --psi-step 1e-06 gives 6e+07 angles, above the limit of 100000 "
                         "angles (each angle is a simulation); use a larger --psi-step"),
            std::string::npos)
      << t.r.out;
  EXPECT_LT(t.cpu_s, kRefusalCpuS);
  t = capped("sweep --psi-step 1e-9 -q -o " + d.string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("gives 6e+10 angles, above the limit of 100000 angles"), std::string::npos) << t.r.out;
  t = capped("sweep --psi-min -100 -q -o " + d.string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("sweep: --psi-min and --psi-max must be in [-90, 90] deg (got -100 and 80)"), std::string::npos) << t.r.out;
  EXPECT_FALSE(std::filesystem::exists(d / "sweep.journal.jsonl"));
  std::filesystem::remove_all(d);
}

// Before: a plan ran whole periods whatever the duration (--period 100 --duration 0.2 simulated
// 81 rollouts of 100 s) and nothing bounded the rollouts' steps together.
TEST(WorkLimits, PlanStepsAreBoundedBeforeAnyRollout) {
  const auto d = fresh_dir("limits_plan");
  auto t = capped("plan --period 100 --duration 0.2 -q -o " + d.string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("plan: --duration (0.2 s) is shorter than half of --period (100 s): no period would run"), std::string::npos)
      << t.r.out;
  EXPECT_LT(t.cpu_s, kRefusalCpuS);
  // one period of 20 s at dt 1e-6 is 2e7 steps per rollout (under simulate's limit), 81 rollouts
  t = capped("plan --period 20 --duration 20 --dt 1e-6 -q -o " + d.string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("plan: 1 periods (duration / period = 20 / 20 s) x 81 rollouts x 2e+07 steps (period / dt = 20 / 1e-06 s) = "
                         "1.62e+09 simulated steps is above the limit 1e+09; shorten --duration"),
            std::string::npos)
      << t.r.out;
  EXPECT_LT(t.cpu_s, kRefusalCpuS);
  EXPECT_FALSE(std::filesystem::exists(d / "schedule.csv"));
  std::filesystem::remove_all(d);
}

// Before: identify --dt 1e-9 started a fit of 4e9 steps per pass over the data.
TEST(WorkLimits, IdentifyStepsAreBoundedBeforeTheFit) {
  const auto d = fresh_dir("limits_identify");
  const auto t = capped("identify " + tendyn::test::kModels + "identify/three_bar_nominal.yaml --data " + tendyn::test::kModels +
                        "identify/three_bar_motion.csv --fit friction --dt 1e-9 -q -o " + d.string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("identify: --dt 1e-09 s gives 4e+09 integration steps per pass over the 4 s of data, above the limit 1e+07; "
                         "use a larger --dt"),
            std::string::npos)
      << t.r.out;
  EXPECT_LT(t.cpu_s, kRefusalCpuS);
  std::filesystem::remove_all(d);
}

// Before: a 14 MB model (a 7-million-entry list under description:) took 3.3 GB (exit 4 under
// the cap).
TEST(WorkLimits, YamlNodeCountIsBoundedBeforeTheTreeIsBuilt) {
  const auto d = fresh_dir("limits_yaml_nodes");
  {
    std::string text = "tendyn: tensegrity\ndescription: [0";
    for (int k = 1; k < 7000000; ++k) text += ",0";
    std::ofstream(d / "long.yaml") << text << "]\n";
  }
  const auto t = capped("validate " + (d / "long.yaml").string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(t.r.out.find("long.yaml:2:4000005: more than 2000000 YAML nodes (values, lists and mappings), the limit of a YAML input"),
            std::string::npos)
      << t.r.out;
  EXPECT_LT(t.cpu_s, kRefusalCpuS);  // the count stops at the limit: about 2 s of CPU
  std::filesystem::remove_all(d);
}

#ifdef TENDYN_WITH_TREE
// Before: one 60 MiB attribute took 1.2 GB.
TEST(WorkLimits, UrdfAttributeLengthIsBounded) {
  const auto d = fresh_dir("limits_urdf_attribute");
  std::ofstream(d / "long.urdf") << "<robot name=\"" << std::string(60u << 20, 'r') << "\"><link name=\"a\"/></robot>\n";
  const auto t = capped("tree info " + (d / "long.urdf").string());
  EXPECT_EQ(t.r.code, 2) << t.r.out;
  EXPECT_NE(
      t.r.out.find("long.urdf:1:8: XML error: attribute 'name' of <robot> is 62914560 bytes long, more than the limit of 65536 bytes"),
      std::string::npos)
      << t.r.out;
  EXPECT_LT(t.cpu_s, kRefusalCpuS);
  std::filesystem::remove_all(d);
}
#endif

// Before: hexadecimal floating point was read by option values, comma lists and CSV files
// (strtod) while YAML refused it. One rule: numbers are decimal.
TEST(WorkLimits, HexadecimalNumbersAreRefusedEverywhere) {
  auto r = run("simulate --dt 0x1p-10 --duration 0.01 -o " + fresh_dir("limits_hex").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("--dt: numbers are decimal: hexadecimal is not accepted (got 0x1p-10)"), std::string::npos) << r.out;
  if (run("tension --help").code == 0) {  // built with the CDPR module
    r = run("tension solve " + tendyn::test::kModels + "cdpr/planar4.yaml --wrench 0x1p3,0,0");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("--wrench (entry 1): '0x1p3' is not a finite number (numbers are decimal: hexadecimal is not accepted)"),
              std::string::npos)
        << r.out;
  }
  std::filesystem::remove_all(fresh_dir("limits_hex"));
}

}  // namespace
