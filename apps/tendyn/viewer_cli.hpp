// Viewer outputs shared by the subcommands: scene.json in every result directory and, with
// --html, the self-contained viewer page (docs/VIEWER.md).
#pragma once
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/viz/scene.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::cli {

/// The bundled viewer (generated viewer_assets.cpp); empty when built without it.
std::string_view viewer_js();
std::string_view viewer_css();

/// Throws tendyn::Error explaining how to get the viewer when the program was built without it.
void require_viewer();

/// Default of --max-page-mb: the largest viewer page [MB = 1e6 bytes].
constexpr double kDefaultMaxPageMb = 10.0;

/// Writes DIR/scene.json (all frames) and, when `html`, DIR/view.html (both atomically), the page
/// at most `max_page_mb` MB (frames thinned to fit: viz::page_scene_json; `note_out`, when given,
/// receives the line saying so, "" when every frame is in the page). Returns the HTML path
/// (empty when not written). Throws tendyn::Error on an invalid scene or an unwritable directory.
std::filesystem::path write_scene_outputs(const std::filesystem::path& dir, const viz::Scene& scene, bool html,
                                          double max_page_mb = kDefaultMaxPageMb, std::string* note_out = nullptr);

/// The terminal's line about a thinned page: "" for stride 1, else which frames the 3D view keeps
/// and what the plots hold (plot_bucket: viz::page_scene_json's), e.g. "every 19th of 60001 frames
/// kept for the 3D view, plots: every sample (--max-page-mb 10)", "... plots: min/max of every 4
/// rows (full data: results.csv) ...", "... plots: with the 3D frames ..." (bucket 0);
/// frames_in_run 0: "every 19th frame kept ...").
std::string thinning_note(int stride, int plot_bucket, std::size_t frames_in_run, double max_page_mb);

/// Writes the viewer page for scene.json text to `out` (atomically), at most `max_page_mb` MB
/// (frames thinned to fit; `stride_out` receives the stride, 1 = every frame; the plotted series
/// kept in compact form, `plot_bucket_out` receiving 1 = every sample, k = min/max of every k,
/// 0 = thinned with the frames: viz::page_scene_json), and returns
/// its size [bytes]. Throws tendyn::Error when the bundle alone exceeds the limit.
std::size_t write_viewer_page(const std::filesystem::path& out, std::string_view scene_json_text, std::string_view title,
                              double max_page_mb = kDefaultMaxPageMb, int* stride_out = nullptr, int* plot_bucket_out = nullptr);

/// Writes one page comparing runs to `out` (atomically; docs/VIEWER.md "Comparing runs"): the
/// first scene.json text (run A) with the others in its member "compare" (B, C, ...), each thinned
/// to an equal share of `max_page_mb` MB; `sources` names each text in messages. Returns the page's
/// size [bytes]; `strides_out` (optional) receives each run's stride (1 = every frame). Throws
/// tendyn::Error naming --max-page-mb when the limit is too small for the viewer and the runs.
std::size_t write_compare_page(const std::filesystem::path& out, const std::vector<std::string>& scene_texts,
                               const std::vector<std::string>& sources, std::string_view title, double max_page_mb,
                               std::vector<int>* strides_out = nullptr);

/// Simulates `model` (with its own drives) for `options` and returns its scene, decimated to at
/// most one frame per `frame_interval_s` (the last state always kept). Used by plan/--html.
viz::Scene simulate_scene(const tensegrity::Model& model, const tensegrity::SimulationOptions& options, double frame_interval_s = 0.01);

/// Forwards every output to several observers (e.g. the CSV writer and the scene recorder).
class TeeObserver final : public tensegrity::Observer {
 public:
  explicit TeeObserver(std::vector<tensegrity::Observer*> observers) : observers_(std::move(observers)) {}
  void on_output(const tensegrity::Model& m, const tensegrity::State& s, const tensegrity::Data& d, const tensegrity::Energy& e) override {
    for (auto* o : observers_)
      if (o) o->on_output(m, s, d, e);
  }

 private:
  std::vector<tensegrity::Observer*> observers_;
};

/// The single-quoted form of `s` for /bin/sh.
std::string shell_quote(const std::string& s);

}  // namespace tendyn::cli
