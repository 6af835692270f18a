// Shared fixtures and tolerance helpers for the tensegrity tests.
#pragma once
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

namespace tendyn::test {

inline constexpr double kDeg = std::numbers::pi / 180.0;

/// The shipped model models/<name> (e.g. "three_bar.yaml") as loaded from its file.
inline tensegrity::ModelFile shipped_model(const std::string& name) {
  return tensegrity::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/" + name);
}

/// Document 000's 3-prism (m = 1 kg, L = 0.3 m, c = 10 N/m, l0 = 0.2 m) at tilt psi.
inline tensegrity::Model doc000_prism(double psi_deg = 50.0, double damping = 0.0) {
  tensegrity::PrismParams p;
  p.psi_rad = psi_deg * kDeg;
  p.damping_Nspm = damping;
  return tensegrity::make_prism(p);
}

/// Runs `model` and returns the final state; the recorder (if any) gets the outputs.
inline tensegrity::SimulationSummary run(const tensegrity::Model& model, double duration, double dt,
                                         tensegrity::Integrator integ = tensegrity::Integrator::kRK4, tensegrity::Observer* obs = nullptr) {
  tensegrity::SimulationOptions o;
  o.duration_s = duration;
  o.dt_s = dt;
  o.integrator = integ;
  o.output_interval_s = 0.0;
  return tensegrity::simulate(model, o, obs);
}

/// Node positions (nnode x 3) of a state.
inline Eigen::MatrixX3d node_positions(const tensegrity::Model& m, const tensegrity::State& s) { return tensegrity::node_positions(m, s); }

}  // namespace tendyn::test
