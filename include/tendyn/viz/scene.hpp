// Viewer scene: what the 3D viewer, the studio and the report plots draw (docs/VIEWER.md).
//
// A scene is mechanism-neutral: named points whose positions are recorded per frame, rods
// (cylinders or capsules between two points), cables between two points with per-frame tension
// and strain, filled faces (a CDPR platform), a ground height, the centre-of-mass track, the four
// energies of document 001 section 3.4 (kinetic, elastic, gravitational, total) and extra plots.
// Adapters fill it from each module (tensegrity_scene.hpp, and the CLI for CDPR and tree runs).
// Units: SI (m, s, N, J). Numbers are written with 7 significant digits.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::viz {

struct SceneRod {
  std::string name;
  int a = -1, b = -1;     ///< point indices of the two ends
  double radius_m = 0.0;  ///< drawn radius
  bool capsule = false;   ///< capsule (tree links) instead of a cylinder
};

struct SceneCable {
  std::string name;
  int a = -1, b = -1;  ///< point indices
};

/// An extra figure (e.g. the CDPR lower-group tension norm). x is the frames' time unless t_s is
/// given (then every series has t_s.size() values).
struct ScenePlot {
  std::string title, y_label;
  std::vector<double> t_s;
  std::vector<std::pair<std::string, std::vector<double>>> series;
  /// What the viewer may use the plot for, written as "id" when not empty: "q", "qd", "tau" (a tree's
  /// joint coordinates, velocities, torques, one series per coordinate, x = the frames' time).
  std::string id = {};
};

/// A polyline drawn in the 3D view (world frame [m], 3 values per point). per_frame: one point per
/// frame, drawn up to the current frame (an executed track); else drawn whole (a target path).
struct ScenePath {
  std::string name;
  std::vector<double> points_m;
  bool per_frame = false;
};

/// A joint of a tree robot, drawn as its axis at a point (revolute, prismatic). `point`: index of
/// the point at the joint origin (the child link's frame origin); q_index / v_index: its series in
/// the plots with id "q" and "qd"/"tau" (-1: none). Its world-frame axis per frame is in
/// Scene::joint_axes_W.
struct SceneJoint {
  std::string name;
  std::string type;  ///< "revolute" | "prismatic"
  int point = -1;
  int q_index = -1, v_index = -1;
};

/// A point cloud drawn in the 3D view (world frame [m]), static over the frames: e.g. a CDPR
/// workspace grid. Each point has a value (NaN: none) that colours it on the viridis map over the
/// cloud's finite values; points without a value are drawn faint grey. `highlight` lists point
/// indices drawn larger (e.g. the workspace boundary). Written as "clouds" (omitted when empty).
struct SceneCloud {
  std::string name;
  std::string value_label;       ///< what the value is, with its unit, e.g. "capacity margin [N]"
  std::vector<double> points_m;  ///< 3 per point
  std::vector<double> values;    ///< one per point (NaN: no value, written null)
  std::vector<int> highlight;    ///< indices into the points (each once)
};

struct Scene {
  std::string title = "tendyn";
  std::string kind = "tensegrity";  ///< "tensegrity" | "cdpr" | "tree"
  std::optional<double> ground_z_m;
  std::vector<std::string> points;
  /// End-cap sphere radius of each point [m] (0: a plain point); empty when no point has one.
  /// Written as "point_radius_m" (omitted when empty); the viewer draws the spheres.
  std::vector<double> point_radius_m;
  std::vector<SceneRod> rods;
  std::vector<SceneCable> cables;
  std::vector<std::vector<int>> faces;
  std::vector<ScenePlot> plots;
  /// Cable forces may be negative (a tensegrity model under CableForceSign::kPaperLaw): the
  /// viewer then labels them "force", colours negative values on their own scale and draws only
  /// a zero force as slack. Written as "cable_force_signed": true (omitted when false).
  bool cable_force_signed = false;
  std::vector<ScenePath> paths;    ///< "paths" (omitted when empty)
  std::vector<SceneJoint> joints;  ///< "joints" (omitted when empty)
  std::vector<SceneCloud> clouds;  ///< "clouds" (omitted when empty)

