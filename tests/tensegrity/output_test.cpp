// Result files of a tensegrity run: the CSV's header and rows equal the recorded outputs (units in
// the column names, 12 digits), the file appears only at commit(), and the summary JSON carries the
// run's numbers.
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/output.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/tensegrity_fixtures.hpp"

#include <filesystem>
#include <fstream>

namespace tendyn::tensegrity {
namespace {

struct Both final : Observer {
  Observer* a;
  Observer* b;
  Both(Observer* x, Observer* y) : a(x), b(y) {}
  void on_output(const Model& m, const State& s, const Data& d, const Energy& e) override {
    a->on_output(m, s, d, e);
    b->on_output(m, s, d, e);
  }
};

TEST(Output, CsvRowsAreTheRecordedOutputsAndAppearAtCommit) {
  const Model m = test::doc000_prism(50.0, 5.0);
  SimulationOptions o;
  o.duration_s = 0.05;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.01;
  const auto dir = tendyn::test::fresh_dir("output_csv");
  const auto path = dir / "results.csv";
  Recorder rec;
  SimulationSummary sum;
  {
    CsvWriter csv(m, path);
    Both both(&csv, &rec);
    sum = simulate(m, o, &both);
    EXPECT_FALSE(std::filesystem::exists(path));  // not before commit()
    csv.commit();
    EXPECT_EQ(csv.rows(), 6);
  }
  io::CsvReader r(path);
  ASSERT_EQ(r.header().size(), 1u + 7 * 3 + 3 * 6 + 4 * 9 + 8);
  EXPECT_EQ(r.header()[0], "t_s");
  EXPECT_EQ(r.header()[1], m.rod_ids[0] + ".x_m");
  EXPECT_EQ(r.header()[1 + 21 + 18 + 2], m.cable_ids[0] + ".tension_N");
  EXPECT_EQ(r.header().back(), "com_z_m");
  int row = 0;
  while (r.next()) {
    const auto k = static_cast<std::size_t>(row);
    EXPECT_EQ(r.fields()[0], io::format_number(rec.time_s[k]));
    EXPECT_EQ(r.fields()[1], io::format_number(rec.x[k][0]));  // rod 0's x
    EXPECT_EQ(r.fields()[1 + 21 + 18 + 2], io::format_number(rec.tension_N[k][0]));
    EXPECT_NEAR(r.number(static_cast<int>(r.header().size()) - 4), rec.energy[k].total(), 1e-11 * std::abs(rec.energy[k].total()) + 1e-15);
    ++row;
  }
  EXPECT_EQ(row, 6);
  const auto j = nlohmann::json::parse(summary_json(m, o, sum));
  EXPECT_EQ(j.dump().find("nan"), std::string::npos);
  EXPECT_TRUE(j.contains("steps"));
  std::filesystem::remove_all(dir);
}

TEST(Output, ACsvWriterWithoutCommitLeavesNoFile) {
  const Model m = test::doc000_prism();
  const auto dir = tendyn::test::fresh_dir("output_nocommit");
  { CsvWriter csv(m, dir / "results.csv"); }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

TEST(Output, ForceColumnIsSignedUnderThePaperLaw) {
  // Under cable_force_sign paper_law the column is <cable>.force_N (may be negative), and the
  // summary says final_force_N; under the default clamp it stays tension_N.
  Model m = test::doc000_prism(50.0, 5.0);
  EXPECT_STREQ(cable_force_column(m), ".tension_N");
  m.cable_force_sign = CableForceSign::kPaperLaw;
  EXPECT_STREQ(cable_force_column(m), ".force_N");
  const auto dir = tendyn::test::fresh_dir("output_force");
  SimulationOptions o;
  o.duration_s = 0.02;
  o.output_interval_s = 0.01;
  SimulationSummary sum;
  {
    CsvWriter csv(m, dir / "results.csv");
    sum = simulate(m, o, &csv);
    csv.commit();
  }
  io::CsvReader r(dir / "results.csv");
  EXPECT_EQ(r.header()[1 + 21 + 18 + 2], m.cable_ids[0] + ".force_N");
  for (const auto& h : r.header()) EXPECT_EQ(h.find("tension"), std::string::npos) << h;
  const auto j = nlohmann::json::parse(summary_json(m, o, sum));
  EXPECT_TRUE(j["cables"][0].contains("final_force_N"));
  EXPECT_FALSE(j["cables"][0].contains("final_tension_N"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tendyn::tensegrity
