// Runs the built tendyn binary: tension solve / trajectory / study, and bad input exit codes.
#include <tendyn/cdpr/design.hpp>
#include <tendyn/cdpr/model_io.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "cdpr/test_util.hpp"

namespace tendyn::cdpr {
namespace {

std::string cli() { return std::string("\"") + TENDYN_CLI + "\""; }

TEST(TensionCli, SolvePrintsJsonForEveryMethod) {
  std::string out;
  const int rc = test::run_command(cli() + " tension solve " + test::model_path("printer8.yaml") + " --json 2>/dev/null", &out);
  ASSERT_EQ(rc, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["results"].size(), 7u);  // the five of document 002's comparison, centred, centroid
  for (const auto& r : j["results"]) {
    // exhaustive and lawson-hanson solve f >= 0 and unload cables below printer8's 200 N minimum:
    // they say so (before: "ok" beside tensions of 0 N)
    const bool nonneg = r["method"] == "exhaustive" || r["method"] == "lawson-hanson";
    EXPECT_EQ(r["status"], nonneg ? "out_of_bounds" : "ok") << r["method"];
    if (nonneg) {
      EXPECT_NE(r["reason"].get<std::string>().find("below f_min"), std::string::npos) << r["method"];
    }
    EXPECT_LT(r["relative_residual"].get<double>(), 1e-9) << r["method"];
  }
  // The exact solver has the smallest norm among the methods with tensions >= f_min.
  EXPECT_EQ(j["results"][2]["method"], "exact");
}

TEST(TensionCli, LowerGroupIsTheDocumentsThreeByFourSystem) {
  std::string out;
  const int rc = test::run_command(cli() + " tension solve " + test::model_path("printer8.yaml") +
                                       " --group lower --rows fx,fy,mz --wrench 500,-300,200 "
                                       "--method exhaustive,lawson-hanson",
                                   &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("J 3 x 4"), std::string::npos) << out;
  EXPECT_NE(out.find("l4"), std::string::npos) << out;
}

// Issue 15: with |w|^2 overflowing, Lawson-Hanson and exact printed status ok with |f| = 0 and
// residual inf. Now an ok status always comes with finite numbers that meet the wrench, and the
// relative residual is computed without overflow.
TEST(TensionCli, HugeWrenchIsNeverOkWithAnInfiniteResidual) {
  for (const char* v : {"1e155", "1e300"}) {
    std::string out;
    const std::string wrench = std::string(v) + "," + v + "," + v;
    const int rc = test::run_command(cli() + " tension solve " + test::model_path("printer8.yaml") +
                                         " --group lower --rows fx,fy,mz --wrench " + wrench + " --json 2>/dev/null",
                                     &out);
    ASSERT_EQ(rc, 0) << out;
    const auto j = nlohmann::json::parse(out);
    int ok = 0;
    for (const auto& r : j["results"]) {
      // every finite tension vector comes with its norm (before: exact printed |f| = 0 here)
      double norm2 = 0.0, fmax = 0.0;
      bool finite = true;
      for (const auto& f : r["tensions_N"]) {
        finite = finite && f.is_number();
        if (f.is_number()) fmax = std::max(fmax, std::abs(f.get<double>()));
      }
      if (finite && fmax > 0.0) {
        for (const auto& f : r["tensions_N"]) norm2 += (f.get<double>() / fmax) * (f.get<double>() / fmax);
        ASSERT_TRUE(r["tension_norm_N"].is_number()) << r["method"] << " " << v;
        EXPECT_NEAR(r["tension_norm_N"].get<double>() / fmax, std::sqrt(norm2), 1e-12 * std::sqrt(norm2)) << r["method"] << " " << v;
      }
      if (r["method"] == "exact") {  // within the model's bounds, far from the wrench
        EXPECT_EQ(r["status"], "infeasible") << v;
        for (const auto& f : r["tensions_N"]) {
          EXPECT_GE(f.get<double>(), 200.0 * (1 - 1e-12)) << v;
          EXPECT_LE(f.get<double>(), 30000.0 * (1 + 1e-12)) << v;
        }
      }
      if (r["status"] == "out_of_bounds") {  // the f >= 0 methods meet the wrench above f_max
        EXPECT_TRUE(r["method"] == "exhaustive" || r["method"] == "lawson-hanson") << r["method"];
        EXPECT_GT(r["tension_norm_N"].get<double>(), 1e150) << r["method"];
        EXPECT_LT(r["relative_residual"].get<double>(), 1e-12) << r["method"];
        ++ok;
        continue;
      }
      if (r["status"] != "ok") {
        EXPECT_FALSE(r["reason"].get<std::string>().empty()) << r["method"];
        continue;
      }
      ++ok;
      EXPECT_EQ(r["reason"], "");
      ASSERT_TRUE(r["tension_norm_N"].is_number()) << r["method"] << " " << v;  // inf -> null
      ASSERT_TRUE(r["residual_norm"].is_number()) << r["method"] << " " << v;
      EXPECT_GT(r["tension_norm_N"].get<double>(), 1e150) << r["method"];
      EXPECT_LT(r["relative_residual"].get<double>(), 1e-12) << r["method"];
    }
    EXPECT_GE(ok, 2) << out;  // exhaustive and lawson-hanson (f >= 0, no upper bound: out_of_bounds)
  }
}

TEST(TensionCli, TrajectoryCsvInCsvOut) {
  const auto dir = test::temp_dir("cli_traj");
  const auto in = dir / "poses.csv";
  const auto outp = dir / "out" / "tensions.csv";
  std::filesystem::remove_all(dir / "out");
  {
    std::ofstream f(in);
    f << "t,x,y,phi\n0,0,0,0\n0.1,0.1,0.05,0.02\n0.2,0.2,0.1,0.04\n";
  }
  std::string log;
  ASSERT_EQ(test::run_command(cli() + " tension trajectory " + test::model_path("planar4.yaml") + " --in " + in.string() + " -o " +
                                  (dir / "out").string(),
                              &log),
            0)
      << log;
  std::ifstream f(outp);
  std::string line;
  int n = 0;
  std::getline(f, line);
  EXPECT_EQ(line.rfind("t_s,x_m,y_m,phi_rad,status,loaded,residual_norm_N,tension_norm_N,c1.tension_N", 0), 0u) << line;
  while (std::getline(f, line)) {
    ++n;
    EXPECT_NE(line.find(",ok,"), std::string::npos) << line;
  }
  EXPECT_EQ(n, 3);
  EXPECT_FALSE(std::filesystem::exists(outp.string() + ".partial"));
}

TEST(TensionCli, TrajectoryReportsTheLargestJumpPerMethodAndInterference) {
  const auto dir = test::temp_dir("cli_jumps");
  const auto in = dir / "poses.csv";
  std::filesystem::remove_all(dir / "out");
  {
    std::ofstream f(in);
    f << "x,y,phi\n";
    for (int k = 0; k <= 40; ++k) {
      const double s = k / 40.0;
      f << 0.25 + 0.046 * s << "," << 0.15 + 0.0276 * s << "," << 0.1 + 0.0184 * s << "\n";
    }
  }
  std::string log;
  ASSERT_EQ(test::run_command(cli() + " tension trajectory " + test::model_path("planar4.yaml") + " --in " + in.string() + " -o " +
                                  (dir / "out").string() + " --method exhaustive,centred",
                              &log),
            0)
      << log;
  EXPECT_NE(log.find("largest tension jump between consecutive poses"), std::string::npos) << log;
  std::ifstream f(dir / "out" / "jumps.csv");
  std::string header, ex, ce;
  std::getline(f, header);
  std::getline(f, ex);
  std::getline(f, ce);
  EXPECT_EQ(header, "method,poses,not_ok,max_jump_N,cable,from_row,to_row");
  EXPECT_EQ(ex.rfind("exhaustive,41,41,", 0), 0u) << ex;  // out_of_bounds: it solves f >= 0 only
  EXPECT_EQ(ce.rfind("centred,41,0,", 0), 0u) << ce;
  const auto field3 = [](const std::string& line) {  // max_jump_N
    std::size_t p = 0;
    for (int k = 0; k < 3; ++k) p = line.find(',', p) + 1;
    return std::stod(line.substr(p, line.find(',', p) - p));
  };
  const double jump_ex = field3(ex), jump_ce = field3(ce);
  EXPECT_GT(jump_ex, 40.0) << ex;
  EXPECT_LT(jump_ce, 10.0) << ce;
  // centroid needs two redundant cables: planar4 has one
  EXPECT_EQ(test::run_command(cli() + " tension trajectory " + test::model_path("planar4.yaml") + " --in " + in.string() + " -o " +
                                  (dir / "out2").string() + " --method centroid",
                              &log),
            2);
  EXPECT_NE(log.find("--method: centroid is not applicable here (needs exactly 2 more cables than wrench rows)"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir / "out2"));
  // interference: planar4's upper cables cross from the first pose on
  ASSERT_EQ(test::run_command(cli() + " tension interference " + test::model_path("planar4.yaml") + " --in " + in.string() + " -o " +
                                  (dir / "out3").string() + " --clearance 0.01",
                              &log),
            0)
      << log;
  EXPECT_NE(log.find("first interference at " + in.string() + ":2"), std::string::npos) << log;
  EXPECT_TRUE(std::filesystem::exists(dir / "out3" / "interference.csv"));
  EXPECT_EQ(test::run_command(cli() + " tension interference " + test::model_path("planar4.yaml") + " --in " + in.string() + " -o " +
                                  (dir / "out4").string() + " --platform box:0,1,1",
                              &log),
            2);
  EXPECT_NE(log.find("--platform box: sizes must be > 0"), std::string::npos) << log;
  EXPECT_EQ(test::run_command(cli() + " tension interference " + test::model_path("planar4.yaml") + " --in " + in.string() + " -o " +
                                  (dir / "out4").string() + " --clearance -1",
                              &log),
            2);
  EXPECT_NE(log.find("--clearance"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir / "out4"));
}

TEST(TensionCli, RandomStudyReproducesTheDocumentsTrend) {
  std::string out;
  ASSERT_EQ(test::run_command(cli() + " tension study --count 50 --json", &out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  const auto& s = j["exhaustive_vs_lawson_hanson"];
  EXPECT_GT(s["more_loaded"].get<int>(), 25);
  EXPECT_GT(s["smaller_norm"].get<int>(), 25);
}

TEST(TensionCli, BadInputExitsWithCode2AndAMessage) {
  std::string out;
  EXPECT_EQ(test::run_command(cli() + " tension solve /nonexistent.yaml", &out), 2);
  EXPECT_NE(out.find("model: no such file: '/nonexistent.yaml'"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(cli() + " tension solve " + test::model_path("planar4.yaml") + " --wrench 1,2", &out), 2);
  EXPECT_NE(out.find("needs 3 values"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(cli() + " tension solve " + test::model_path("planar4.yaml") + " --pose 0,0,nan", &out), 2);
  EXPECT_EQ(test::run_command(cli() + " tension study --size 6by12", &out), 2);
}

// cdpr-experiment's start-state, transient, profile and sweep options (issue 18 item 8): strict
// parsing (exit 2, the accepted forms named, nothing written) and the new outputs (a fast run at
// 1 m/s with a coarse step, ~1 s).
TEST(ExperimentCli, StartStateOptionsAndPretensionSweep) {
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_cdpr_experiment_cli";
  std::filesystem::remove_all(dir);
  const std::string base = cli() + " cdpr-experiment --speed 1 --dt 0.002 --control-dt 0.004 --no-plot -q -o \"" + dir.string() + "\" ";
  std::string out;
  EXPECT_EQ(test::run_command(base + "--start-without 1.8 2>&1", &out), 2);
  EXPECT_NE(out.find("bad start state '1.8'"), std::string::npos) << out;
  EXPECT_NE(out.find("valid: optimal, x<factor>"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(base + "--start-with x-2 2>&1", &out), 2);
  EXPECT_EQ(test::run_command(base + "--lower-profile 3x4 2>&1", &out), 2);
  EXPECT_NE(out.find("valid: full, system4"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(base + "--transient -1 2>&1", &out), 2);
  EXPECT_EQ(test::run_command(base + "--sweep-pretension 1,-2 2>&1", &out), 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "summary.json"));
  ASSERT_EQ(test::run_command(base + "--start-without x2 --transient 1 --sweep-pretension 1,2 2>&1", &out), 0) << out;
  std::ifstream js(dir / "summary.json");
  const auto j = nlohmann::json::parse(js);
  EXPECT_EQ(j["options"]["start_without"], "x2");
  EXPECT_EQ(j["options"]["start_with"], "x1");
  EXPECT_EQ(j["options"]["transient_s"], 1.0);
  EXPECT_EQ(j["stage1_without"]["start"], "x2");
  const auto& c = j["comparison"];
  EXPECT_NEAR(c["ratio_worst_norm_after"].get<double>(),
              j["stage2_with"]["worst_lower_norm_after_N"].get<double>() / j["stage1_without"]["worst_lower_norm_after_N"].get<double>(),
              1e-12);
  EXPECT_GE(c["t_worst_after_s"].get<double>(), 1.0);
  std::ifstream sw(dir / "pretension_sweep.csv");
  std::string header, row1, row2, extra;
  std::getline(sw, header);
  std::getline(sw, row1);
  std::getline(sw, row2);
  EXPECT_EQ(header.rfind("pretension_factor,worst_without_N,worst_with_N,ratio_worst_norm,", 0), 0u) << header;
  EXPECT_EQ(row1.rfind("1,", 0), 0u) << row1;
  EXPECT_EQ(row2.rfind("2,", 0), 0u) << row2;
  EXPECT_FALSE(std::getline(sw, extra));
  std::filesystem::remove_all(dir);
}

// tendyn cdpr design: a poor planar4 (lower anchors pulled in) improved within its frame; the
// written model.yaml loads and scores as summary.json says; bad input exits 2 naming the option.
TEST(DesignCli, ImprovesAPoorStartAndWritesTheModelAndSummary) {
  const auto dir = test::temp_dir("design_cli");
  std::string text;
  {
    std::ifstream f(test::model_path("planar4.yaml"));
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  const auto at = [&](const std::string& from, const std::string& to) {
    const auto k = text.find(from);
    ASSERT_NE(k, std::string::npos) << from;
    text.replace(k, from.size(), to);
  };
  at("anchor: [1, -1]", "anchor: [0.2, -1]");
  at("anchor: [-1, -1]", "anchor: [-0.2, -1]");
  const auto model = dir / "poor.yaml";
  std::ofstream(model) << text;
  const std::string base = cli() + " cdpr design " + model.string() + " --frame-min -1,-1 --frame-max 1,1";
  std::string out;
  const int rc =
      test::run_command(base + " --region -0.4:0.4:5,-0.4:0.4:5 --evaluations 150 --step 0.2 -o " + (dir / "out").string() + " 2>&1", &out);
  ASSERT_EQ(rc, 0) << out;
  std::ifstream sf(dir / "out" / "summary.json");
  const auto j = nlohmann::json::parse(sf);
  EXPECT_EQ(j["region_poses"], 25);
  EXPECT_LE(j["evaluations"].get<int>(), 150);
  const double before = j["start"]["score"], after = j["best"]["score"];
  EXPECT_GT(after, before + 0.01) << out;
  EXPECT_GE(j["best"]["feasible_poses"].get<int>(), j["start"]["feasible_poses"].get<int>());
  // the written model is the best design: its score (as the library computes it) is the summary's
  const auto best = load_model((dir / "out" / "model.yaml").string());
  Eigen::MatrixXd q(25, 3);
  int k = 0;
  for (int iy = 0; iy < 5; ++iy)
    for (int ix = 0; ix < 5; ++ix) q.row(k++) << -0.4 + 0.8 * (ix + 0.5) / 5, -0.4 + 0.8 * (iy + 0.5) / 5, 0.0;
  EXPECT_NEAR(design_score(best.model, q).score, after, 1e-12);
  for (int i = 0; i < 4; ++i)
    for (int d = 0; d < 2; ++d) {
      EXPECT_GE(best.model.p_WA(d, i), -1.0);
      EXPECT_LE(best.model.p_WA(d, i), 1.0);
    }
  EXPECT_NE(out.find("feasible poses"), std::string::npos) << out;

  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--frame-min -1,-1 --frame-max 1 --region 0:0:1,0:0:1", "--frame-max: expected x,y or x,y,z [m], got 1 values"},
      {"--frame-min 1,-1 --frame-max -1,1 --region 0:0:1,0:0:1",
       "--frame-min/--frame-max: frame box x: lower 1 is not below upper -1 (no width)"},
      {"--frame-min -0.5,-1 --frame-max 0.5,1 --region 0:0:1,0:0:1", "--frame-min/--frame-max: the anchor of cable c1 lies outside"},
      {"--frame-min -1,-1 --frame-max 1,1 --region 0:0:1", "--region: 1 axes given, this model needs 2"},
      {"--frame-min -1,-1 --frame-max 1,1 --region 0:1:0,0:0:1", "--region x: count '0'"},
      {"--frame-min -1,-1 --frame-max 1,1 --region 0:0:1,0:0:1 --evaluations 0", "--evaluations: must be >= 1"},
  };
  for (const auto& c : cases) {
    const auto bad = dir / "bad";
    std::filesystem::remove_all(bad);
    EXPECT_EQ(test::run_command(cli() + " cdpr design " + test::model_path("planar4.yaml") + " " + c.args + " -o " + bad.string() + " 2>&1",
                                &out),
              2)
        << c.args << "\n"
        << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.args << "\n" << out;
    EXPECT_FALSE(std::filesystem::exists(bad / "summary.json")) << c.args;
  }
}

// --objective capacity-margin (with --attachments) and volume: a poor start improves, and the
// written model rescored by the library equals the summary's best score.
TEST(DesignCli, ObjectivesAndAttachmentsImproveAPoorStartAndRescoreFromTheWrittenModel) {
  const auto dir = test::temp_dir("design_cli_obj");
  std::string text;
  {
    std::ifstream f(test::model_path("planar4.yaml"));
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"anchor: [1, -1]", "anchor: [0.2, -1]"},
                                                                                 {"anchor: [-1, -1]", "anchor: [-0.2, -1]"}}) {
    const auto k = text.find(from);
    ASSERT_NE(k, std::string::npos) << from;
    text.replace(k, from.size(), to);
  }
  const auto model = dir / "poor.yaml";
  std::ofstream(model) << text;
  Eigen::MatrixXd q(36, 3);
  int k = 0;
  for (int iy = 0; iy < 6; ++iy)
    for (int ix = 0; ix < 6; ++ix) q.row(k++) << -0.6 + 1.2 * (ix + 0.5) / 6, -0.6 + 1.2 * (iy + 0.5) / 6, 0.0;
  struct Run {
    std::string args;
    DesignObjective objective;
    bool attachments;
  };
  for (const Run& run : {Run{"--objective capacity-margin --attachments", DesignObjective::kCapacityMargin, true},
                         Run{"--objective volume --wrench-set ellipsoid:fx=0:2,fy=0:2,mz=0:0.05", DesignObjective::kVolume, false}}) {
    const auto out_dir = dir / (run.attachments ? "cap" : "vol");
    std::string out;
    const int rc = test::run_command(cli() + " cdpr design " + model.string() + " --frame-min -1,-1 --frame-max 1,1" +
                                         " --region -0.6:0.6:6,-0.6:0.6:6 --evaluations 250 --step 0.2 " + run.args + " -o " +
                                         out_dir.string() + " 2>&1",
                                     &out);
    ASSERT_EQ(rc, 0) << out;
    std::ifstream sf(out_dir / "summary.json");
    const auto j = nlohmann::json::parse(sf);
    EXPECT_EQ(j["objective"], to_string(run.objective));
    const double before = j["start"]["score"], after = j["best"]["score"];
    EXPECT_GT(after, before + (run.objective == DesignObjective::kVolume ? 0.1 : 0.5)) << out;
    const auto best = load_model((out_dir / "model.yaml").string());
    DesignOptions o;
    o.objective = run.objective;
    if (!run.attachments) {
      o.workspace.wrench_centre = Eigen::Vector3d::Zero();
      o.workspace.wrench_shape = Eigen::Vector3d(2.0, 2.0, 0.05).asDiagonal();
    }
    EXPECT_NEAR(design_score(best.model, q, o).score, after, 1e-12);
    EXPECT_NEAR(j["improvement"].get<double>(), after - before, 1e-12);
    EXPECT_EQ(j.contains("attachments_best_m"), run.attachments);
    const auto start = load_model(model.string());
    if (run.attachments) {
      EXPECT_NE(best.model.p_PB, start.model.p_PB);
      for (int i = 0; i < 4; ++i)
        for (int d = 0; d < 2; ++d) {
          EXPECT_GE(best.model.p_PB(d, i), -0.1);  // the platform's 0.2 x 0.2 m box
          EXPECT_LE(best.model.p_PB(d, i), 0.1);
        }
    } else {
      EXPECT_EQ(best.model.p_PB, start.model.p_PB);
    }
  }
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--objective speed", "--objective: unknown design objective 'speed'"},
      {"--attachment-min -1,-1 --attachment-max 1,1", "--attachment-min/--attachment-max: only with --attachments"},
      {"--attachments --attachment-min 0,0 --attachment-max 1,1",
       "the attachment of cable c2 lies outside the attachment box (x = -0.1 m)"},
      {"--wrench-set ellipsoid:fx=0:1", "--wrench-set: only with --objective capacity-margin or volume"},
      {"--objective volume --wrench-set ellipsoid:fx=0:-1", "--wrench-set ellipsoid fx: semi-axis -1 < 0"},
  };
  std::string out;
  for (const auto& c : cases) {
    const auto bad = dir / "bad";
    std::filesystem::remove_all(bad);
    EXPECT_EQ(test::run_command(cli() + " cdpr design " + test::model_path("planar4.yaml") +
                                    " --frame-min -1,-1 --frame-max 1,1 --region 0:0:1,0:0:1 " + c.args + " -o " + bad.string() + " 2>&1",
                                &out),
              2)
        << c.args << "\n"
        << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.args << "\n" << out;
    EXPECT_FALSE(std::filesystem::exists(bad / "summary.json")) << c.args;
  }
}

}  // namespace
}  // namespace tendyn::cdpr
