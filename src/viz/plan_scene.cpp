#include <tendyn/viz/plan_scene.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <utility>

namespace tendyn::viz {

namespace ts = tensegrity;

namespace {

/// A TensegritySceneRecorder that also records the path error of every frame it keeps.
class PlanSceneRecorder final : public ts::Observer {
 public:
  PlanSceneRecorder(Scene& scene, double interval_s, const ts::PlanPath& path) : scene_(scene), rec_(scene, interval_s), tracker_(path) {}
  void on_output(const ts::Model& m, const ts::State& s, const ts::Data& d, const ts::Energy& e) override {
    const int before = scene_.nframe();
    rec_.on_output(m, s, d, e);
    const double error_m = tracker_.distance(ts::plan_centroid_m(m, s));
    if (scene_.nframe() > before) error_m_.push_back(error_m);
    else pending_m_ = error_m;  // the recorder keeps this output as its pending frame
  }
  /// Appends the recorder's pending last output and returns the path error per frame.
  std::vector<double> finish() {
    const int before = scene_.nframe();
    rec_.finish();
    if (scene_.nframe() > before) error_m_.push_back(pending_m_);
    return std::move(error_m_);
  }

 private:
  Scene& scene_;
  TensegritySceneRecorder rec_;
  ts::PathTracker tracker_;
  std::vector<double> error_m_;
  double pending_m_ = 0.0;
};

}  // namespace

Scene simulate_plan_scene(const ts::Model& planned, const ts::SimulationOptions& options, const ts::PlanPath& path,
                          double frame_interval_s) {
  Scene scene = make_scene(planned);
  PlanSceneRecorder rec(scene, frame_interval_s, path);
  ts::simulate(planned, options, &rec);
  scene.plots.push_back({kPathErrorPlotTitle, "m", {}, {{"path error", rec.finish()}}});
  return scene;
}

}  // namespace tendyn::viz
