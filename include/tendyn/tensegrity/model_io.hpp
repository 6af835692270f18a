// Tensegrity model files (YAML). The format is documented in docs/MODEL_FORMAT.md.
// Three equivalent forms: per-element lists (rods, nodes, cables), the document's matrices
// (R, E, S, Gamma, P), or a parametric builder (prism, expanded-octahedron).
#pragma once
#include <tendyn/tensegrity/simulate.hpp>

#include <optional>
#include <string>

namespace tendyn::tensegrity {

/// A model plus the optional `simulation:` defaults found in the file.
struct ModelFile {
  Model model;
  SimulationOptions simulation;  ///< defaults overridden by the file's simulation section
};

/// Reads and validates a model file. Throws tendyn::Error "<file>:<line>:<col>: <field>: <reason>"
/// for every problem: syntax, unknown field, missing field, non-finite or out-of-range number,
/// duplicate id, a cable or rod naming a missing node, inconsistent rod length.
ModelFile load_model_file(const std::string& path);
/// Same, from text; `name` stands for the file name in messages.
ModelFile load_model_string(const std::string& text, const std::string& name = "<string>");

/// The model in the per-element form (round-trips through load_model_string).
std::string to_yaml(const Model& model, const SimulationOptions* simulation = nullptr);

/// The built-in default model of `tendyn simulate`: document 000's 3-prism (m = 1 kg, L = 0.3 m,
/// c = 10 N/m, l0 = 0.2 m, zero gravity) at psi = 50 deg, damping gamma = 5 N s/m by eq. (3).
ModelFile default_model();

}  // namespace tendyn::tensegrity
