// Fuzz target for the CDPR model reader (tendyn::cdpr::parse_model, behind load_model and every
// `tendyn tension/cdpr-...` command). Contract: fuzz/fuzz_contract.hpp. A model that loads must
// pass validate_model again (the loader's promise) and have a default pose of the right length.
#include <tendyn/cdpr/model_io.hpp>

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tendyn::fuzz::run_contract("cdpr_model_fuzz", data, size, [](const std::string& text) {
    namespace cd = tendyn::cdpr;
    const cd::ModelFile f = cd::parse_model(text, "<fuzz>");
    try {
      cd::validate_model(f.model);
    } catch (const tendyn::Error& e) {
      tendyn::fuzz::finding("cdpr_model_fuzz", "loaded model fails validate_model", e.what());
    }
    const long pose_len = f.model.motion == cd::Motion::kPlanar ? 3 : 6;
    if (f.default_pose.size() != 0 && f.default_pose.size() != pose_len)
      tendyn::fuzz::finding("cdpr_model_fuzz", "default pose of the wrong length", text);
  });
}
