// Fuzz target for the URDF reader (tendyn::tree::urdf_from_string, the reader behind load_urdf,
// `tendyn tree ...` and tendyn.tree.load_model). Contract: fuzz/fuzz_contract.hpp. A model that
// loads must also survive the other base modes and round-trip through to_urdf (same number of
// velocity coordinates, accepted by the reader again).
#include <tendyn/tree/model_io.hpp>

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tendyn::fuzz::run_contract("urdf_fuzz", data, size, [](const std::string& text) {
    namespace tr = tendyn::tree;
    const tr::Model m = tr::urdf_from_string(text, "<fuzz>");
    const tr::Model fict = tr::convert_base(m, tr::BaseMode::kFictitious);
    const tr::Model free = tr::convert_base(m, tr::BaseMode::kFree);
    if (fict.nv != m.nv || free.nv != m.nv) tendyn::fuzz::finding("urdf_fuzz", "base conversion changed nv", text);
    const std::string urdf = tr::to_urdf(m);
    try {
      const tr::Model back = tr::urdf_from_string(urdf, "<round-trip>");
      if (back.nv != m.nv) tendyn::fuzz::finding("urdf_fuzz", "round-trip changed nv", urdf);
    } catch (const tendyn::Error& e) {
      tendyn::fuzz::finding("urdf_fuzz", "round-trip rejection", std::string(e.what()) + "\n" + urdf);
    }
  });
}
