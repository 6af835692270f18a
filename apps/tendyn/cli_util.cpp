#include "cli_util.hpp"

#include <tendyn/core/error.hpp>

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace tendyn::cli {

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::update(double fraction) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = fraction > 1e-9 ? elapsed * (1.0 - fraction) / fraction : 0.0;
  std::fprintf(stderr, "\r%s: %5.1f%% (elapsed %.1f s, eta %.1f s)   ", label_.c_str(), 100.0 * fraction, elapsed, eta);
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (enabled_ && printed_) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r%s: 100.0%% (%.2f s)                              \n", label_.c_str(), elapsed);
  }
}

void ensure_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create output directory '" + dir.string() + "': " + ec.message());
}

bool render_plot(const std::string& kind, const std::filesystem::path& csv, const std::filesystem::path& out) {
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string cmd = python + " '" + std::string(TENDYN_SOURCE_DIR) + "/scripts/plot.py' " + kind + " '" + csv.string() + "' '" +
                          out.string() + "' 2>/dev/null";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace tendyn::cli
