// Small helpers shared by the subcommands: progress output and output directories.
#pragma once
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "resources.hpp"

namespace tendyn::cli {

/// Prints "label: 42% (eta 3.1 s)" to stderr at most every 0.5 s when stderr is a terminal or
/// when forced; silent with --quiet. Cheap enough to call every step.
class Progress {
 public:
  Progress(std::string label, bool enabled);
  void update(double fraction);
  void finish();

 private:
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, last_;
  bool printed_ = false;
};

/// Creates `dir` (and parents); throws tendyn::Error naming the directory on failure.
void ensure_directory(const std::filesystem::path& dir);

/// Renders a static plot with <data dir>/scripts/plot.py (matplotlib; interpreter: python_interpreter()):
/// kind is study | plan | sweep | cdpr. Returns false when it cannot, after a warning on stderr that
/// says why (no python3, matplotlib missing: the script says so, script failed). The callers' main
/// output is data, so a missing plot is a warning (exit status 0), never an error.
bool render_plot(const std::string& kind, const std::filesystem::path& csv, const std::filesystem::path& out);

}  // namespace tendyn::cli
