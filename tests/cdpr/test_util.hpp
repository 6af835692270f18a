// Shared helpers of the cdpr tests.
#pragma once
#include <Eigen/Core>
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/model_io.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tendyn::cdpr::test {

inline std::filesystem::path temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("tendyn_cdpr_" + name);
  std::filesystem::create_directories(d);
  return d;
}

/// Runs a shell command, returns its exit status and captures stdout (+stderr if asked).
inline int run_command(const std::string& cmd, std::string* out) {
  std::string full = cmd + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  std::string s;
  while (std::fgets(buf, sizeof buf, p) != nullptr) s += buf;
  const int st = pclose(p);
  if (out != nullptr) *out = s;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

inline bool have_program(const std::string& name) { return run_command("command -v " + name + " >/dev/null", nullptr) == 0; }

inline std::string model_path(const std::string& file) { return std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/" + file; }

/// The 8-cable printer of models/cdpr/printer8.yaml with its dynamics and a 50 kg load.
inline DynamicModel printer_dynamics() { return make_printer_dynamics(load_model(model_path("printer8.yaml")).model, 50.0); }

}  // namespace tendyn::cdpr::test
