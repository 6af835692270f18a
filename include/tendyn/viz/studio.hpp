// The modelling studio's request handling (docs/VIEWER.md, "Studio JSON API"), independent of the
// HTTP server so that it can be tested directly: model summaries and edits, validation of run
// requests against limits, and the run itself (forward: the model's drives plus sinusoidal drives
// u = a sin(b t + c) + d; inverse: the planner of document 001 chapter 3, then the executed
// schedule), streaming frames into a Job that the server reads concurrently.
#pragma once
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/viz/scene.hpp>

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

namespace tendyn::viz::studio {

struct Limits {
  std::size_t max_body_bytes = 1 << 20;  ///< request body [bytes] (larger: HTTP 413)
  std::size_t max_yaml_bytes = 256 << 10;
  double max_duration_s = 60.0;          ///< simulated time of one run [s]
  int max_frames = 10000;                ///< duration / output interval
  double max_wall_s = 60.0;              ///< wall time of one job [s]; the job then ends with an error
  int max_drive_cables = 6;              ///< inverse mode: 3^6 = 729 rollouts per period
};

/// MODEL JSON: {"name", "nodes", "rods": [{id, from, to, length_m, mass_kg, radius_m}],
/// "cables": [{id, from, to, stiffness_Npm, damping_Nspm, rest_length_m}]}.
std::string model_json(const tensegrity::Model& model);

struct EditResult {
  std::string yaml;        ///< canonical YAML of the edited model (tensegrity::to_yaml)
  std::string model_json;  ///< model_json of it
};
/// Parses `yaml` (messages name "model.yaml:line:col"), applies `edits` (JSON array text, may be
/// empty) in order, validates and returns the model. Throws tendyn::Error naming the edit or the
/// place in the YAML. Edits: {"op":"set","element":"cable"|"rod","id","field","value"},
/// {"op":"add_cable","id","from","to","stiffness_Npm","rest_length_m"(default: current distance),
/// "damping_Nspm"}, {"op":"remove_cable","id"} (drives on it are removed too).
EditResult edit_model(std::string_view yaml, std::string_view edits_json, const Limits& limits = {});

struct RunRequest {
  tensegrity::ModelFile file;  ///< with forward drives added and duration/output interval set
  bool inverse = false;
  tensegrity::PlannerOptions plan;  ///< inverse mode
};
/// Parses and checks a POST /api/run body: JSON shape, the model, cable ids, finite numbers, the
/// limits (duration, frames, drive cables). Throws tendyn::Error with the reason.
RunRequest parse_run_request(std::string_view body, const Limits& limits = {});

/// One run, shared between the thread that runs it and the server that reports it. Lock `mutex`
/// to read any field but `cancel`.
struct Job {
  std::mutex mutex;
  Scene scene;                 ///< fixed part set before status becomes "running"
  std::string status = "queued";  ///< queued | running | done | error
  double progress = 0.0;       ///< 0..1
  std::string error;           ///< when status is "error"
  std::string summary_json;    ///< when done: {"duration_s", "frames", ...} (inverse: planner figures)
  std::atomic<bool> cancel{false};
};

/// Runs the request into `job` (blocking; never throws: failures become status "error" with the
/// message). Frames are appended under the job's mutex as they are computed; the run stops with
/// an error when `limits.max_wall_s` passes or `job.cancel` is set.
void run_job(const RunRequest& request, Job& job, const Limits& limits = {});

/// GET /api/jobs/ID?from=K response body: status, progress, error, the scene without frames
/// (only when from == 0), frames from K on, summary when done.
std::string job_json(Job& job, int from);

}  // namespace tendyn::viz::studio
