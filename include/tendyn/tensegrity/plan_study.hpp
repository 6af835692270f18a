// Document 001 chapter 4: the performance studies of the 3-bar robot (`tendyn study NAME`). Each
// study is a list of variants (model, drive cables, cable stiffnesses); each variant is planned
// with the exhaustive planner along the straight line +x (planner.hpp) and reported by speed,
// maximum lateral error and progress.
#pragma once
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::tensegrity {

struct PlanStudyVariant {
  std::string label;                                          ///< row label, e.g. "k = 300 N/m"
  std::string model_file;                                     ///< file name under models/: three_bar.yaml or three_bar_lying.yaml
  std::vector<std::string> drive_cables;                      ///< cable ids the planner drives
  std::vector<std::pair<std::string, double>> stiffness_Npm;  ///< cable id -> stiffness [N/m]; other cables keep the file's
};

/// Names of the studies: drive-cables, middle-cables, stiffness, distributions, drive-vs-passive,
/// configuration.
const std::vector<std::string>& plan_study_names();

/// The variants of study `name` (document 001 sections 4.2.1-4.4.2; configuration holds 4.4.1 and
/// 4.4.2). Drive cables: the section's own list where it gives one (4.3.1: c1-c4; 4.3.2, 4.3.3,
/// 4.4.1: c2-c5), otherwise a consecutive run c_i..c_(i+j-1) as the document's software takes them
/// (section 3.4.2); the sentence behind each choice is in plan_study.cpp and docs/VALIDATION.md.
/// Throws tendyn::Error "study: unknown study '<name>' (valid: ...)".
std::vector<PlanStudyVariant> plan_study_variants(const std::string& name);

struct PlanStudySettings {
  double duration_s = 2.0;                           ///< planned time per variant
  double period_s = 0.1;                             ///< control period
  double u0_m = 0.005;                               ///< increment per period
  IncrementShape increment = IncrementShape::kRamp;  ///< PlannerOptions::increment (document: open)
  int threads = 0;                                   ///< rollout threads (0 = all cores); results do not depend on it
};

/// Plans one variant on `file` (the variant's model file, loaded by the caller): the file's drives
/// are all removed (a study compares the planner's own actuation), the variant's stiffnesses set,
/// its drive cables resolved (cable_indices: tendyn::Error naming an unknown id) and the rollouts
/// run with rollout_options(file). `progress(done, total)` as plan(). Throws what plan() throws.
PlanResult run_plan_study_variant(ModelFile file, const PlanStudyVariant& variant, const PlanStudySettings& settings,
                                  const std::function<void(int, int)>& progress = {});

/// The study CSV (no wall-clock column: byte-identical on reruns): header
/// "variant,drive_cables,speed_mps,max_lateral_error_m,progress_m,rollouts,forced_periods" and one
/// row per variant: "\"<label>\",\"<ids separated by spaces>\"", then the numbers as "%.12g".
std::string plan_study_csv_header();
std::string plan_study_csv_row(const PlanStudyVariant& variant, const PlanResult& result);

}  // namespace tendyn::tensegrity