  // Frames, flat: frame f of positions is positions_m[3 * npoint * f ...].
  std::vector<double> t_s;
  std::vector<double> positions_m;                                     ///< 3 * npoint per frame
  std::vector<double> tension_N;                                       ///< ncable per frame
  std::vector<double> strain;                                          ///< ncable per frame
  std::vector<double> com_m;                                           ///< 3 per frame (empty: no COM track)
  std::vector<double> kinetic_J, elastic_J, gravitational_J, total_J;  ///< empty: no energies
  std::vector<double> joint_axes_W;  ///< 3 * joints.size() per frame: unit axes, world frame (empty: none)
  /// Ground contact force on every point [N], 3 * npoint per frame (0 off the ground; empty: none).
  /// Written as frames.contact_force_N; the viewer draws its normal and friction parts as arrows.
  std::vector<double> contact_force_N;

  [[nodiscard]] int npoint() const { return static_cast<int>(points.size()); }
  [[nodiscard]] int ncable() const { return static_cast<int>(cables.size()); }
  [[nodiscard]] int nframe() const { return static_cast<int>(t_s.size()); }
};

/// Energies of one frame (optional argument of add_frame).
struct FrameEnergy {
  double kinetic_J = 0.0, elastic_J = 0.0, gravitational_J = 0.0, total_J = 0.0;
};

/// Appends one frame. `positions_m` has 3 * npoint values, `tension_N` and `strain` ncable each;
/// com and energy must be given for every frame or for none. Throws tendyn::Error on a size
/// mismatch or a non-finite number (naming the frame time). Cost O(npoint + ncable), amortised.
void add_frame(Scene& scene, double t_s, std::span<const double> positions_m, std::span<const double> tension_N,
               std::span<const double> strain, const double* com_m = nullptr, const FrameEnergy* energy = nullptr);

/// Checks indices and sizes (rods/cables/faces/joints name existing points, per-frame arrays and
/// per-frame paths consistent with the frames, times non-decreasing); throws tendyn::Error naming
/// the element.
void validate(const Scene& scene);

/// The whole scene as scene.json text (format "tendyn-scene", version 1).
std::string scene_json(const Scene& scene);
/// The scene without frames (the studio's stream header): everything but "frames".
std::string scene_header_json(const Scene& scene);
/// Frames [first, last) as the "frames" object of scene.json.
std::string frames_json(const Scene& scene, int first, int last);

/// Parses and checks scene.json text (as written by scene_json, or by another program): format,
/// version, indices, per-frame sizes. Returns the scene's title ("" when it has none). Throws
/// tendyn::Error with `source` and the reason.
std::string check_scene_json(std::string_view text, std::string_view source);

/// The scene.json text of a viewer page, at most `max_bytes` long: `text` itself when it fits,
/// else the same scene with every k-th frame kept (and the last one; k the smallest stride found
/// that fits), applied to everything per frame: the frames, per-frame paths, plots on the frames'
/// time; plots with their own time base keep every k-th sample too. The header then says
/// "thinned": {"stride": k, "frames_in_run": N} (the viewer shows it). The full data stays in the
/// result directory (results.csv, scene.json). `stride_out` (optional) receives k (1: unchanged).
/// With `plot_data_kept`, the plotted series (cable tensions and strains, COM, energies, the
/// `plots`) are also kept, losslessly packed, in member "plot_data" (docs/VIEWER.md: float32 values
/// and float64 times; per column the bit patterns' first differences, bytes shuffled, zlib deflate,
/// base64): every frame of the run when that takes at most 3/4 of max_bytes, else per bucket of k
/// frames the minimum and the maximum of each series in time order (at the bucket's first and last
/// times), k >= 3 the smallest bucket that fits; the 3D frames are thinned into the rest.
/// `plot_bucket_out` (optional) receives k (1: every sample; 0: no plot_data, the plots thinned
/// with the frames).
/// Throws tendyn::Error naming `source` when the text is not valid JSON, or when even the header
/// and two frames do not fit in max_bytes.
std::string page_scene_json(std::string_view text, std::size_t max_bytes, std::string_view source, int* stride_out = nullptr,
                            int* plot_bucket_out = nullptr, bool plot_data_kept = true);

/// One self-contained HTML page: the viewer's JavaScript and CSS inlined, the scene JSON in a
/// <script type="application/json"> element ("</" escaped). Template: docs/VIEWER.md.
std::string viewer_html(std::string_view scene_json_text, std::string_view title, std::string_view js, std::string_view css);
/// The studio page served by `tendyn serve` (same bundle, mode "studio").
std::string studio_html(std::string_view js, std::string_view css);
/// The live-view page served by `tendyn serve` at /live (same bundle, mode "live"; live.hpp).
std::string live_html(std::string_view js, std::string_view css);

}  // namespace tendyn::viz
