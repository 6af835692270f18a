// Document 001 chapter 4's studies (`tendyn study`): the variant lists, one variant run against
// the same plan set up by hand, and the CSV row.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/plan_study.hpp>

#include <gtest/gtest.h>

namespace ts = tendyn::tensegrity;

TEST(PlanStudy, VariantListsOfTheSixStudies) {
  const std::vector<std::size_t> sizes = {7, 4, 5, 5, 3, 5};
  ASSERT_EQ(ts::plan_study_names().size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(ts::plan_study_variants(ts::plan_study_names()[i]).size(), sizes[i]);
  const auto d = ts::plan_study_variants("distributions");
  EXPECT_EQ(d[0].label, "a: top 300, rest 400");
  ASSERT_EQ(d[0].stiffness_Npm.size(), 9u);
  EXPECT_EQ(d[0].stiffness_Npm[2], (std::pair<std::string, double>{"c3", 300.0}));
  EXPECT_EQ(d[0].stiffness_Npm[3], (std::pair<std::string, double>{"c4", 400.0}));
  EXPECT_EQ(ts::plan_study_variants("configuration")[2].model_file, "three_bar_lying.yaml");
  try {
    ts::plan_study_variants("nope");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(
        e.what(),
        "study: unknown study 'nope' (valid: drive-cables, middle-cables, stiffness, distributions, drive-vs-passive, configuration)");
  }
}

// Issue 18 item 3: the drive cables of every variant are the document's: the section's own list
// (4.3.1: c1-c4; 4.3.2, 4.3.3, 4.4.1: c2-c5), otherwise a consecutive run c_i..c_(i+j-1) (3.4.2).
TEST(PlanStudy, EveryStudyDrivesTheDocumentsCables) {
  using Ids = std::vector<std::string>;
  const Ids c1_c4 = {"c1", "c2", "c3", "c4"}, c2_c5 = {"c2", "c3", "c4", "c5"};
  auto drives = [](const std::string& study) {
    std::vector<Ids> out;
    for (const auto& v : ts::plan_study_variants(study)) out.push_back(v.drive_cables);
    return out;
  };
  const std::vector<Ids> count = {{"c1", "c2", "c3"},
                                  c1_c4,
                                  {"c1", "c2", "c3", "c4", "c5"},
                                  {"c1", "c2", "c3", "c4", "c5", "c6"},
                                  {"c1", "c2", "c3", "c4", "c5", "c6", "c7"},
                                  {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"},
                                  {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}};
  EXPECT_EQ(drives("drive-cables"), count);  // 4.2.1: 7 cables hold 1 middle cable, 8 hold 2, 9 hold 3
  const std::vector<Ids> middle = {c1_c4, {"c4", "c5", "c6", "c7"}, {"c5", "c6", "c7", "c8"}, {"c6", "c7", "c8", "c9"}};
  EXPECT_EQ(drives("middle-cables"), middle);                         // 4.2.2
  EXPECT_EQ(drives("stiffness"), std::vector<Ids>(5, c1_c4));         // 4.3.1
  EXPECT_EQ(drives("distributions"), std::vector<Ids>(5, c2_c5));     // 4.3.2
  EXPECT_EQ(drives("drive-vs-passive"), std::vector<Ids>(3, c2_c5));  // 4.3.3
  const std::vector<Ids> config = {c2_c5, c2_c5, {"c4", "c5", "c6", "c7"}, {"c5", "c6", "c7", "c8"}, {"c6", "c7", "c8", "c9"}};
  EXPECT_EQ(drives("configuration"), config);  // 4.4.1 (standing, lying), then 4.4.2 (lying)
  const auto cfg = ts::plan_study_variants("configuration");
  EXPECT_EQ(cfg[0].model_file, "three_bar.yaml");
  for (std::size_t i = 1; i < cfg.size(); ++i) EXPECT_EQ(cfg[i].model_file, "three_bar_lying.yaml") << i;
  // 4.3.3: the drive cables (k1) are c2-c5, every other cable is passive (k2)
  const auto dvp = ts::plan_study_variants("drive-vs-passive")[1];  // k1 = 400 > k2 = 300
  ASSERT_EQ(dvp.stiffness_Npm.size(), 9u);
  for (const auto& [id, k] : dvp.stiffness_Npm) EXPECT_EQ(k, (id >= "c2" && id <= "c5") ? 400.0 : 300.0) << id;
}

TEST(PlanStudy, VariantRunIsThePlanOfTheEditedModel) {
  const auto file = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  const auto v = ts::plan_study_variants("stiffness")[0];  // k = 200 N/m on every cable, drive c1..c4
  ts::PlanStudySettings s;
  s.duration_s = 0.1;
  s.threads = 1;
  const auto r = ts::run_plan_study_variant(file, v, s);
  // by hand: no drives, every cable 200 N/m, c1..c4 planned with the file's integrator
  auto m = file.model;
  m.drives.clear();
  for (auto& c : m.cables) c.stiffness_Npm = 200.0;
  ts::PlannerOptions o;
  o.drive_cables = {0, 1, 2, 3};
  o.duration_s = 0.1;
  o.rollout = file.simulation;
  o.threads = 1;
  const auto ref = ts::plan(m, o);
  EXPECT_EQ(r.final_state.x, ref.final_state.x);
  EXPECT_EQ(r.rollouts, 81);
  const auto unstiffened = ts::run_plan_study_variant(file, ts::plan_study_variants("middle-cables")[0], s);
  EXPECT_NE(unstiffened.final_state.x, ref.final_state.x);  // the stiffness matters
  char nums[160];
  std::snprintf(nums, sizeof nums, ",%.12g,%.12g,%.12g,81,%d", r.speed_mps + 0.0, r.max_path_error_m + 0.0, r.progress_m + 0.0,
                r.forced_periods);
  EXPECT_EQ(ts::plan_study_csv_row(v, r), std::string("\"k = 200 N/m\",\"c1 c2 c3 c4\"") + nums);
  EXPECT_EQ(ts::plan_study_csv_header(), "variant,drive_cables,speed_mps,max_lateral_error_m,progress_m,rollouts,forced_periods");
  auto bad = v;
  bad.drive_cables = {"c1", "zz"};
  EXPECT_THROW(ts::run_plan_study_variant(file, bad, s), tendyn::Error);
}
