// Fuzz target for the tree-model YAML reader (tendyn::tree::model_from_yaml_string, behind
// load_model_yaml and `tendyn tree ...` on .yaml files). Contract: fuzz/fuzz_contract.hpp. A
// model that loads must also survive the base conversions and be written as URDF that the URDF
// reader accepts with the same number of velocity coordinates.
#include <tendyn/tree/model_io.hpp>

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tendyn::fuzz::run_contract("tree_yaml_fuzz", data, size, [](const std::string& text) {
    namespace tr = tendyn::tree;
    const tr::Model m = tr::model_from_yaml_string(text, "<fuzz>");
    const tr::Model fict = tr::convert_base(m, tr::BaseMode::kFictitious);
    const tr::Model free = tr::convert_base(m, tr::BaseMode::kFree);
    if (fict.nv != m.nv || free.nv != m.nv) tendyn::fuzz::finding("tree_yaml_fuzz", "base conversion changed nv", text);
    const std::string urdf = tr::to_urdf(m);
    try {
      const tr::Model back = tr::urdf_from_string(urdf, "<round-trip>");
      if (back.nv != m.nv) tendyn::fuzz::finding("tree_yaml_fuzz", "URDF round-trip changed nv", urdf);
    } catch (const tendyn::Error& e) {
      tendyn::fuzz::finding("tree_yaml_fuzz", "URDF round-trip rejection", std::string(e.what()) + "\n" + urdf);
    }
  });
}
