// Fuzz target for the tensegrity model parser (libFuzzer entry point; also linked into the
// standalone replay/mutation driver fuzz/standalone_main.cpp for GCC builds and ctest).
//
// Contract under test: load_model_string() either returns a valid model or throws tendyn::Error
// (bad input). Any other exception, a crash, a hang or a sanitizer report is a finding. A model
// that loads is also stepped for a few RK4 steps, where tendyn::Error (incl. SimulationError) is
// again the only acceptable failure; models with more than kMaxElements rods/cables/nodes are
// not stepped (bounded time per input).
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace {

constexpr int kMaxElements = 50;
constexpr long kSteps = 10;

[[noreturn]] void finding(const char* what, const char* detail) {
  std::fprintf(stderr, "model_parser_fuzz: unexpected %s: %s\n", what, detail);
  std::abort();
}

void step_model(const tendyn::tensegrity::ModelFile& f) {
  namespace tt = tendyn::tensegrity;
  const tt::Model& m = f.model;
  if (m.nrod() > kMaxElements || m.ncable() > kMaxElements || m.nnode() > 2 * kMaxElements) return;
  tt::SimulationOptions o = f.simulation;  // the file's integrator and tolerances, bounded run
  // Bounded run: kSteps steps of the file's dt (clamped to a sane range), no output.
  double dt = o.dt_s;
  if (!(dt >= 1e-6)) dt = 1e-6;
  if (dt > 1e-2) dt = 1e-2;
  o.dt_s = dt;
  o.duration_s = static_cast<double>(kSteps) * dt;
  o.output_interval_s = 0.0;
  if (o.integrator == tt::Integrator::kDormandPrince45) {
    // bound the work of an adaptive run: a loose floor on the step size
    o.tolerance.h_min_s = dt * 1e-3;
    o.tolerance.h_max_s = dt;
  }
  // The per-element YAML writer must round-trip whatever the reader accepted.
  const std::string yaml = tt::to_yaml(m, &f.simulation);
  try {
    const tt::ModelFile back = tt::load_model_string(yaml, "<round-trip>");
    if (back.model.nrod() != m.nrod() || back.model.ncable() != m.ncable() || back.model.nnode() != m.nnode())
      finding("round-trip mismatch", yaml.c_str());
  } catch (const tendyn::Error& e) {
    std::fprintf(stderr, "to_yaml output:\n%s\n", yaml.c_str());
    finding("round-trip rejection", e.what());
  }
  struct Count final : tt::Observer {
    long n = 0;
    void on_output(const tt::Model&, const tt::State&, const tt::Data&, const tt::Energy&) override { ++n; }
  } obs;
  (void)tt::simulate(m, o, &obs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tendyn::tensegrity::ModelFile f = tendyn::tensegrity::load_model_string(text, "<fuzz>");
    step_model(f);
  } catch (const tendyn::Error&) {
    // expected: bad model file, or a run that cannot continue
  } catch (const std::exception& e) {
    finding(typeid(e).name(), e.what());
  } catch (...) {
    finding("non-std exception", "");
  }
  return 0;
}
