// Reading and writing tree models: the tendyn YAML format (docs/TREE.md, "Model format") and
// URDF (links, joints of type fixed/revolute/continuous/prismatic/floating, inertial). Errors
// are tendyn::Error naming file:line:col and the element or field. Bounded (docs/TREE.md,
// "Limits"): at most kMaxLinks links; URDF files at most 64 MiB, 250,000 elements, nesting 256,
// 256 attributes per element, 64 KiB per attribute value.
#pragma once
#include <tendyn/tree/model.hpp>

#include <string>

namespace tendyn::tree {

/// Loads a model; ".urdf" / ".xml" files as URDF, anything else as YAML.
[[nodiscard]] Model load_model(const std::string& path, BaseMode mode = BaseMode::kAsWritten);

/// YAML model from a file / from text (`name` stands for the file in messages). An optional
/// `reachability` matrix in the file must equal the D of the tree built from the parents (after
/// expanding floating6 joints), else tendyn::Error.
[[nodiscard]] Model load_model_yaml(const std::string& file, BaseMode mode = BaseMode::kAsWritten);
[[nodiscard]] Model model_from_yaml_string(const std::string& text, const std::string& name, BaseMode mode = BaseMode::kAsWritten);

/// URDF from a file / from text. The root link attaches to the world by a fixed joint, except a
/// root named "world" (massless), whose child joints attach to the world directly (type
/// "floating" there = free joint). Unsupported and rejected with a clear error: closed loops (a
/// link that is the child of two joints), joint types planar and unknown ones, <mimic>.
/// <visual>, <collision>, <limit>, <dynamics>, <material>, <transmission>, <gazebo> are ignored.
[[nodiscard]] Model load_urdf(const std::string& file, BaseMode mode = BaseMode::kAsWritten);
[[nodiscard]] Model urdf_from_string(const std::string& text, const std::string& name, BaseMode mode = BaseMode::kAsWritten);

/// URDF text of a model (fictitious chains are written as one "floating" joint from "world").
[[nodiscard]] std::string to_urdf(const Model& model);

}  // namespace tendyn::tree
