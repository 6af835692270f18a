#include "cli_util.hpp"

#include "viewer_cli.hpp"

#include <tendyn/core/error.hpp>

#include <cstdlib>
#include <string>

#include <sys/wait.h>
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
  std::string cmd;
  try {
    cmd = shell_quote(python_interpreter()) + " " + shell_quote(data_file("scripts/plot.py").string()) + " " + kind + " " +
          shell_quote(csv.string()) + " " + shell_quote(out.string());
  } catch (const Error& e) {
    std::fprintf(stderr, "tendyn: warning: no plot %s: %s\n", out.string().c_str(), e.what());
    return false;
  }
  const int rc = std::system(cmd.c_str());
  if (rc == 0) return true;
  std::fprintf(stderr, "tendyn: warning: no plot %s: the plot script failed (exit %d: %s); it needs python3 with matplotlib\n",
               out.string().c_str(), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, cmd.c_str());
  return false;
}

}  // namespace tendyn::cli
