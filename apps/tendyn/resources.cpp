#include "resources.hpp"

#include <tendyn/core/error.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace tendyn::cli {
namespace {

bool is_data_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir / "models", ec);
}

std::filesystem::path locate() {
  std::vector<std::filesystem::path> tried;
  if (const char* env = std::getenv("TENDYN_DATA_DIR"); env != nullptr && *env != '\0') {
    const std::filesystem::path dir(env);
    if (is_data_dir(dir)) return dir;
    throw Error("data directory not found: TENDYN_DATA_DIR='" + dir.string() + "' has no models/ directory");
  }
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("data directory not found: cannot resolve /proc/self/exe (" + ec.message() + "); set TENDYN_DATA_DIR");
  const auto bin = exe.parent_path();
  for (const auto& dir : {bin.parent_path() / "share" / "tendyn", bin / "share" / "tendyn"}) {
    if (is_data_dir(dir)) return dir.lexically_normal();
    tried.push_back(dir.lexically_normal());
  }
  std::ostringstream msg;
  msg << "data directory (models/, scripts/) not found; tried";
  for (const auto& d : tried) msg << " '" << d.string() << "'";
  msg << "; install tendyn (cmake --install) or set TENDYN_DATA_DIR";
  throw Error(msg.str());
}

}  // namespace

const std::filesystem::path& data_dir() {
  static const std::filesystem::path dir = locate();
  return dir;
}

std::string data_dir_hint() noexcept {
  try {
    return data_dir().string();
  } catch (...) {
    return "$TENDYN_DATA_DIR";
  }
}

std::filesystem::path data_file(std::string_view relative) { return data_dir() / std::filesystem::path(relative); }

std::filesystem::path doc_dir() noexcept {
  try {
    const auto dir = (data_dir().parent_path() / "doc" / "tendyn").lexically_normal();
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) return dir;
  } catch (...) {}
  return {};
}

std::vector<std::string> model_names() noexcept {
  std::vector<std::string> names;
  try {
    const auto models = data_dir() / "models";
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(models, ec); !ec && it != std::filesystem::recursive_directory_iterator();
         it.increment(ec)) {
      const auto& p = it->path();
      if (!it->is_regular_file(ec) || (p.extension() != ".yaml" && p.extension() != ".urdf")) continue;
      names.push_back(p.lexically_relative(models).replace_extension().generic_string());
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  } catch (...) {
    names.clear();  // no data directory: no names
  }
  return names;
}

std::filesystem::path resolve_model(const std::string& arg, std::vector<std::filesystem::path>* tried) noexcept {
  try {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(arg);
    std::vector<fs::path> candidates{p};
    if (!arg.empty() && p.is_relative()) {
      try {
        const auto& dir = data_dir();
        if (!p.has_extension() && p.filename() != "." && p.filename() != "..")
          for (const char* ext : {".yaml", ".urdf"}) candidates.push_back(dir / "models" / fs::path(arg + ext));
        if (arg.rfind("models/", 0) == 0) candidates.push_back(dir / p);
      } catch (...) {
        // no data directory: the argument is a path only
      }
    }
    for (const auto& c : candidates) {
      if (tried != nullptr) tried->push_back(c);
      if (fs::is_regular_file(c, ec)) return c;
    }
  } catch (...) {}
  return {};
}

std::string python_interpreter() {
  if (const char* env = std::getenv("TENDYN_PYTHON"); env != nullptr && *env != '\0') return env;
  if (::access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    if (d.empty()) continue;
    const auto candidate = std::filesystem::path(d) / "python3";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  throw Error(
      "python3 not found (tried $TENDYN_PYTHON, /usr/bin/python3 and PATH); the plots need python3 with matplotlib "
      "(Debian: apt-get install python3-matplotlib)");
}

}  // namespace tendyn::cli
