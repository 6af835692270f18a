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
                              double max_page_mb, int* stride_out) {
  require_viewer();
  // the page = the bundle + the scene text (+ the template, under 1 KB; "</" escapes: a few bytes)
  const double fixed = static_cast<double>(viewer_js().size() + viewer_css().size()) + 4096.0;
  const double limit = max_page_mb * 1e6;
  if (!(limit > fixed + 1e4))
    throw Error("--max-page-mb " + std::to_string(max_page_mb) + ": the viewer itself takes " + std::to_string(fixed / 1e6) +
                " MB; give a larger limit");
  const std::string scene = viz::page_scene_json(scene_json_text, static_cast<std::size_t>(limit - fixed), out.string(), stride_out);
  const std::string html = viz::viewer_html(scene, title, viewer_js(), viewer_css());
  io::write_file_atomic(out, html);
  return html.size();
}

std::filesystem::path write_scene_outputs(const std::filesystem::path& dir, const viz::Scene& scene, bool html, double max_page_mb) {
  if (html) require_viewer();  // before writing anything
  const std::string text = viz::scene_json(scene);
  io::write_file_atomic(dir / "scene.json", text);
  if (!html) return {};
  write_viewer_page(dir / "view.html", text, scene.title, max_page_mb);
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
