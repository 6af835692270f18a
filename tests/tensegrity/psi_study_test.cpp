// Document 000's psi study: the study's qualitative shape and determinism across thread counts.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/psi_study.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

namespace ts = tendyn::tensegrity;

namespace {
ts::PsiStudyOptions study(std::vector<double> psi, int threads) {
  ts::PsiStudyOptions o;
  o.prism.damping_Nspm = 5.0;
  o.prism.damping_law = ts::DampingLaw::kRelativeVelocity;
  o.psi_deg = std::move(psi);
  o.simulation.duration_s = 15.0;
  o.simulation.dt_s = 1e-3;
  o.simulation.output_interval_s = 0.01;
  o.threads = threads;
  return o;
}
}  // namespace

TEST(PsiStudy, ReproducesTheDocumentsStudyShape) {
  std::vector<double> psi;
  for (double p = 20; p <= 80; p += 2) psi.push_back(p);
  auto o = study(psi, 0);
  // the default layout: the authors' (centred); with the document's parameters no angle is normal
  // (next test). One number calibrated (docs/VALIDATION.md): rod length 0.45 m, the rods' centres
  // kept on the authors' circle of 0.3/8 m
  EXPECT_EQ(o.prism.layout, ts::PrismLayout::kCentred);
  o.prism.rod_length_m = 0.45;
  o.prism.radius_m = 0.3 / 8;
  const auto res = ts::run_psi_study(o);
  for (const auto& r : res.rows) {
    SCOPED_TRACE("psi " + std::to_string(r.psi_deg));
    // equal strains within each triple (symmetry), at every output time
    EXPECT_LT(r.triple_spread, 1e-9);
    // top and bottom strains equal at the final equilibrium
    EXPECT_NEAR(r.final_strain[0], r.final_strain[1], 1e-6);
    EXPECT_LT(r.kinetic_final_J, 1e-5);  // settled (slow creep of the prism's infinitesimal mechanism remains)
  }
  // small psi: the top triple goes slack; large psi: the bottom triple exceeds 100 %
  EXPECT_EQ(res.rows.front().first_slack_cable.substr(0, 3), "top");
  const auto& below = res.rows[static_cast<std::size_t>((34 - 20) / 2)];
  EXPECT_EQ(below.psi_deg, 34.0);
  EXPECT_EQ(below.first_slack_cable.substr(0, 3), "top");
  EXPECT_TRUE(below.first_overstrain_cable.empty());
  EXPECT_EQ(res.rows.back().first_overstrain_cable.substr(0, 6), "bottom");
  // the normal-mode range: [36, 68] on this 2-degree grid and on a 1-degree grid (document 000:
  // [36, 68], docs/VALIDATION.md)
  ASSERT_TRUE(res.has_range);
  EXPECT_EQ(res.range_min_deg, 36.0);
  EXPECT_EQ(res.range_max_deg, 68.0);
  // just above the range it is the bottom triple that fails first, alone (the document's reason)
  const auto& above = res.rows[static_cast<std::size_t>((70 - 20) / 2)];
  EXPECT_EQ(above.psi_deg, 70.0);
  EXPECT_EQ(above.first_overstrain_cable.substr(0, 6), "bottom");
}

TEST(PsiStudy, TheDocumentsRestLengthHasNoNormalAngleInTheAuthorsLayout) {
  // l0 = 0.2 m, radius L/8: the top ring starts shorter than l0 below psi = 59.7 deg, the side
  // cables above 51.3 deg, so every angle starts with a slack cable
  const auto res = ts::run_psi_study(study({30, 45, 52, 56, 60, 75}, 0));
  EXPECT_FALSE(res.has_range);
  for (const auto& r : res.rows) {
    EXPECT_FALSE(r.normal);
    EXPECT_EQ(r.first_slack_time_s, 0.0);
    // (both at 52 and 56 deg: the first cable index, top1, is reported)
    EXPECT_EQ(r.first_slack_cable, r.psi_deg < 59.7 ? "top1" : "side1") << r.psi_deg;
  }
}

TEST(PsiStudy, SameResultsForAnyThreadCount) {
  const std::vector<double> psi = {30, 37, 45, 52, 60, 66, 71, 77};
  const auto a = ts::run_psi_study(study(psi, 1));
  const auto b = ts::run_psi_study(study(psi, 2));
  const auto c = ts::run_psi_study(study(psi, 5));
  for (std::size_t i = 0; i < psi.size(); ++i)
    for (const auto* other : {&b, &c}) {
      EXPECT_EQ(a.rows[i].normal, other->rows[i].normal);
      for (int t = 0; t < 3; ++t) {
        EXPECT_EQ(a.rows[i].max_strain[t], other->rows[i].max_strain[t]);  // bit for bit
        EXPECT_EQ(a.rows[i].final_strain[t], other->rows[i].final_strain[t]);
      }
      EXPECT_EQ(a.rows[i].first_slack_time_s, other->rows[i].first_slack_time_s);
    }
}

