// Small helpers shared by the subcommands: progress output and output directories.
#pragma once
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

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

/// Renders a static plot with scripts/plot.py (matplotlib; Debian's /usr/bin/python3 preferred):
/// kind is study | plan | sweep. Returns false (and prints nothing) when it cannot.
bool render_plot(const std::string& kind, const std::filesystem::path& csv, const std::filesystem::path& out);

}  // namespace tendyn::cli
