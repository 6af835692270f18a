// The modelling studio's request handling (docs/VIEWER.md, "Studio JSON API"), independent of the
// HTTP server so that it can be tested directly: model summaries and edits, validation of run
// requests against limits, and the run itself (forward: the model's drives plus sinusoidal drives
// u = a sin(b t + c) + d; inverse: the planner of document 001 chapter 3, then the executed
// schedule; CDPR models: the tension distribution along a platform path, as `tendyn tension
// trajectory`), streaming frames into a Job that the server reads concurrently, and the run's
// summary for people (first slack cable, COM travel, energies) and its CSV.
#pragma once
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/viz/scene.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::viz::studio {

/// A malformed request: not JSON, a number outside the double range, a field of the wrong JSON
/// type or a missing required field (HTTP 400). Other tendyn::Error thrown by the functions below
/// are about the content (a bad model, a limit, an unknown cable; HTTP 422).
class BadRequest : public Error {
 public:
  using Error::Error;
};

struct Limits {
  std::size_t max_body_bytes = 1 << 20;  ///< request body [bytes], chunked or not (larger: HTTP 413)
  std::size_t max_yaml_bytes = 256 << 10;
  /// YAML nodes of a posted model (counted before the tree is built): yaml-cpp keeps about 0.5 KB
  /// per node, so 256 KB of "[0,0,...]" (128,000 nodes) took about 45 MB per request; at the limit
  /// about 10 MB. A model of 1,000 cables has about 12,000 nodes.
  std::size_t max_yaml_nodes = 20000;
  double max_duration_s = 60.0;         ///< simulated time of one run [s]
  int max_frames = 10000;               ///< duration / output interval
  double max_wall_s = 60.0;             ///< wall time of one job [s]; the job then ends with an error
  int max_drive_cables = 6;             ///< inverse mode: 3^6 = 729 rollouts per period
  int max_connections = 64;             ///< open connections; when full, the oldest connection waiting for a
                                        ///< request (idle, or slow to send its headers) of the client with the
                                        ///< most connections is closed for the new one; none: HTTP 503
  int max_connections_per_client = 48;  ///< open connections of one client (peer_client_key)
  double request_timeout_s = 10.0;      ///< wall time to receive one request (headers and body)
  double keep_alive_timeout_s = 5.0;    ///< an idle connection is closed after this
};

/// Where the server listens, for the Host/Origin checks.
struct Listen {
  std::string host = "127.0.0.1";  ///< --host as given (a loopback name, an address, or a wildcard)
  int port = 0;
};

/// Decision on a request from its method and headers, before its body is read. 0 = accept, else
/// the HTTP status and the reason:
///  403  the Host header is missing or is not a name this server is reached by: 127.0.0.1,
///       localhost, [::1] or the --host value, with the server's port (port 80: port optional;
///       names case-insensitive). Defeats DNS rebinding (a foreign name resolving to 127.0.0.1).
///       With a wildcard --host (0.0.0.0, ::) any Host is accepted.
///  403  an Origin header that is not http://<allowed host>:<port> (for a wildcard --host: not
///       http://<the Host header>): a page of another site (CSRF).
///  415  a POST whose Content-Type is not application/json (the page always sends it; a form
///       of another site cannot).
struct HeaderVerdict {
  int status = 0;
  std::string message;
};
HeaderVerdict check_request_headers(std::string_view method, const std::string* host, const std::string* origin,
                                    const std::string* content_type, const Listen& listen);

/// Who is at the other end of a connected TCP socket `fd`, for the server's per-client limits:
/// "uid:N" for a connection from this machine (N: the user owning the peer's socket, read from
/// /proc/net/tcp or tcp6), else "ip:ADDRESS" ("unknown" when the socket has no peer). Two users
/// of one machine are two clients; the programs of one user are one client. Cost: one read of
/// the kernel's socket table, O(open TCP sockets).
std::string peer_client_key(int fd);

/// `bytes` random bytes from the system's generator (std::random_device) as lower-case hex
/// (2 * bytes characters): the server's token (16 bytes) and run ids.
std::string random_hex(int bytes);

/// True when `presented` equals the non-empty `token`; the time taken does not depend on where
/// they differ.
bool token_matches(std::string_view presented, std::string_view token);

/// A run waiting in the server's queue: its client and its order of arrival.
struct QueuedRun {
  std::string client;
  long seq = 0;
};
/// The fair share of the run slots: the index in `queued` of the run to start next, or -1. Among
/// the queued runs, the one whose client has the fewest runs running (`running`: client -> count;
/// absent: 0), then the earliest (lowest seq); a client that already runs something may not take
/// the last free slot (it stays for a client with nothing running, so one client's heavy runs
/// never lock the others out). -1 when free_slots <= 0 or no queued run may start. O(queued).
int next_run(const std::vector<QueuedRun>& queued, const std::map<std::string, int>& running, int free_slots);

/// MODEL JSON of a tensegrity model: {"kind": "tensegrity", "name", "nodes": [ids],
/// "node_positions": [{id, x_m, y_m, z_m, fixed}] (initial positions; fixed = world anchor),
/// "rods": [{id, from, to, length_m, mass_kg, radius_m}],
/// "cables": [{id, from, to, stiffness_Npm, damping_Nspm, rest_length_m, tension_only}]}.
std::string model_json(const tensegrity::Model& model);

/// "cdpr" when the model text has a top-level line `kind: cdpr` (a CDPR model file,
/// docs/CDPR.md), else "tensegrity". Cost O(text size).
std::string model_kind(std::string_view yaml);

struct EditResult {
  std::string yaml;                 ///< canonical YAML of the edited model (tensegrity::to_yaml; CDPR: see edit_model)
  std::string model_json;           ///< model_json of it (CDPR: the CDPR MODEL JSON, docs/VIEWER.md)
  std::string kind = "tensegrity";  ///< "tensegrity" | "cdpr"
};
/// Parses `yaml` (messages name "model.yaml:line:col"), applies `edits` (JSON array text, may be
/// empty) in order, validates and returns the model. Throws tendyn::Error naming the edit or the
/// place in the YAML (BadRequest when the edits are malformed: not JSON, wrong types, missing
/// fields). Tensegrity edits: {"op":"set","element":"cable"|"rod"|"node","id","field","value"}
/// (node fields x_m, y_m, z_m: the node's initial position; moving a rod end sets the rod's
/// length to the new distance of its nodes, mass and radius kept, initial velocities kept),
/// {"op":"add_cable","id","from","to","stiffness_Npm","rest_length_m"(default: current distance),
/// "damping_Nspm"}, {"op":"remove_cable","id"} (drives on it are removed too).
/// CDPR models (model_kind "cdpr", needs TENDYN_WITH_CDPR): {"op":"set","element":"cable","id",
/// "field": anchor_{x,y,z}_m | attachment_{x,y,z}_m}, {"op":"set","element":"platform",
/// "field": mass_kg | com_{x,y,z}_m}, {"op":"set","element":"tension","field": min_N | max_N},
/// {"op":"set","element":"pose","field": x_m | y_m | z_m | ...}; planar models have no z
/// fields. The YAML written back is the CDPR model file format (cdpr::parse_model reads it).
EditResult edit_model(std::string_view yaml, std::string_view edits_json, const Limits& limits = {});

/// A CDPR run (opaque here; src/viz/studio_cdpr.cpp): model, platform path, speed, solver.
struct CdprRun;

struct RunRequest {
  tensegrity::ModelFile file;  ///< with forward drives added and duration/output interval set
  bool inverse = false;
  tensegrity::PlannerOptions plan;      ///< inverse mode
  std::shared_ptr<const CdprRun> cdpr;  ///< set for a CDPR model (then `file` is unused)
};
/// Parses and checks a POST /api/run body: JSON shape and types, the model, cable ids, finite
/// numbers, the limits (duration, frames, drive cables). Throws BadRequest (malformed: the message
/// names the field, e.g. "request.mode: must be a string") or tendyn::Error with the reason.
/// A CDPR model (model_kind "cdpr") takes "cdpr": {"path": [[x, y(, z)], ...] [m] (2 to 100
/// points of the platform reference point; default: the model's default_path_m), "speed_mps"
/// (default 0.2), "method" (a tension solver of cdpr/tension.hpp, default "exact")} and
/// "output_interval_s"; the duration is the path length / speed (checked against the limits).
/// "edits" (optional, both kinds): edits of edit_model applied to the model before the run (the
/// page sends its table cells this way); a value out of its field's range is refused with the
/// element, id and field named ("request.edits[0]: cable 'side1' stiffness_Npm = -5: must be
/// >= 0"), never replaced by the model's previous value.
RunRequest parse_run_request(std::string_view body, const Limits& limits = {});

/// One run, shared between the thread that runs it and the server that reports it. Lock `mutex`
/// to read any field but `cancel`.
struct Job {
  std::mutex mutex;
  Scene scene;                    ///< fixed part set before status becomes "running"
  std::string status = "queued";  ///< queued | running | done | error | cancelled
  double progress = 0.0;          ///< 0..1
  std::string error;              ///< when status is "error"
  /// when done: the run summary (docs/VIEWER.md, "Run summary"): mode, duration_s, frames,
  /// first_slack {cable, t_s} or null, slack_cables, normal_mode, COM travel [m], energies [J]
  /// (tensegrity), tension extremes (CDPR), planner figures (inverse).
  std::string summary_json;
  std::atomic<bool> cancel{false};
};

/// Runs the request into `job` (blocking; never throws: failures become status "error" with the
/// message). Frames are appended under the job's mutex as they are computed; the run stops with
/// status "error" when `limits.max_wall_s` passes, "cancelled" (error "run cancelled") when
/// `job.cancel` is set.
void run_job(const RunRequest& request, Job& job, const Limits& limits = {});

/// The run as CSV (io/csv.hpp, numbers %.9g): a header line with units, then one line per frame:
/// t_s, com_{x,y,z}_m (when recorded), kinetic_J, elastic_J, gravitational_J, total_J (when
/// recorded), <cable>.tension_N and <cable>.strain per cable, <point>.{x,y,z}_m per point.
/// Reads the job's scene under its lock. Cost O(frames x (points + cables)).
std::string run_csv(Job& job);
/// The run as JSON: scene.json (format tendyn-scene, all frames; `tendyn view` reads it) with the
/// summary added as "summary" (when done).
std::string run_json(Job& job);

/// GET /api/jobs/ID?from=K response body: status, progress, error, the scene without frames
/// (only when from == 0), frames from K on, summary when done.
std::string job_json(Job& job, int from);

}  // namespace tendyn::viz::studio
