// Live view (docs/VIEWER.md, "Live view"): a running program pushes frames to `tendyn serve`,
// whose page /live shows them as they arrive.
//
// Three parts, shared by C++ and Python (tendyn.viewer):
//  - LiveFrame and its JSON: one frame of a scene (time, point positions, cable tensions and
//    strains, optional COM and energies), filled from a tensegrity Model/State/Data without
//    allocation once sized;
//  - LiveStore: the server side without HTTP (the scene of the current session, the last frames,
//    the page's polling answer), tested without a socket;
//  - LiveClient: the program side. send_frame() only copies the frame into a slot; a background
//    thread posts the newest one at most max_rate_hz times a second (frames given faster are
//    replaced by newer ones: dropped, never queued, never blocking the caller), and the last
//    frame given is always delivered (within 1 / max_rate_hz, or at flush()).
// Loopback only: the client refuses other hosts, the server serves the live routes only when it
// listens on loopback. HTTP through cpp-httplib, used privately (no HTTP type in this header).
#pragma once
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/viz/scene.hpp>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::viz {

/// One frame of a live view, in the layout of one row of scene.json's "frames".
struct LiveFrame {
  double t_s = 0.0;
  std::vector<double> positions_m;  ///< 3 * npoint: x0, y0, z0, x1, ... [m]
  std::vector<double> tension_N;    ///< ncable [N]
  std::vector<double> strain;       ///< ncable, (l - l0) / l0
  bool has_com = false;             ///< com_m is sent
  double com_m[3] = {0.0, 0.0, 0.0};
  bool has_energy = false;  ///< energy is sent
  FrameEnergy energy;
};

/// Fills `frame` from a tensegrity run at time t_s: node positions, tensions and strains from
/// `data` (which must be evaluated at `state`: compute_element_forces or later, as in an observer
/// or a sampled controller), the COM of `state` and the energies (kinetic, elastic, gravitational,
/// total = their sum plus the external-force potential). No allocation once the vectors have the
/// model's sizes. Throws tendyn::Error when data or state were not made for the model. O(nrod + ncable).
void fill_live_frame(LiveFrame& frame, double t_s, const tensegrity::Model& model, const tensegrity::State& state,
                     const tensegrity::Data& data);
/// The same from `data` alone: no COM, no energies.
void fill_live_frame(LiveFrame& frame, double t_s, const tensegrity::Model& model, const tensegrity::Data& data);

/// The POST /live/frame body of one frame: {"t_s", "positions_m" (flat), "cable_tension_N",
/// "cable_strain", "com_m" (when has_com), "energy_J" {kinetic, elastic, gravitational, total}
/// (when has_energy)}; numbers in the shortest form that reads back to the same double, a
/// non-finite number as null (the server then answers 422 naming it).
std::string live_frame_json(const LiveFrame& frame);

/// A request the live store refuses: HTTP status (400 malformed JSON or wrong types, 409 no
/// scene yet, 422 wrong sizes or non-finite numbers) and the message naming the field.
class LiveRequestError : public Error {
 public:
  LiveRequestError(int status, const std::string& message) : Error(message), status_(status) {}
  [[nodiscard]] int status() const { return status_; }

 private:
  int status_;
};

/// The server side of the live view: the scene of the current session and its last frames.
/// Thread-safe (one mutex); wait() blocks a poller until something new arrives.
///
/// Sessions: POST /live/scene starts a new one (frames cleared). A frame whose time is earlier
/// than the previous one also starts a new session with the same scene (a new episode of a
/// learning run, a restarted loop), so times within a session never decrease.
class LiveStore {
 public:
  /// At most `capacity` frames are kept (the oldest go first; a page that falls behind gets the
  /// newest frames). capacity >= 1.
  explicit LiveStore(int capacity = 10000);

  /// POST /live/scene: a scene.json object (format, version optional; "title", "kind",
  /// "ground_z_m", "points", "rods", "cables", "faces", "cable_force_signed"; "frames" and
  /// "plots" are not read). Checks it like validate(Scene); starts a new session, returns its id.
  /// Throws LiveRequestError (400 / 422) naming the field.
  long set_scene(std::string_view body);

  /// POST /live/frame: one frame (live_frame_json's layout; "positions_m" flat or as [[x, y, z],
  /// ...]; "cable_tension_N", "cable_strain" may be omitted when there are no cables, strain may
  /// be omitted: 0) or a batch {"frames": [frame, ...]}. COM and energies: in every frame of a
  /// session or in none. The batch is checked whole before any frame is kept. Returns the number
  /// of frames added. Throws LiveRequestError (400, 409 without a scene, 422) naming the frame
  /// and field (e.g. "frames[2].positions_m: 9 numbers, expected 3 x 6 points = 18").
  int push_frames(std::string_view body);

  /// GET /live/state: {"session", "count" (frames received in the session), "first" (index of
  /// the first frame returned), "scene" (the scene without frames, or null before any scene; only
  /// when `session` differs from the current one or `after` > count (a page of an earlier server
  /// process), else omitted), "frames" (scene.json's layout, 7 significant digits: frames from
  /// index max(after, count - max_frames, oldest kept) on, from max(count - max_frames, oldest
  /// kept) when the scene is sent)}. A page that passes back session and count gets only what is new.
  /// in_order (a page that keeps every frame): the OLDEST frames not yet seen instead, at most
  /// max_frames from max(after, oldest kept) (from the oldest kept when the scene is sent), so a
  /// page that fell behind catches up without gaps while the store still holds the frames.
  [[nodiscard]] std::string state_json(long session, long after, int max_frames, bool in_order = false) const;

  /// Blocks until the session differs from `session` or the count of frames from `after`, or
  /// timeout_s passes. True when there is something new.
  bool wait(long session, long after, double timeout_s) const;

  [[nodiscard]] long session() const;
  /// Frames received in the current session.
  [[nodiscard]] long count() const;

  /// POST /live/control (the page's pause / step buttons): {"action": "pause" | "resume" |
  /// "step", "frames": N} (frames: step only, an integer 1 ... 1000000, default 1). "step" pauses
  /// and lets N more frames through. Returns control_json(). Throws LiveRequestError (400 not
  /// JSON / wrong types, 422 an unknown action or N out of range) naming the field.
  std::string control(std::string_view body);
  /// POST /live/permit (LiveClient::send_frame of a paused program): blocks up to timeout_s
  /// until a frame may be published (not paused: true; paused with steps left: one step taken,
  /// true); false after the timeout (the client asks again).
  bool permit(double timeout_s);
  /// {"paused": bool, "steps_left": N}
  [[nodiscard]] std::string control_json() const;
  [[nodiscard]] bool paused() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  int capacity_;
  long session_ = 0;  ///< 0: no scene yet
  long base_ = 0;     ///< index (in the session) of scene_'s first kept frame
  Scene scene_;       ///< header + the kept frames
  std::string header_json_;
  bool paused_ = false;  ///< the page paused the program (a new scene resumes it)
  long steps_left_ = 0;  ///< frames still let through while paused
};

/// The most frames a keep_all LiveClient queues before send_frame waits for the sender.
inline constexpr int kLiveMaxQueuedFrames = 100000;

/// Options of a LiveClient.
struct LiveClientOptions {
  double max_rate_hz = 30.0;  ///< frames posted per second at most (> 0); frames given faster are replaced by newer ones
  double timeout_s = 2.0;     ///< connect / read / write timeout of one request [s] (> 0)
  /// The server's secret (the `token=` of the address `tendyn serve` prints). "": the environment
  /// variable TENDYN_SERVE_TOKEN, else the token file the server wrote (live_token_path(port)).
  std::string token;
  /// Keep every frame: frames given faster than max_rate_hz are queued (never replaced) and
  /// posted in batches ({"frames": [...]}, under the server's 1 MB body limit each), so the page
  /// can scrub through all of them after the run. The queue holds at most kLiveMaxQueuedFrames;
  /// when it is full send_frame waits (at most timeout_s) for the sender, then drops the oldest
  /// (counted in LiveStats::replaced). false: only the newest frame is posted (the default).
  bool keep_all = false;
  /// Pace the program to real time: > 0 makes send_frame wait until the wall time since the
  /// session's first frame reaches (t_s - t_first) / realtime_factor (1: real time, 0.5: half
  /// speed, 10: ten times real time); a frame whose time goes back restarts the clock. 0: no
  /// pacing (the default). >= 0 and finite.
  double realtime_factor = 0.0;
  // Pause / step from the page (docs/VIEWER.md "Pause and step"): every post's answer says whether
  // the page paused the program; from then on send_frame blocks (POST /live/permit, long polls)
  // until the page resumes or lets a step of frames through. A server that does not answer ends
  // the wait (the program goes on). Always on; nothing to set.
};

/// The file in which `tendyn serve` on `port` keeps its secret token for programs of the same
/// user (mode 0600, in a directory of mode 0700): $XDG_RUNTIME_DIR/tendyn/serve-PORT.token, else
/// $HOME/.cache/tendyn/serve-PORT.token; "" when neither variable is set.
std::string live_token_path(int port);

/// The token a client uses for the server on `port`: `given` when not empty, else
/// $TENDYN_SERVE_TOKEN, else the first line of live_token_path(port); "" when none is found.
std::string find_serve_token(int port, const std::string& given = "");

/// What a LiveClient did so far.
struct LiveStats {
  long given = 0;          ///< send_frame calls that stored a frame
  long sent = 0;           ///< frames delivered (HTTP 200)
  long replaced = 0;       ///< frames replaced by a newer one before being posted (dropped by the rate limit)
  long failed = 0;         ///< posts that failed (no server, an error answer)
  std::string last_error;  ///< the reason of the last failure ("" after a success)
};

/// The program side of the live view: pushes a scene and frames to `tendyn serve` on this machine.
///
///   viz::LiveClient live;
///   live.connect("127.0.0.1", 8787);   // throws tendyn::Error when no tendyn serve answers there
///   live.send_scene(model);             // the static part (points, rods, cables, ground)
///   ... in the loop: live.send_frame(t_s, model, state, data);   // cheap: a copy, no I/O
///   live.flush();                       // optional: wait until the last frame is delivered
///
/// Then open http://127.0.0.1:8787/live. send_frame() never blocks on the network (except while
/// the page holds the program paused: it then waits for the page's resume or step) and never
/// throws for a network failure (a viewer that went away must not end a long run): it returns
/// false after a failed post and stats().last_error says why. Not copyable; send_frame and
/// send_scene from one thread at a time. The destructor delivers the last frame (at most
/// timeout_s) and stops the background thread.
class LiveClient {
 public:
  LiveClient();
  explicit LiveClient(const LiveClientOptions& options);
  ~LiveClient();
  LiveClient(const LiveClient&) = delete;
  LiveClient& operator=(const LiveClient&) = delete;

  /// Checks the server (GET /live/health) and starts the sending thread. host: 127.0.0.1,
  /// localhost or ::1 (anything else: tendyn::Error, the live view is loopback only); port in
  /// 1..65535. Every request carries the server's token (find_serve_token(port, options.token));
  /// a missing or wrong one: tendyn::Error naming TENDYN_SERVE_TOKEN and the token file. Throws tendyn::Error "live view: no tendyn serve at http://HOST:PORT (reason);
  /// start one with `tendyn serve --port PORT`" when nothing answers, or naming the answer when
  /// it is not a tendyn serve with the live view. Cost: one request.
  void connect(const std::string& host = "127.0.0.1", int port = 8787);
  [[nodiscard]] bool connected() const;
  /// http://HOST:PORT/live?token=TOKEN, the page to open ("" before connect).
  [[nodiscard]] std::string page_url() const;

  /// Starts a session with this scene (its frames are not sent). Synchronous, one request;
  /// throws tendyn::Error with the server's message (or the transport failure), or when not
  /// connected. A frame still waiting from the previous scene is dropped.
  void send_scene(const Scene& scene);
  /// The tensegrity scene of make_scene(model); also sizes the client's own Data for
  /// send_frame(t, model, state).
  void send_scene(const tensegrity::Model& model);

  /// Stores `frame` as the next one to post (replacing one not yet posted). O(frame size), no
  /// allocation once sized, never blocks on I/O. False when not connected or the last post failed.
  /// With options.keep_all the frame is queued instead (a copy: allocates), waiting only when the
  /// queue is full; with options.realtime_factor > 0 it first waits until the frame's time is due.
  bool send_frame(const LiveFrame& frame);
  /// fill_live_frame(t_s, model, state, data) into the slot, then as above.
  bool send_frame(double t_s, const tensegrity::Model& model, const tensegrity::State& state, const tensegrity::Data& data);
  /// The same, the Data evaluated by the client itself at `state` (forward kinematics and
  /// element forces with the model's rest lengths and drives at state.time_s: a controller's own
  /// rest lengths are not known here; pass its Data instead). Needs send_scene(model) first
  /// (tendyn::Error otherwise, or for a state of another size). O(nrod + ncable).
  bool send_frame(double t_s, const tensegrity::Model& model, const tensegrity::State& state);

  /// Waits until the last frame given has been posted, at most timeout_s. True when it was
  /// delivered (HTTP 200).
  bool flush(double timeout_s = 2.0);
  [[nodiscard]] LiveStats stats() const;
  /// flush(timeout_s), then stops the sending thread (connect() may be called again).
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A tensegrity::Observer for simulate() that sends every output (each output_interval_s of the
/// run) to a LiveClient, then passes it on to `next` when given (e.g. a Recorder):
///   viz::LiveObserver live_obs(live, &recorder);  simulate(model, options, &live_obs);
/// The client must outlive it. O(nrod + ncable) per output, no allocation once sized.
class LiveObserver final : public tensegrity::Observer {
 public:
  explicit LiveObserver(LiveClient& client, tensegrity::Observer* next = nullptr) : client_(client), next_(next) {}
  void on_output(const tensegrity::Model& model, const tensegrity::State& state, const tensegrity::Data& data,
                 const tensegrity::Energy& energy) override;

 private:
  LiveClient& client_;
  tensegrity::Observer* next_;
};

}  // namespace tendyn::viz
