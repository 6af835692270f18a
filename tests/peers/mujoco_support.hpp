// Loading an exported tensegrity into MuJoCo 2.2.2 for the peer tests (tests/peers/): the MJCF of
// tendyn::tensegrity::to_mjcf goes through a temporary file (2.2.2 loads XML from files or a VFS),
// and nodes are found as the sites of the same names.
#pragma once
#include <tendyn/tensegrity/mjcf.hpp>

#include <mujoco/mujoco.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace tendyn::test {

struct MjModelDelete {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDelete {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDelete>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDelete>;

/// MuJoCo's model of to_mjcf(model, options); null with MuJoCo's message in *error on failure.
inline MjModelPtr load_mujoco(const tensegrity::Model& model, const tensegrity::MjcfOptions& options, std::string* error) {
  const auto path = std::filesystem::temp_directory_path() / ("tendyn_peer_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(path) << tensegrity::to_mjcf(model, options);
  char err[1000] = "";
  MjModelPtr m(mj_loadXML(path.c_str(), nullptr, err, sizeof err));
  std::filesystem::remove(path);
  if (!m) *error = err;
  return m;
}

/// The site index of every node of `model` in `m` (-1 where none has the node's id).
inline std::vector<int> node_sites(const mjModel* m, const tensegrity::Model& model) {
  std::vector<int> s;
  for (const auto& id : model.node_ids) s.push_back(mj_name2id(m, mjOBJ_SITE, id.c_str()));
  return s;
}

}  // namespace tendyn::test
