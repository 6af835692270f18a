// Uses tendyn through the umbrella header only (<tendyn/tendyn.hpp>): steps the built-in 3-prism
// (tendyn::tensegrity::default_model) 100 RK4 steps of 1 ms by hand with step() and checks that
// the state equals simulate()'s over the same grid bit for bit. Prints the modules the header
// brought in (core io tensegrity viz, and cdpr / tree when the library was built with them).
// Exits 0 when the states agree, 1 otherwise, 2 on a tendyn error.
#include <tendyn/tendyn.hpp>

#include <cstdio>
#include <string>

int main() {
  namespace ts = tendyn::tensegrity;
  try {
    const ts::ModelFile file = ts::default_model();
    ts::SimulationOptions options;
    options.duration_s = 0.1;
    options.dt_s = 1e-3;
    options.integrator = ts::Integrator::kRK4;
    const ts::SimulationSummary summary = ts::simulate(file.model, options);

    ts::Data data = ts::make_data(file.model);
    ts::State state = file.model.initial_state;  // no preparatory call: step() evaluates f(state) first
    const ts::StepOptions step_options = ts::step_options(options);
    const double t0 = state.time_s;
    for (int k = 0; k < 100; ++k) ts::step(file.model, data, state, options.dt_s, step_options, t0 + (k + 1) * options.dt_s);

    std::string modules = "core io tensegrity viz";
#ifdef TENDYN_WITH_CDPR
    modules += " cdpr";
    [[maybe_unused]] tendyn::cdpr::Model cdpr_model;
#endif
#ifdef TENDYN_WITH_TREE
    modules += " tree";
    [[maybe_unused]] tendyn::tree::Model tree_model;
#endif
    const double diff = (state.x - summary.final_state.x).cwiseAbs().maxCoeff();
    std::printf("tendyn %s via <tendyn/tendyn.hpp> (modules: %s): %ld steps, t = %.3f s, max |step - simulate| = %.3g\n",
                std::string(tendyn::kVersion).c_str(), modules.c_str(), summary.steps, state.time_s, diff);
    const bool ok = summary.steps == 100 && state.x == summary.final_state.x && state.time_s == summary.final_state.time_s;
    std::puts(ok ? "ok" : "FAILED: step() by hand differs from simulate()");
    return ok ? 0 : 1;
  } catch (const tendyn::Error& e) {
    std::fprintf(stderr, "umbrella: %s\n", e.what());
    return 2;
  }
}
