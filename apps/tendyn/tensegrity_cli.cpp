#include "tensegrity_cli.hpp"

#include "cli_util.hpp"

namespace tendyn::cli {

void SimOverrides::add_to(CLI::App& app) {
  // no value of their own: unset keeps the model file's `simulation:` value (docs/MODEL_FORMAT.md)
  app.add_option("--duration", duration, "simulated time [s] (default: the model file's)")->check(non_negative());
  app.add_option("--dt", dt, "time step [s] (first trial step for dopri5; default: the model file's)")->check(positive());
  app.add_option("--integrator", integrator, "rk4 | dopri5 | lie-verlet (default: the model file's)");
  app.add_option("--output-interval", output_interval, "output interval [s] (0 = every step; default: the model file's)")
      ->check(non_negative());
  app.add_option("--strain-limit", strain_limit, "over-strain threshold (1.0 = 100 %; default: the model file's)")->check(positive());
  app.add_option("--rtol", rtol, "dopri5 relative tolerance (default: the model file's)")->check(positive());
  app.add_option("--atol", atol, "dopri5 absolute tolerance (default: the model file's)")->check(positive());
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

nlohmann::json model_provenance(const std::string& path, const tensegrity::ModelFile& file) {
  if (!path.empty()) return provenance(read_file_bytes(path), path);
  return provenance(tensegrity::to_yaml(file.model, &file.simulation), "");
}

}  // namespace tendyn::cli
