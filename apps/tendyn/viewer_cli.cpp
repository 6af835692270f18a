#include "viewer_cli.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <cstdio>

namespace tendyn::cli {

void require_viewer() {
  if (viewer_js().empty())
    throw Error(
        "this tendyn was built without the web viewer (Node.js and npm were not found when it was configured): "
        "run scripts/install-deps.sh build and rebuild");
}

std::size_t write_viewer_page(const std::filesystem::path& out, std::string_view scene_json_text, std::string_view title,
                              double max_page_mb, int* stride_out, int* plot_bucket_out) {
  require_viewer();
  // the page = the bundle + the scene text (+ the template, under 1 KB; "</" escapes: a few bytes)
  const double fixed = static_cast<double>(viewer_js().size() + viewer_css().size()) + 4096.0;
  const double limit = max_page_mb * 1e6;
  if (!(limit > fixed + 1e4))
    throw Error("--max-page-mb " + std::to_string(max_page_mb) + ": the viewer itself takes " + std::to_string(fixed / 1e6) +
                " MB; give a larger limit");
  const std::string scene =
      viz::page_scene_json(scene_json_text, static_cast<std::size_t>(limit - fixed), out.string(), stride_out, plot_bucket_out);
  const std::string html = viz::viewer_html(scene, title, viewer_js(), viewer_css());
  io::write_file_atomic(out, html);
  return html.size();
}

namespace {
/// scene.json text without its trailing whitespace; it must be a JSON object ("...}").
std::string_view trimmed(std::string_view v) {
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ' || v.back() == '\r' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}
}  // namespace

std::size_t write_compare_page(const std::filesystem::path& out, const std::vector<std::string>& scene_texts,
                               const std::vector<std::string>& sources, std::string_view title, double max_page_mb,
                               std::vector<int>* strides_out) {
  require_viewer();
  const double fixed = static_cast<double>(viewer_js().size() + viewer_css().size()) + 8192.0;
  const double share = (max_page_mb * 1e6 - fixed) / static_cast<double>(scene_texts.size());
  if (!(share > 1e4))
    throw Error("--max-page-mb " + std::to_string(max_page_mb) + ": too small for the viewer and " + std::to_string(scene_texts.size()) +
                " runs");
  std::string page;
  if (strides_out) strides_out->clear();
  for (std::size_t i = 0; i < scene_texts.size(); ++i) {
    int stride = 1;
    // the compared runs' plots follow A's frames: no separate full-rate plot data
    std::string t = viz::page_scene_json(trimmed(scene_texts[i]), static_cast<std::size_t>(share), sources.at(i), &stride, nullptr, false);
    if (strides_out) strides_out->push_back(stride);
    if (i == 0) {
      t.pop_back();  // the closing brace: the others follow as "compare"
      page = std::move(t) + ",\"compare\":[";
    } else {
      if (i > 1) page += ',';
      page += t;
    }
  }
  page += "]}";
  return write_viewer_page(out, page, title, max_page_mb);
}

std::string thinning_note(int stride, int plot_bucket, std::size_t frames_in_run, double max_page_mb) {
  if (stride <= 1) return {};
  auto nth = [](int k) {
    const int r = k % 100;
    const char* suffix = (r >= 11 && r <= 13) ? "th" : k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
    return std::to_string(k) + suffix;
  };
  std::string o = "every " + nth(stride) + (frames_in_run ? " of " + std::to_string(frames_in_run) + " frames" : std::string(" frame")) +
                  " kept for the 3D view, plots: ";
  o += plot_bucket == 1   ? std::string("every sample")
       : plot_bucket <= 0 ? std::string("with the 3D frames")
                          : "min/max of every " + std::to_string(plot_bucket) + " rows (full data: results.csv)";
  char mb[32];
  std::snprintf(mb, sizeof mb, "%g", max_page_mb);
  return o + " (--max-page-mb " + mb + ")";
}

std::filesystem::path write_scene_outputs(const std::filesystem::path& dir, const viz::Scene& scene, bool html, double max_page_mb,
                                          std::string* note_out) {
  if (html) require_viewer();  // before writing anything
  if (note_out) note_out->clear();
  const std::string text = viz::scene_json(scene);
  io::write_file_atomic(dir / "scene.json", text);
  if (!html) return {};
  int stride = 1, plot_bucket = 1;
  write_viewer_page(dir / "view.html", text, scene.title, max_page_mb, &stride, &plot_bucket);
  if (note_out) *note_out = thinning_note(stride, plot_bucket, scene.t_s.size(), max_page_mb);
  return dir / "view.html";
}

viz::Scene simulate_scene(const tensegrity::Model& model, const tensegrity::SimulationOptions& options, double frame_interval_s) {
  viz::Scene scene = viz::make_scene(model);
  viz::TensegritySceneRecorder rec(scene, frame_interval_s);
  tensegrity::simulate(model, options, &rec);
  rec.finish();
  return scene;
}

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

}  // namespace tendyn::cli
