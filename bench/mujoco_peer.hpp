// What the MuJoCo benchmark programs share, for MuJoCo 2.2.2 (Debian libmujoco-dev) and for
// MuJoCo 3.x (built from ../shared/peers/mujoco, bench/tensegrity.cmake, TENDYN_MUJOCO3_PREFIX).
// The same sources build both sets of programs; the API differences are behind
// TENDYN_MUJOCO_3 (set when mjVERSION_HEADER >= 3000000).
//   * require_mujoco_version: the version printed at start, and a refusal to run (exit 1) when
//     the library loaded at run time is not the one the program was compiled against;
//   * load_mujoco_model: tendyn's MJCF export loaded into MuJoCo, energy off, constraint and
//     contact stages off (none of the compared models has a contact or a constraint);
//   * tendon_spring_length_m: tendon rest length (3.x stores a [lower, upper] dead band);
//   * tower_free_fall: models/tower.yaml without its ground (every cable taut, falls freely).
#pragma once
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <unistd.h>

#if mjVERSION_HEADER >= 3000000
#define TENDYN_MUJOCO_3 1
#endif

namespace tendyn::bench {

/// Empty when the library loaded at run time (mj_version()) is the version of the headers the
/// program was compiled with (mjVERSION_HEADER); otherwise the message saying both.
inline std::string mujoco_version_mismatch(const char* program, int built_for, int found, const char* found_text) {
  if (found == built_for) return {};
  return std::string(program) + ": built for MuJoCo with mjVERSION_HEADER " + std::to_string(built_for) +
         " but the library loaded at run time is MuJoCo " + found_text + " (mj_version() " + std::to_string(found) +
         "); rebuild the program against that MuJoCo or make the one it was built for findable (rpath / LD_LIBRARY_PATH)";
}

/// Prints "MuJoCo <mj_versionString()>" and exits 1 with a message on stderr when the loaded
/// library is not the version this program was compiled for. (A library absent altogether stops
/// the program before main: the dynamic loader names the missing libmujoco.so.<version>.)
inline void require_mujoco_version(const char* program) {
  const std::string err = mujoco_version_mismatch(program, mjVERSION_HEADER, mj_version(), mj_versionString());
  if (!err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    std::exit(1);
  }
  std::printf("MuJoCo %s (mj_versionString(); mj_version() %d)\n", mj_versionString(), mj_version());
  std::fflush(stdout);
}

/// tendyn's MJCF export of `model` loaded into MuJoCo (a temporary file: 2.2.2 loads XML from
/// files), energy computation off, constraint and contact stages disabled. nullptr and `err`
/// filled when MuJoCo refuses the model.
inline mjModel* load_mujoco_model(const tensegrity::Model& model, std::string& err) {
  const auto path = std::filesystem::temp_directory_path() / ("tendyn_bench_" + std::to_string(::getpid()) + "_" + model.name + ".xml");
  {
    std::ofstream f(path);
    f << tensegrity::to_mjcf(model);
  }
  char buf[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, buf, sizeof buf);
  std::filesystem::remove(path);
  if (!m) {
    err = buf;
    return nullptr;
  }
  m->opt.enableflags &= ~mjENBL_ENERGY;                       // tendyn's step computes no energy
  m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_CONTACT;  // no contact, no constraint here
  return m;
}

/// Rest length of tendon k [m]; the dead band of 3.x is checked to be a single length.
inline double tendon_spring_length_m(const mjModel* m, int k) {
#ifdef TENDYN_MUJOCO_3
  const double lo = m->tendon_lengthspring[2 * k], hi = m->tendon_lengthspring[2 * k + 1];
  return lo == hi ? lo : std::numeric_limits<double>::quiet_NaN();
#else
  return m->tendon_lengthspring[k];
#endif
}

/// models/tower.yaml (6 rods, 24 cables, gravity, found at rest on the ground) with its ground
/// removed: it falls freely, its cables stay taut, and MuJoCo needs no contact.
inline tensegrity::Model tower_free_fall() {
  tensegrity::Model m = tensegrity::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/tower.yaml").model;
  m.ground.type = tensegrity::Ground::Type::kNone;
  return m;
}

}  // namespace tendyn::bench
