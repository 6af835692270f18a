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
    const Eigen::Vector2d c = ts::plan_centroid_m(m, s);
    const double error_m = tracker_.distance(c);
    if (scene_.nframe() > before) {
      error_m_.push_back(error_m);
      centroid_m_.push_back(c);
    } else {  // the recorder keeps this output as its pending frame
      pending_m_ = error_m;
      pending_c_ = c;
    }
  }
  /// Appends the recorder's pending last output and returns the path error per frame.
  std::vector<double> finish() {
    const int before = scene_.nframe();
    rec_.finish();
    if (scene_.nframe() > before) {
      error_m_.push_back(pending_m_);
      centroid_m_.push_back(pending_c_);
    }
    return std::move(error_m_);
  }
  /// The planner's centroid of every frame (after finish()).
  const std::vector<Eigen::Vector2d>& centroids() const { return centroid_m_; }

 private:
  Scene& scene_;
  TensegritySceneRecorder rec_;
  ts::PathTracker tracker_;
  std::vector<double> error_m_;
  std::vector<Eigen::Vector2d> centroid_m_;
  double pending_m_ = 0.0;
  Eigen::Vector2d pending_c_ = Eigen::Vector2d::Zero();
};

}  // namespace

Scene simulate_plan_scene(const ts::Model& planned, const ts::SimulationOptions& options, const ts::PlanPath& path,
                          double frame_interval_s) {
  Scene scene = make_scene(planned);
  PlanSceneRecorder rec(scene, frame_interval_s, path);
  ts::simulate(planned, options, &rec);
  scene.plots.push_back({kPathErrorPlotTitle, "m", {}, {{"path error", rec.finish()}}});
  // both polylines lie on the floor (the plan is planar: x, y)
  const double z_m = scene.ground_z_m.value_or(0.0);
  ScenePath target{kTargetPathName, {}, false}, track{kCentroidTrackName, {}, true};
  for (const auto& p : path.points) target.points_m.insert(target.points_m.end(), {p.x(), p.y(), z_m});
  for (const auto& c : rec.centroids()) track.points_m.insert(track.points_m.end(), {c.x(), c.y(), z_m});
  scene.paths.push_back(std::move(target));
  scene.paths.push_back(std::move(track));
  return scene;
}

}  // namespace tendyn::viz