TEST(PsiStudy, TransientShapes) {
  EXPECT_EQ(ts::transient_shape({0, 1, 2, 3}), "rises");
  EXPECT_EQ(ts::transient_shape({3, 2, 1, 0}), "falls");
  EXPECT_EQ(ts::transient_shape({0, 5, 2, 1}), "rises-then-falls");
  EXPECT_EQ(ts::transient_shape({3, -1, 0, 2}), "falls-then-rises");
}

TEST(PsiStudy, BadOptions) {
  EXPECT_THROW(ts::run_psi_study(study({}, 1)), tendyn::Error);
  EXPECT_THROW(ts::run_psi_study(study({95}, 1)), tendyn::Error);
  auto o = study({40}, 1);
  o.prism.n = 4;
  EXPECT_THROW(ts::run_psi_study(o), tendyn::Error);
}

// Before: no bound on the angle count (the CLI's --psi-step 1e-6 made 6e7 angles, 7.5 GB), and
// an angle out of range printed 309 digits (std::to_string).
TEST(PsiStudy, AngleCountIsBoundedAndMessagesAreShort) {
  EXPECT_EQ(ts::psi_grid_count(20, 80, 1), 61.0);
  EXPECT_EQ(ts::psi_grid_count(20, 80, 1e-9), std::floor(60 / 1e-9 + 1e-9) + 1.0);  // no int overflow
  EXPECT_EQ(ts::psi_grid_count(50, 50, 1e-300), 1.0);
  auto o = study(std::vector<double>(static_cast<std::size_t>(ts::kPsiStudyMaxAngles) + 1, 40.0), 1);
  try {
    (void)ts::run_psi_study(o);
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "psi study: 100001 angles, above the limit of 100000");
  }
  try {
    (void)ts::run_psi_study(study({1.7976931348623157e308}, 1));
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "psi study: psi must be in [-90, 90] deg (got 1.79769e+308)");
  }
}

// options.journal_path (the resumable psi sweep, issue 15): rows read back from the journal are
// the computed rows bit for bit; a journal of other options is refused.
TEST(PsiStudy, JournalResumesWithTheSameRowsAndRefusesOtherOptions) {
  const auto dir = std::filesystem::temp_directory_path() / ("tendyn_psi_journal_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto o = study({30, 45, 60, 75}, 2);
  o.simulation.duration_s = 0.3;
  const auto plain = ts::run_psi_study(o);
  o.journal_path = (dir / "j.jsonl").string();
  const auto first = ts::run_psi_study(o);
  EXPECT_EQ(first.resumed, 0);
  int calls = 0;
  const auto again = ts::run_psi_study(o, [&](int done, int total) {
    ++calls;
    EXPECT_EQ(done, total);
  });
  EXPECT_EQ(again.resumed, 4);
  EXPECT_EQ(calls, 0);  // nothing ran
  for (std::size_t i = 0; i < 4; ++i)
    for (const auto* r : {&first, &again}) {
      const auto& a = plain.rows[i];
      const auto& b = r->rows[i];
      EXPECT_EQ(a.psi_deg, b.psi_deg);
      EXPECT_EQ(a.normal, b.normal);
      EXPECT_EQ(a.first_slack_time_s, b.first_slack_time_s);
      EXPECT_EQ(a.first_slack_cable, b.first_slack_cable);
      EXPECT_EQ(a.first_overstrain_time_s, b.first_overstrain_time_s);
      EXPECT_EQ(a.first_overstrain_cable, b.first_overstrain_cable);
      EXPECT_EQ(a.triple_spread, b.triple_spread);
      EXPECT_EQ(a.kinetic_final_J, b.kinetic_final_J);
      for (int t = 0; t < 3; ++t) {
        EXPECT_EQ(a.max_strain[t], b.max_strain[t]);
        EXPECT_EQ(a.min_strain[t], b.min_strain[t]);
        EXPECT_EQ(a.final_strain[t], b.final_strain[t]);
        EXPECT_EQ(a.shape[t], b.shape[t]);
      }
    }
  EXPECT_EQ(again.has_range, plain.has_range);
  EXPECT_EQ(again.range_min_deg, plain.range_min_deg);
  o.prism.stiffness_Npm = 11.0;
  try {
    (void)ts::run_psi_study(o);
    ADD_FAILURE() << "a journal of other options was accepted";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("j.jsonl:1: was written by a different run"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}
