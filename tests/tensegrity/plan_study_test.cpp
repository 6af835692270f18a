// Document 001 chapter 4's studies (`tendyn study`): the variant lists, one variant run against
// the same plan set up by hand, and the CSV row.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/plan_study.hpp>

#include <gtest/gtest.h>

namespace ts = tendyn::tensegrity;

TEST(PlanStudy, VariantListsOfTheSixStudies) {
  const std::vector<std::size_t> sizes = {7, 4, 5, 5, 3, 3};
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
    EXPECT_STREQ(e.what(),
                 "study: unknown study 'nope' (valid: drive-cables, middle-cables, stiffness, distributions, drive-vs-passive, configuration)");
  }
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
