// Parameter identification by multiple shooting and Ceres' Levenberg-Marquardt. See identify.hpp
// and docs/IDENTIFY.md. The prediction is one template on the scalar type: double for values,
// ceres::Jet for exact forward-mode derivatives through the RK4 integrator.
// This file: the names of the parameters, losses and verdicts, and the options' checks.
#include "tensegrity/identify_internal.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

using namespace identify_detail;

double variance_factor_bound(int dof) {
  if (dof < 1) return kNaN;
  // Wilson-Hilferty: (chi^2 / dof)^(1/3) is nearly normal with mean 1 - 2 / (9 dof) and variance 2 / (9 dof)
  constexpr double z = 3.0902323061678132;  // the standard normal 99.9 % quantile
  const double a = 2.0 / (9.0 * static_cast<double>(dof));
  const double c = 1.0 - a + z * std::sqrt(a);
  return c * c * c;
}

double identify_step_count(const std::vector<double>& t_s, double dt_s) {
  double n = 0.0;
  for (std::size_t i = 1; i < t_s.size(); ++i) n += std::max(1.0, std::ceil((t_s[i] - t_s[i - 1]) / dt_s - 1e-9));
  return n;
}

void validate(const IdentifyOptions& o) {
  auto pos = [](double v, const char* name) {
    if (!(v > 0.0) || !std::isfinite(v))
      throw Error(std::string("identify option ") + name + " must be a positive finite number (got " + num(v) + ")");
  };
  pos(o.dt_s, "dt_s");
  pos(o.segment_s, "segment_s");
  pos(o.marker_sigma_m, "marker_sigma_m");
  pos(o.length_sigma_m, "length_sigma_m");
  pos(o.tension_sigma_N, "tension_sigma_N");
  pos(o.encoder_sigma_m, "encoder_sigma_m");
  pos(o.continuity_sigma_m, "continuity_sigma_m");
  pos(o.loss_scale, "loss_scale");
  if (o.max_iterations < 1) throw Error("identify option max_iterations must be >= 1");
  if (o.threads < 1) throw Error("identify option threads must be >= 1");
  if (o.restarts < 0 || o.restarts > 6) throw Error("identify option restarts must be in 0..6 (got " + std::to_string(o.restarts) + ")");
  if (!(o.restart_variance_factor == 0.0 || o.restart_variance_factor >= 1.0) || !std::isfinite(o.restart_variance_factor))
    throw Error("identify option restart_variance_factor must be 0 (the statistical bound) or a finite number >= 1 (got " +
                num(o.restart_variance_factor) + ")");
  pos(o.restart_gap_sigmas, "restart_gap_sigmas");
  if (!(o.restart_min_improvement >= 0.0 && o.restart_min_improvement < 1.0))
    throw Error("identify option restart_min_improvement must be in [0, 1) (got " + num(o.restart_min_improvement) + ")");
  for (double t : {o.function_tolerance, o.parameter_tolerance, o.gradient_tolerance})
    if (!(t >= 0.0) || !std::isfinite(t)) throw Error("identify option tolerances must be finite and >= 0");
}

}  // namespace tendyn::tensegrity
