#include <tendyn/core/error.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/io/signal_cleanup.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace tendyn::io {

namespace {
/// `dir` absolute and without a trailing separator or "." component.
std::filesystem::path normalized(const std::filesystem::path& dir) {
  auto p = std::filesystem::absolute(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  if (p == p.root_path() || !p.has_filename()) throw Error("output directory '" + dir.string() + "': cannot write a result set here");
  return p;
}
}  // namespace

std::filesystem::path ResultSet::staging_name(const std::filesystem::path& dir, long pid) {
  auto s = dir;
  s += ".partial-" + std::to_string(pid);
  return s;
}

int ResultSet::remove_stale(const std::filesystem::path& dir) {
  const auto parent = dir.parent_path();
  const std::string prefix = dir.filename().string() + ".partial-";
  int removed = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::error_code rec;
    std::filesystem::remove_all(it->path(), rec);  // never follows symlinks
    if (!rec) ++removed;
  }
  return removed;
}

ResultSet::ResultSet(std::filesystem::path dir) : dir_(normalized(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_.parent_path(), ec);
  if (ec) throw Error("cannot create output directory '" + dir_.parent_path().string() + "': " + ec.message());
  const auto st = std::filesystem::symlink_status(dir_, ec);
  if (std::filesystem::exists(st) && !std::filesystem::is_directory(std::filesystem::status(dir_, ec)))
    throw Error("output directory '" + dir.string() + "' exists and is not a directory");
  remove_stale(dir_);
  staging_ = staging_name(dir_, static_cast<long>(::getpid()));
  if (::mkdir(staging_.c_str(), 0700) != 0)
    throw Error("cannot create staging directory '" + staging_.string() + "': " + std::strerror(errno));
  cleanup_slot_ = register_cleanup(staging_, true);
}

ResultSet::~ResultSet() {
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove_all(staging_, ec);
  }
  unregister_cleanup(cleanup_slot_);
}

void ResultSet::commit() {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(dir_, ec);
  if (!std::filesystem::exists(st)) {
    const mode_t mask = ::umask(0);  // the directory gets the mode mkdir would have given it
    ::umask(mask);
    ::chmod(staging_.c_str(), 0777 & ~mask);
    std::filesystem::rename(staging_, dir_, ec);
    if (ec) throw Error("cannot rename '" + staging_.string() + "' to '" + dir_.string() + "': " + ec.message());
    committed_ = true;
    return;
  }
  std::vector<std::filesystem::path> names;
  for (std::filesystem::directory_iterator it(staging_, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename());
  if (ec) throw Error("cannot list '" + staging_.string() + "': " + ec.message());
  for (const auto& n : names) {
    std::filesystem::rename(staging_ / n, dir_ / n, ec);
    if (ec) throw Error("cannot rename '" + (staging_ / n).string() + "' to '" + (dir_ / n).string() + "': " + ec.message());
  }
  std::filesystem::remove(staging_, ec);
  committed_ = true;
}

}  // namespace tendyn::io
