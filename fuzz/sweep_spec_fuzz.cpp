// Fuzz target for the sweep-spec reader (tensegrity::check_sweep_spec, include/tendyn/tensegrity/
// sweep.hpp; `tendyn sweep --spec` and tendyn.sweep read specs with it): YAML/JSON parsing, the
// checks, grid expansion and each point's model and options, without simulating or writing.
// Contract: fuzz/fuzz_contract.hpp. The fuzzer runs in its working directory: a `model:` naming a
// file there is read.
#include <tendyn/tensegrity/sweep.hpp>

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tendyn::fuzz::run_contract("sweep_spec_fuzz", data, size, [](const std::string& text) {
    if (tendyn::tensegrity::check_sweep_spec(text, "<fuzz>") == 0) tendyn::fuzz::finding("sweep_spec_fuzz", "accepted an empty grid", text);
  });
}
