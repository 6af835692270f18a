// A program outside the tendyn tree that links the installed library (examples/consumer/CMakeLists.txt).
// It loads a shipped model file, removes its damping and simulates 1 s with RK4 at 1 ms: without
// damping, gravity or ground, the total energy and the linear momentum of the 3-prism must stay
// constant. Exits 0 when they do (and prints the numbers), 1 otherwise, 2 on bad input.
//
//   consumer [MODEL_FILE]     default: <tendyn prefix>/share/tendyn/models/prism3.yaml
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/version.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace ts = tendyn::tensegrity;

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(TENDYN_MODELS_DIR) + "/prism3.yaml";
  try {
    ts::ModelFile file = ts::load_model_file(path);
    for (auto& cable : file.model.cables) cable.damping_Nspm = 0.0;
    ts::SimulationOptions options;
    options.duration_s = 1.0;
    options.dt_s = 1e-3;
    options.integrator = ts::Integrator::kRK4;
    const ts::SimulationSummary s = ts::simulate(file.model, options);
    const double e0 = s.initial_energy.total();
    const double drift = s.max_abs_energy_drift_J / std::max(std::abs(e0), 1e-12);
    const double dp = (s.linear_momentum_final_kgmps - s.linear_momentum_initial_kgmps).norm();
    std::printf("tendyn %s: %s, %ld steps, energy %.9f J, relative energy drift %.2e, momentum change %.2e kg m/s\n",
                std::string(tendyn::kVersion).c_str(), path.c_str(), s.steps, e0, drift, dp);
    const bool ok = s.steps == 1000 && e0 > 0.0 && drift < 1e-6 && dp < 1e-9;
    std::puts(ok ? "ok" : "FAILED: energy or momentum not conserved");
    return ok ? 0 : 1;
  } catch (const tendyn::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 2;
  }
}
