// CDPR model files (YAML, same family as the other tendyn model files; format in docs/CDPR.md).
//
//   kind: cdpr
//   name: planar4
//   motion: planar            # spatial (default) | planar
//   source: "citation of the coordinates"      # optional, free text
//   tension: {min: 10, max: 1000}               # optional, [N]; max may be omitted (no bound)
//   platform: {mass: 2.0, com: [0, 0]}           # optional: mass [kg], centre of mass in P [m]
//   gravity: [0, -9.81]                          # optional, [m/s^2], length 2 (planar) or 3
//   pose: [0.0, 0.0, 0.0]                        # optional default pose: planar (x, y, phi),
//                                                # spatial (x, y, z, roll, pitch, yaw) [m, rad]
//   cables:                                      # n >= 1 entries
//     - {name: c1, group: upper, anchor: [x, y(, z)], attachment: [x, y(, z)]}
//
// anchor = p_WA in the world frame [m]; attachment = p_PB in the platform frame [m].
#pragma once
#include <tendyn/cdpr/geometry.hpp>

#include <Eigen/Core>

#include <string>

namespace tendyn::cdpr {

/// A model plus the optional default pose from its file.
struct ModelFile {
  Model model;
  Eigen::VectorXd default_pose;  ///< empty when the file has no `pose`
  std::string source;            ///< citation text (may be empty)
};

/// Loads and validates a CDPR model file. Throws tendyn::Error "<file>:<line>:<col>: <field>:
/// <reason>" for syntax errors, unknown or missing fields, non-finite numbers, wrong vector
/// lengths, and every check of make_model (coincident anchors name both cables).
ModelFile load_model(const std::string& file);
/// Same, from text; `name` stands for the file name in messages.
ModelFile parse_model(const std::string& text, const std::string& name);

/// The model file as YAML text in the format parse_model reads (docs/CDPR.md): every field of
/// ModelFile, numbers as the shortest text that reads back to the same double, names as
/// double-quoted scalars. parse_model(to_yaml(f)) gives f again (tested on every shipped model);
/// comments and the layout of an original file are not kept. Used by the studio's CDPR editor.
std::string to_yaml(const ModelFile& file);

}  // namespace tendyn::cdpr
