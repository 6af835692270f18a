// Declarative parameter sweeps over tensegrity simulations: the spec of `tendyn sweep --spec FILE`
// and of tendyn.sweep(spec, grid) / tendyn.run_spec in Python (both call these functions), its grid,
// the run of one point and its 13 metrics, and the parallel, resumable run into a JSON-lines file.
//
// A spec (YAML or JSON; docs/CLI.md, sweep specs):
//   model: prism                  # "prism" (make_prism) or a tensegrity model file
//   prism: {damping_Nspm: 5.0}    # PrismParams field names, psi_deg [deg], damping_law, layout (model: prism only)
//   simulation: {duration_s: 1}   # SimulationOptions field names, integrator by name
//   grid:                         # name -> non-empty list; the Cartesian product, first name slowest
//     psi_deg: [30, 50, 70]       # each name a prism or a simulation field
//     stiffness_Npm: [8, 12]
//   out: out/sweep/results.jsonl  # the results file (JSON lines)
//   threads: 0                    # 0: all hardware threads
// Every value is checked (type, finiteness, integer n, known names, prism fields only with
// model: prism) before any point runs; errors are tendyn::Error naming file:line:col and the field.
//
// Results file: one line {"index": i, "point": {...}, "result": {...}} per point (compact JSON,
// keys sorted), in index order whatever the thread count; "never" (no slack, no over-strain) is
// null. A rerun into the same file runs only the points that are missing (SweepJournal).
//
// yaml-cpp and nlohmann_json stay private: this header needs only Eigen and the standard library.
#pragma once
#include <tendyn/tensegrity/model.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// Limits of a spec (docs/CLI.md, limits): YAML nodes after alias expansion (an alias counts at
/// every use: a "billion laughs" spec is refused), and grid points (checked before expansion).
inline constexpr long kSweepMaxSpecNodes = 1000000;
inline constexpr double kSweepMaxGridPoints = 1e6;

/// One value of a spec, as written. kInteger: a number written without '.', 'e' or 'E' with
/// |v| < 2^53; kReal: any other finite number; kText: text, including "inf" and "nan" (so numeric
/// fields refuse non-finite numbers); kOther: a list, a mapping, null or a boolean from Python
/// (refused by every field).
struct SweepValue {
  enum class Kind { kInteger, kReal, kText, kOther };
  Kind kind = Kind::kOther;
  double number = 0.0;  ///< kInteger, kReal: the value
  std::string text;     ///< kText: the text; every kind: the value as written (for messages)
  std::string place;    ///< "file:line:col" of the value; empty for a spec built in code

  static SweepValue integer(long long v);
  static SweepValue real(double v);
  static SweepValue of_text(std::string v);
};

/// A named value: a field of the prism or simulation section, or one coordinate of a grid point.
struct SweepField {
  std::string name;
  SweepValue value;
  std::string place;  ///< "file:line:col" of the name; empty for a spec built in code
};

/// A grid point: one field per grid name, in the grid's order.
using SweepPoint = std::vector<SweepField>;

/// One grid name and its values.
struct SweepAxis {
  std::string name;
  std::string place;  ///< of the name
  std::vector<SweepValue> values;
};

struct SweepSpec {
  std::string name = "sweep spec";  ///< the spec file: the place in messages when a value has none
  std::string model = "prism";      ///< "prism" or a model file path
  bool has_prism = false;           ///< a `prism:` section was given (refused with a model file)
  std::string prism_place, grid_place;
  std::vector<SweepField> prism;       ///< PrismParams names, psi_deg [deg], damping_law
  std::vector<SweepField> simulation;  ///< SimulationOptions names, integrator by name
  std::vector<SweepAxis> grid;         ///< first axis slowest
  std::string out = "out/sweep/results.jsonl";
  int threads = 0;  ///< 0: all hardware threads
};

/// Parses a spec from YAML or JSON text; `name` stands for the file in messages. Checks the
/// spec's structure (top-level keys model, prism, simulation, grid, out, threads; a key twice in a
/// mapping; non-scalar keys; kSweepMaxSpecNodes; grid a non-empty mapping of lists; model and out
/// text, threads an integer >= 0) and then validate(). Throws tendyn::Error "<name>:<line>:<col>: ...".
/// Cost: linear in the spec's nodes (aliases expanded); no model file is read.
SweepSpec sweep_spec_from_string(const std::string& text, const std::string& name);
/// sweep_spec_from_string on a file's content. Throws tendyn::Error "<path>: no such file" etc.
SweepSpec load_sweep_spec(const std::string& path);

/// Checks every field: prism and simulation names known (a prism section only with model: prism),
/// values typed (finite numbers; n an integer; damping_law axial or relative_velocity;
/// integrator a known name), each grid name a prism or simulation field (prism fields only with
/// model: prism), each axis non-empty with typed values, the grid at most kSweepMaxGridPoints.
/// Throws tendyn::Error naming the value's place (or spec.name) and the field, e.g.
/// "s.yaml:2:24: grid.stiffness_Npm[1]: must be a finite number (got 'abc')".
void validate(const SweepSpec& spec);

/// Number of grid points (the product of the axis sizes; 1 for an empty grid).
double sweep_npoint(const SweepSpec& spec);

