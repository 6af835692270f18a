#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/output_lock.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/io/signal_cleanup.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace tendyn::io {

namespace {
/// `dir` absolute, without a trailing separator or "." component, its symlinks resolved (the
/// staging directory then lies on the target's file system: a rename never crosses devices).
std::filesystem::path normalized(const std::filesystem::path& dir) {
  auto p = std::filesystem::absolute(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  if (p != p.root_path() && p.has_filename()) p = resolve_destination(p).target;
  if (p == p.root_path() || !p.has_filename()) throw Error("output directory '" + dir.string() + "': cannot write a result set here");
  return p;
}
constexpr const char* kPreviousName = ".tendyn-previous";  // inside the staging directory, during commit()
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
  lock_ = std::make_unique<OutputLock>(dir_);  // one run at a time writes into dir_
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
  // into an existing directory, all or nothing: the old files are kept aside until every new
  // one is in place, and a failing step puts them all back. Signals wait until it is done.
  DeferSignals defer;
  std::vector<std::filesystem::path> names;
  for (std::filesystem::directory_iterator it(staging_, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename());
  if (ec) throw Error("cannot list '" + staging_.string() + "': " + ec.message());
  for (const auto& n : names) {  // what cannot be replaced is refused before anything moves
    struct stat st {};
    if (::lstat((dir_ / n).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw Error("cannot publish '" + n.string() + "' in '" + dir_.string() + "': '" + (dir_ / n).string() +
                  "' is a directory (the previous files are left as they were)");
  }
  const auto previous = staging_ / kPreviousName;
  if (::mkdir(previous.c_str(), 0700) != 0) throw Error("cannot create '" + previous.string() + "': " + std::strerror(errno));
  // per name: the old file kept as a hard link in `previous` (or, where links are not supported,
  // moved there), then the new file renamed over it; so each name always shows a complete file
  struct Step {
    std::filesystem::path name;
    bool had_old = false, moved_aside = false, installed = false;
  };
  std::vector<Step> steps;
  const char* fail = std::getenv("TENDYN_TEST_FAIL_RENAME");
  try {
    for (const auto& n : names) {
      Step& s = steps.emplace_back();
      s.name = n;
      struct stat st {};
      if (::lstat((dir_ / n).c_str(), &st) == 0) {
        s.had_old = true;
        if (S_ISREG(st.st_mode)) ::chmod((staging_ / n).c_str(), st.st_mode & 07777);  // the replaced file's mode stays
        if (::link((dir_ / n).c_str(), (previous / n).c_str()) != 0) {
          std::filesystem::rename(dir_ / n, previous / n, ec);
          if (ec) throw Error("cannot move '" + (dir_ / n).string() + "' aside: " + ec.message());
          s.moved_aside = true;
        }
      }
      if (fail && n == fail)
        throw Error("cannot rename '" + (staging_ / n).string() + "' to '" + (dir_ / n).string() +
                    "': Input/output error (injected by TENDYN_TEST_FAIL_RENAME)");
      std::filesystem::rename(staging_ / n, dir_ / n, ec);
      if (ec) throw Error("cannot rename '" + (staging_ / n).string() + "' to '" + (dir_ / n).string() + "': " + ec.message());
      s.installed = true;
    }
  } catch (const Error& e) {
    std::string failed;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {  // back to the previous files, last step first
      std::error_code rec;
      const auto& n = it->name;
      if (it->had_old && (it->installed || it->moved_aside))
        std::filesystem::rename(previous / n, dir_ / n, rec);
      else if (it->installed)
        std::filesystem::rename(dir_ / n, staging_ / n, rec);
      if (rec) failed += (failed.empty() ? "" : ", ") + (dir_ / n).string() + " (" + rec.message() + ")";
    }
    if (!failed.empty()) {
      committed_ = true;  // the staging directory is kept: it holds the previous files that could not be put back
      throw Error(std::string(e.what()) + "; restoring the previous files failed for " + failed + " (they are in '" + previous.string() +
                  "')");
    }
    std::error_code rec;
    std::filesystem::remove_all(previous, rec);
    throw Error(std::string(e.what()) + " (the previous files of '" + dir_.string() + "' are left as they were)");
  }
  std::filesystem::remove_all(previous, ec);
  std::filesystem::remove(staging_, ec);
  committed_ = true;
}

}  // namespace tendyn::io
