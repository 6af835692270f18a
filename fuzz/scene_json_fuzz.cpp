// Fuzz target for the scene.json checker (tendyn::viz::check_scene_json, run by `tendyn view` on a
// scene file before embedding it into HTML). Contract: fuzz/fuzz_contract.hpp.
#include <tendyn/viz/scene.hpp>

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tendyn::fuzz::run_contract("scene_json_fuzz", data, size,
                                    [](const std::string& text) { (void)tendyn::viz::check_scene_json(text, "<fuzz>"); });
}