/// The grid points in order: the Cartesian product, first axis slowest (nested loops in the
/// grid's order). Throws tendyn::Error above kSweepMaxGridPoints.
std::vector<SweepPoint> grid_points(const SweepSpec& spec);
/// Point `index` of grid_points(spec) without building the others (index < sweep_npoint(spec),
/// else std::out_of_range). Cost: O(number of axes).
SweepPoint grid_point(const SweepSpec& spec, std::size_t index);

/// The model and options of one point: the spec's prism section (applied by name in sorted order,
/// then the point's prism fields) built by make_prism, or the model file and its simulation
/// section; then the spec's simulation section and the point's simulation fields. The point's
/// fields are checked as validate() checks grid values (names, types, prism fields only with
/// model: prism). Throws tendyn::Error (also from make_prism or the model file reader).
struct SweepSetup {
  Model model;
  SimulationOptions options;
};
SweepSetup make_sweep_setup(const SweepSpec& spec, const SweepPoint& point);

/// The 13 metrics of one run.
struct SweepMetrics {
  bool normal_mode = true;                     ///< no slack, no over-strain during the run
  double first_slack_time_s = -1.0;            ///< [s]; < 0: never (null in the results file)
  std::string first_slack_cable;               ///< id; empty: never
  double first_overstrain_time_s = -1.0;       ///< [s]; < 0: never
  std::string first_overstrain_cable;          ///< id; empty: never
  std::vector<double> max_strain, min_strain;  ///< (ncable) over the run [-]
  double kinetic_final_J = 0.0, elastic_final_J = 0.0, energy_final_J = 0.0;
  double max_abs_energy_drift_J = 0.0;
  Eigen::Vector3d com_final_m = Eigen::Vector3d::Zero();  ///< world frame
  long steps = 0;
};

/// Simulates one point (make_sweep_setup, then simulate without an observer). Throws
/// tendyn::Error (bad point) or tendyn::SimulationError (the run failed). Cost: one simulation.
SweepMetrics run_sweep_point(const SweepSpec& spec, const SweepPoint& point);

/// The JSON texts of a results-file record: a point as an object (keys sorted; integers stay
/// integers) and the metrics as an object ("never": null).
std::string sweep_point_json(const SweepPoint& point);
std::string sweep_metrics_json(const SweepMetrics& metrics);

/// A resumable JSON-lines journal of a sweep (the results file of run_sweep, the journal of the
/// psi sweep): line {"index": i, "point": P_i, "result": R_i} per finished point, compact JSON,
/// written in index order whatever order the points finish in (a finished point waits in memory
/// for the points before it), flushed line by line.
///
/// Opening reads an existing file: a last line cut short (a crash) is dropped; every complete
/// line must be a record (else tendyn::Error "<path>:<line>: not a sweep record ...") whose point
/// equals P_index as a JSON value (else "<path>: holds point <i> of a different grid (<hint>)");
/// with a `header_json`, the file's first line must equal it (else "<path>:1: was written by a
/// different run (<hint>)"), and a new file starts with it. The file is then rewritten
/// (atomically) to its header and the records 0..k-1 present without a gap; later records found
/// stay in memory and are written in their turn.
class SweepJournal {
 public:
  /// `points_json[i]`: point i as JSON text; `hint`: what the user should do on a mismatch.
  /// Creates the file's parent directories. Throws tendyn::Error as above or when the file
  /// cannot be read, created or written.
  SweepJournal(std::filesystem::path path, const std::vector<std::string>& points_json, const std::string& header_json = "",
               const std::string& hint = "use another 'out' file");
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  [[nodiscard]] bool done(std::size_t index) const;
  /// Points found in the file when it was opened.
  [[nodiscard]] std::size_t nresumed() const;
  /// The result of a point found in the file, as JSON text (throws std::out_of_range if not done).
  [[nodiscard]] std::string result_json(std::size_t index) const;
  /// Records a finished point (thread-safe): writes every line whose predecessors are written.
  /// Throws tendyn::Error on a write error.
  void record(std::size_t index, const std::string& result_json);
  [[nodiscard]] const std::filesystem::path& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Options of run_sweep.
struct SweepRunOptions {
  std::string out;  ///< the results file; empty: spec.out
  int threads = 0;  ///< > 0 wins over spec.threads; both 0: all hardware threads
  /// Called once before the first point runs: points in the grid, points already in the file,
  /// the threads used.
  std::function<void(std::size_t npoint, std::size_t nresumed, int threads)> on_start;
  /// Called after each point run (under a lock, from worker threads): points run so far, to run.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct SweepRunReport {
  std::size_t npoint = 0;    ///< grid points
  std::size_t nresumed = 0;  ///< found in the results file, not run again
  std::size_t nrun = 0;      ///< run now
  std::string out;           ///< the results file
  int threads = 0;
};

/// Runs every grid point missing from the results file on `threads` threads (parallel_for, the
/// points in index order) and appends their records (SweepJournal). The file's bytes do not
/// depend on the thread count nor on interruptions and resumes. If a point fails, the points
/// before it stay in the file and its exception is rethrown (tendyn::Error or SimulationError).
/// Cost: one simulation per missing point.
SweepRunReport run_sweep(const SweepSpec& spec, const SweepRunOptions& options = {});

/// Reads a spec without running it (the fuzz target): parses, expands the grid and builds each
/// point's model and options (a `model:` file is read); returns the number of points.
std::size_t check_sweep_spec(const std::string& text, const std::string& name);

}  // namespace tendyn::tensegrity
