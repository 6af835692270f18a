// Small helpers shared by the subcommands: progress output, option checks, output directories,
// display formatting and the provenance block of summary.json (docs/CLI.md).
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "resources.hpp"

namespace tendyn::cli {

/// Progress of a long command on stderr: one line "label: 42.0% (elapsed 1.2 s, eta 3.1 s)",
/// rewritten in place at most every 0.5 s (the first update at once), and a final line at
/// finish(). Shown only when `enabled` (no --quiet) and stderr is a terminal: a log file or a pipe
/// never receives progress lines or carriage returns. Cheap enough to call every step.
class Progress {
 public:
  Progress(std::string label, bool enabled);
  void update(double fraction);
  void finish();
  bool shown() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, last_;
  bool printed_ = false;
};

/// True when stderr is a terminal.
bool stderr_is_terminal();

// Option checks with short messages (CLI11's own print the whole double range). The file checks
// are bad input: main() exits 2 for them (other CLI11 errors are usage errors, exit 1).
const CLI::Validator& positive();
const CLI::Validator& non_negative();
const CLI::Validator& existing_file();  ///< a readable regular file
const CLI::Validator& existing_path();  ///< a file or a directory
/// A model argument (a transform: add with Option::transform): an existing file, or a shipped
/// model's name ("three_bar", "cdpr/printer8") or models/ path, replaced by the file it names
/// (resolve_model in resources.hpp). When none is found: bad input (exit 2) with a message naming
/// every path looked at and the available model names.
const CLI::Validator& model_file();
/// Adds a check to every floating-point option of `app` and its subcommands (recursively): nan
/// and inf are refused with the option's name ("must be a finite number"), and hexadecimal
/// floating point ("0x1p3": numbers are decimal, as in YAML and CSV). Call after registering.
void require_finite_numbers(CLI::App& app);
/// Registers `name` as a command of a module this build of the program left out
/// (TENDYN_WITH_<MODULE>=OFF; scripts/run.sh builds without the CDPR and tree modules): the command
/// is listed in --help, and any use of it, with any arguments (--help too), fails as bad input
/// (tendyn::Error, exit 2) with "tendyn <name>: this tendyn was built without the <module> module
/// (<option>=OFF) ..." and how to build it (scripts/build.sh). `what` is the --help line.
void register_missing_module(CLI::App& app, const std::string& name, const std::string& what, const std::string& module,
                             const std::string& option);
/// Set by existing_file()/existing_path() when they reject a path (main() maps it to exit 2).
bool missing_file_reported();

/// The resource budget of one run (docs/CLI.md "Outputs"): a run whose estimated output size or
/// in-memory recording exceeds it is refused before it starts (exit 2), naming the estimate, the
/// budget and the option that raises it.
struct OutputBudget {
  double max_output_mb = 2048.0;  ///< --max-output-mb: files written by the run [MB = 1e6 bytes]
  double max_memory_mb = 1024.0;  ///< --max-memory-mb: data recorded in memory (the viewer's frames)
  void add_to(CLI::App& app);
  /// Throws tendyn::Error when `output_bytes` or `memory_bytes` exceeds the budget; `what`
  /// describes the estimate (e.g. "1e8 rows x 84 columns of results.csv"); `memory_hint` says
  /// how to need less memory (before "or raise the budget with --max-memory-mb").
  void check(const std::string& command, double output_bytes, const std::string& output_what, double memory_bytes,
             const std::string& memory_what, const std::string& memory_hint = "shorten it, raise --frame-interval") const;
};

/// Creates `dir` (and parents); throws tendyn::Error naming the directory on failure.
void ensure_directory(const std::filesystem::path& dir);

/// Renders a static plot with <data dir>/scripts/plot.py (matplotlib; interpreter: python_interpreter()):
/// kind is study | plan | sweep | cdpr | identify (for cdpr and identify, `csv` is the result directory). Returns false when it cannot, after a warning on stderr that
/// says why (no python3, matplotlib missing: the script says so, script failed). The callers' main
/// output is data, so a missing plot is a warning (exit status 0), never an error.
bool render_plot(const std::string& kind, const std::filesystem::path& csv, const std::filesystem::path& out);

// ------------------------------------------------------------------------ display formatting
/// The largest |x| of `values` (0 for none); the scale of a printed column.
double column_scale(std::span<const double> values);
/// `x` for display: 0 when |x| <= rel_tol * scale (round-off noise next to the column's largest
/// value) or when x is -0; otherwise x. For printed tables only: files keep every digit.
double display_value(double x, double scale, double rel_tol = 1e-9);
/// Replaces every -0 number in `j` by 0 (nlohmann::json writes "-0.0").
void clean_negative_zeros(nlohmann::json& j);

// ---------------------------------------------------------------------------- provenance
/// FNV-1a 64-bit hash of `bytes` as 16 lower-case hex digits.
std::string fnv1a64_hex(std::string_view bytes);
/// The bytes of a file; throws tendyn::Error naming it when it cannot be read.
std::string read_file_bytes(const std::filesystem::path& p);
/// {"version": tendyn version, "model_file": path or null, "model_fnv1a64": hash} for summary.json:
/// the hash of `model_bytes` (the model file as read; for a built-in model, its YAML as
/// `tendyn export --yaml` writes it).
nlohmann::json provenance(std::string_view model_bytes, const std::string& model_file);
/// Writes `j` (with provenance under "tendyn", -0 cleaned) to `path` atomically, 2-space indented.
void write_summary(const std::filesystem::path& path, nlohmann::json j, const nlohmann::json& provenance_block);

}  // namespace tendyn::cli
