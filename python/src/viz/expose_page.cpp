// Bindings of the viewer page writer (include/tendyn/viz/scene.hpp, tensegrity_scene.hpp): a
// tensegrity scene recorded state by state (tendyn.viz.ScenePage) and written as the same
// self-contained page as `tendyn view` (the viewer bundle is linked in from apps/tendyn). Used by
// tendyn.envs (render_mode "html").
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/viz/scene.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include "tensegrity/expose.hpp"
#include "viz/expose.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#ifndef TENDYN_PY_NO_VIEWER_ASSETS
namespace tendyn::cli {
std::string_view viewer_js();  // generated viewer_assets.cpp (apps/tendyn/CMakeLists.txt)
std::string_view viewer_css();
}  // namespace tendyn::cli
#endif

namespace tendyn::python::viz_bind {

namespace ts = tendyn::tensegrity;
namespace tv = tendyn::viz;

namespace {

std::string_view bundle_js() {
#ifndef TENDYN_PY_NO_VIEWER_ASSETS
  return tendyn::cli::viewer_js();
#else
  return {};
#endif
}
std::string_view bundle_css() {
#ifndef TENDYN_PY_NO_VIEWER_ASSETS
  return tendyn::cli::viewer_css();
#else
  return {};
#endif
}

/// A tensegrity scene (make_scene) and its recorder: every frame added is kept.
struct ScenePage {
  explicit ScenePage(const ts::Model& model, std::string title)
      : scene(std::make_unique<tv::Scene>(tv::make_scene(model))), nnode(model.nnode()), ncable(model.ncable()) {
    scene->title = std::move(title);
    recorder = std::make_unique<tv::TensegritySceneRecorder>(*scene);
  }
  void check_model(const ts::Model& model, const char* fn) const {
    if (model.nnode() != nnode || model.ncable() != ncable)
      throw tendyn::Error(std::string(fn) + "(model): the page was made for a model of " + std::to_string(nnode) + " nodes and " +
                          std::to_string(ncable) + " cables, this one has " + std::to_string(model.nnode()) + " and " +
                          std::to_string(model.ncable()));
  }
  void add(const ts::Model& model, const ts::State& state, const ts::Data& data) {
    if (!scene->t_s.empty() && state.time_s < scene->t_s.back())
      throw tendyn::Error("ScenePage.add_frame(state): time " + std::to_string(state.time_s) + " s is before the last frame's " +
                          std::to_string(scene->t_s.back()) + " s (clear() to start a new episode)");
    recorder->on_output(model, state, data, ts::compute_energy(model, state, data));
  }
  void clear() {
    const std::string title = scene->title;
    tv::Scene fresh = *scene;
    fresh.t_s.clear();
    fresh.positions_m.clear();
    fresh.tension_N.clear();
    fresh.strain.clear();
    fresh.com_m.clear();
    fresh.kinetic_J.clear();
    fresh.elastic_J.clear();
    fresh.gravitational_J.clear();
    fresh.total_J.clear();
    fresh.joint_axes_W.clear();
    fresh.contact_force_N.clear();
    *scene = std::move(fresh);
    recorder = std::make_unique<tv::TensegritySceneRecorder>(*scene);
  }
  std::unique_ptr<tv::Scene> scene;
  std::unique_ptr<tv::TensegritySceneRecorder> recorder;
  Eigen::Index nnode, ncable;
};

}  // namespace

void expose_page(py::module_& m) {
  m.attr("has_viewer") = !bundle_js().empty();
  py::class_<ScenePage>(m, "ScenePage",
                        "A tensegrity run recorded frame by frame for the viewer (the scene of tendyn::viz::make_scene: "
                        "nodes, rods, cables, ground; per frame node positions, tensions, strains, COM, energies, contact "
                        "forces) and written as the self-contained page of `tendyn view` (docs/VIEWER.md).")
      .def(py::init<const ts::Model&, std::string>(), py::arg("model"), py::arg("title") = "tendyn")
      .def(
          "add_frame",
          [](ScenePage& p, const ts::Model& model, const ts::State& state, const ts::Data* data) {
            p.check_model(model, "ScenePage.add_frame");
            tensegrity_bind::check_state_arg(model, state, "ScenePage.add_frame");
            if (data) {
              tensegrity_bind::check_data_arg(model, *data, "ScenePage.add_frame");
              p.add(model, state, *data);
              return;
            }
            ts::Data d = ts::make_data(model);
            ts::forward_kinematics(model, state, d);
            ts::compute_element_forces(model, state, d);
            p.add(model, state, d);
          },
          py::arg("model"), py::arg("state"), py::arg("data") = nullptr,
          "Appends the frame of `state` at state.time_s [s] (times must not decrease): from `data` evaluated at `state` "
          "(after step(), an observer, or a batch's robot), or, without data, from the model's own evaluation of `state` "
          "with its rest lengths. tendyn.Error for a state, data or model of other sizes.")
      .def(
          "add_batch_frame",
          [](ScenePage& p, const ts::Model& model, const ts::Batch& batch, int r) {
            p.check_model(model, "ScenePage.add_batch_frame");
            if (r < 0 || r >= batch.size())
              throw py::index_error("ScenePage.add_batch_frame(r): robot " + std::to_string(r) + " out of range");
            const auto i = static_cast<std::size_t>(r);
            tensegrity_bind::check_state_arg(model, batch.states[i], "ScenePage.add_batch_frame", "batch");
            tensegrity_bind::check_data_arg(model, batch.datas[i], "ScenePage.add_batch_frame", "batch");
            p.add(model, batch.states[i], batch.datas[i]);
          },
          py::arg("model"), py::arg("batch"), py::arg("r"),
          "Appends robot r of a batch (its state and the data the batch holds for it: tensions with the commanded rest lengths).")
      .def("clear", &ScenePage::clear, "Removes every frame (a new episode).")
      .def_property_readonly(
          "frames", [](const ScenePage& p) { return static_cast<int>(p.scene->t_s.size()); }, "number of frames")
      .def_property(
          "title", [](const ScenePage& p) { return p.scene->title; }, [](ScenePage& p, const std::string& t) { p.scene->title = t; })
      .def(
          "scene_json", [](const ScenePage& p) { return tv::scene_json(*p.scene); }, "The scene as scene.json text (every frame).")
      .def(
          "write",
          [](const ScenePage& p, const std::filesystem::path& path, double max_page_mb) {
            if (bundle_js().empty())
              throw tendyn::Error("ScenePage.write: this build has no web viewer (configure with node and npm: TENDYN_WITH_VIEWER=ON)");
            if (p.scene->t_s.empty()) throw tendyn::Error("ScenePage.write(" + path.string() + "): no frame recorded");
            const double fixed = static_cast<double>(bundle_js().size() + bundle_css().size()) + 4096.0;
            const double limit = max_page_mb * 1e6;
            if (!(limit > fixed + 1e4))
              throw tendyn::Error("ScenePage.write(max_page_mb): " + std::to_string(max_page_mb) + " MB; the viewer itself takes " +
                                  std::to_string(fixed / 1e6) + " MB");
            const std::string text = tv::scene_json(*p.scene);
            const std::string page = tv::page_scene_json(text, static_cast<std::size_t>(limit - fixed), path.string());
            const std::string html = tv::viewer_html(page, p.scene->title, bundle_js(), bundle_css());
            tendyn::io::write_file_atomic(path, html);
            return html.size();
          },
          py::arg("path"), py::arg("max_page_mb") = 10.0,
          "Writes the viewer page (one self-contained HTML file, atomically) to `path`, at most max_page_mb MB (long runs: "
          "every k-th frame, as `tendyn view --max-page-mb`); returns its size [bytes]. tendyn.Error without frames, for a "
          "limit below the viewer's own size, an unwritable path, or a build without the viewer.");
}

}  // namespace tendyn::python::viz_bind
