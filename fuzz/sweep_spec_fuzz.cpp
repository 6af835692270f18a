// Fuzz target for the sweep-spec reader of `tendyn sweep --spec` (tendyn::cli::check_sweep_spec in
// apps/tendyn/sweep_spec.cpp, compiled into this target): YAML/JSON parsing, grid expansion and
// each point's model and options, without simulating or writing. Contract: fuzz/fuzz_contract.hpp.
// The fuzzer runs in its working directory: a `model:` naming a file there is read.
#include "sweep_spec.hpp"

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tendyn::fuzz::run_contract("sweep_spec_fuzz", data, size, [](const std::string& text) {
    if (tendyn::cli::check_sweep_spec(text, "<fuzz>") == 0) tendyn::fuzz::finding("sweep_spec_fuzz", "accepted an empty grid", text);
  });
}
