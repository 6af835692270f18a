// Document 000's study of the 3-prism's initial tilt angle psi: for each psi, simulate the
// zero-gravity transient from rest and report whether the robot stays in its "normal mode"
// (no cable slack, no strain above the limit), the strains of the three cable triples (top,
// bottom, side) and the character of their transients. The normal-mode range is the longest
// run of consecutive normal psi values.
#pragma once
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// PrismParams' defaults with layout = kCentred (the psi study's default prism).
inline PrismParams centred_prism() {
  PrismParams p;
  p.layout = PrismLayout::kCentred;
  return p;
}

struct PsiStudyOptions {
  /// Everything but psi (n must be 3). Default: PrismParams' defaults with layout kCentred (the
  /// authors' own construction, radius L/8; ISSUE18 item 1); set layout = kPivot for ours.
  PrismParams prism = centred_prism();
  std::vector<double> psi_deg;   ///< the tilt angles to run
  SimulationOptions simulation;  ///< duration, step, strain limit, ...
  int threads = 0;               ///< 0 = all hardware threads; results do not depend on it
  /// The study reproduces document 000, so it runs the document's damping law as written (a taut
  /// cable's damped force may push; "slack" = strain < 0, the document's normal mode), not the
  /// models' default clamp (model.hpp; docs/VALIDATION.md, "Cable force sign").
  CableForceSign cable_force_sign = CableForceSign::kPaperLaw;
  /// When not empty: a JSON-lines journal of the finished rows (tensegrity::SweepJournal, one
  /// line per angle, flushed as it finishes; the first line holds prism and simulation). Rows
  /// found in it are read instead of run (a rerun after an interruption resumes, with the same
  /// rows bit for bit); a journal of other options or other angles is refused (tendyn::Error
  /// naming the file). The caller removes it once the results are written.
  std::string journal_path;
};

/// Most angles one study runs (psi_deg.size()): each angle is a whole simulation, so 10^5 angles
/// are already hours of work; above it the study is refused before anything is allocated.
inline constexpr int kPsiStudyMaxAngles = 100000;

/// Number of angles of the grid psi_min_deg, psi_min_deg + step_deg, ... <= psi_max_deg (a
/// tolerance of 1e-9 steps keeps the last one), as a double so that a tiny step cannot overflow.
/// Inputs must be finite with step_deg > 0 and psi_max_deg >= psi_min_deg. Never throws.
double psi_grid_count(double psi_min_deg, double psi_max_deg, double step_deg);

/// Triple index: 0 top, 1 bottom, 2 side (cable k belongs to triple k % 3).
inline constexpr const char* kTripleName[3] = {"top", "bottom", "side"};

struct PsiStudyRow {
  double psi_deg = 0.0;
  bool normal = true;
  double first_slack_time_s = -1.0;
  std::string first_slack_cable;
  double first_overstrain_time_s = -1.0;
  std::string first_overstrain_cable;
  double max_strain[3] = {0, 0, 0};  ///< per triple, over the run
  double min_strain[3] = {0, 0, 0};
  double final_strain[3] = {0, 0, 0};
  double triple_spread = 0.0;  ///< max over time and triples of (max - min strain within a triple)
  /// Transient shape per triple: "rises", "falls", "rises-then-falls", "falls-then-rises".
  std::string shape[3];
  double kinetic_final_J = 0.0;
};

struct PsiStudyResult {
  std::vector<PsiStudyRow> rows;
  bool has_range = false;
  double range_min_deg = 0.0, range_max_deg = 0.0;  ///< longest run of normal psi values
  int resumed = 0;                                  ///< rows read from the journal (options.journal_path), not run
};

/// Runs the study (in parallel; identical results for any thread count). `progress(done, total)`
/// is called from worker threads under a lock (`done` counts journaled rows too). Throws
/// tendyn::Error for bad options (no angle, more than kPsiStudyMaxAngles, an angle outside
/// [-90, 90] deg) or a journal of another run.
PsiStudyResult run_psi_study(const PsiStudyOptions& options, const std::function<void(int, int)>& progress = {});

/// Classifies a sampled transient: where its extreme lies relative to start and end.
std::string transient_shape(const std::vector<double>& samples);

}  // namespace tendyn::tensegrity
