// Viewer scene of a tensegrity run (docs/VIEWER.md): points = the model's nodes (rod ends and
// anchors), rods drawn between their end nodes, cables between their nodes, the ground plane
// when the model has one, the COM track and the four energies of document 001 section 3.4.
#pragma once
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/viz/scene.hpp>

namespace tendyn::viz {

/// The scene's fixed part (no frames) from a validated model. Drawn rod radius: that of a solid
/// cylinder with the rod's axial inertia, r = sqrt(2 I_a / m), or L / 100 for a thin rod.
Scene make_scene(const tensegrity::Model& model);

/// Observer appending frames to a scene made by make_scene(model): node positions, cable tensions
/// and strains, COM, and the energies kinetic, elastic, gravitational and total (total includes the
/// potential of constant external forces); with a compliant ground also the contact force on each
/// node (Scene::contact_force_N, from tensegrity::add_compliant_ground_forces at the output state;
/// an impulse ground has impulses, not forces: none recorded). With min_interval_s > 0 at most one frame per interval
/// is kept (a viewer needs ~100 Hz, a fine integration step would make the page huge); call
/// finish() after the run so that the last output is always in the scene.
class TensegritySceneRecorder final : public tensegrity::Observer {
 public:
  explicit TensegritySceneRecorder(Scene& scene, double min_interval_s = 0.0) : scene_(scene), interval_s_(min_interval_s) {}
  void on_output(const tensegrity::Model& model, const tensegrity::State& state, const tensegrity::Data& data,
                 const tensegrity::Energy& energy) override;
  /// Appends the last output if it was skipped by the decimation.
  void finish();

 private:
  struct Frame {
    double t_s = 0.0;
    std::vector<double> p, tension, strain;
    double com[3] = {0, 0, 0};
    FrameEnergy energy;
    std::vector<double> contact;  ///< 3 * nnode (compliant ground), else empty
  };
  void append(const Frame& f);
  Scene& scene_;
  double interval_s_;
  Frame pending_;
  tensegrity::Data contact_scratch_;  ///< a copy of the output's Data whose node forces are replaced by the ground's
  bool has_pending_ = false;
};

}  // namespace tendyn::viz
