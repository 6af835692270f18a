#include "tensegrity_cli.hpp"

namespace tendyn::cli {

void SimOverrides::add_to(CLI::App& app) {
  app.add_option("--duration", duration, "simulated time [s]")->check(CLI::NonNegativeNumber);
  app.add_option("--dt", dt, "time step [s] (first trial step for dopri5)")->check(CLI::PositiveNumber);
  app.add_option("--integrator", integrator, "rk4 | dopri5 | lie-verlet");
  app.add_option("--output-interval", output_interval, "output interval [s] (0 = every step)")->check(CLI::NonNegativeNumber);
  app.add_option("--strain-limit", strain_limit, "over-strain threshold (1.0 = 100 %)")->check(CLI::PositiveNumber);
  app.add_option("--rtol", rtol, "dopri5 relative tolerance")->check(CLI::PositiveNumber);
  app.add_option("--atol", atol, "dopri5 absolute tolerance")->check(CLI::PositiveNumber);
}

void SimOverrides::apply(tensegrity::SimulationOptions& o) const {
  if (duration) o.duration_s = *duration;
  if (dt) o.dt_s = *dt;
  if (integrator) o.integrator = tensegrity::integrator_from_string(*integrator);
  if (output_interval) o.output_interval_s = *output_interval;
  if (strain_limit) o.strain_limit = *strain_limit;
  if (rtol) o.tolerance.rtol = *rtol;
  if (atol) o.tolerance.atol = *atol;
}

tensegrity::ModelFile load_model_or_default(const std::string& path) {
  return path.empty() ? tensegrity::default_model() : tensegrity::load_model_file(path);
}

}  // namespace tendyn::cli
