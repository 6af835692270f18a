// Running the tendyn program from end-to-end tests: exit code and combined output, files, fresh
// temporary directories.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tendyn::test {

struct CliRun {
  int code;         ///< exit code, -1 if the program did not exit normally
  std::string out;  ///< stdout and stderr
};

/// Runs the shell command `cmd`: {exit code (-1 when it did not exit normally), its stdout}.
inline CliRun run_shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, ""};
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs `TENDYN_CLI args` through the shell, stdout and stderr together.
inline CliRun run_cli(const std::string& args) { return run_shell(std::string(TENDYN_CLI) + " " + args + " 2>&1"); }

/// The shipped models folder, with a trailing '/'.
inline const std::string kModels = std::string(TENDYN_SOURCE_DIR) + "/models/";

/// The end-to-end tests' shorthand: run_cli.
inline CliRun run(const std::string& args) { return run_cli(args); }

// Whether this tendyn was built with the viewer (the `view` page and the `serve` studio/live server).
inline bool built_with_viewer() {
  return run("view --help").out.find("self-contained") != std::string::npos && run("serve --help").code == 0;
}

/// Runs `TENDYN_CLI args` with stdout and stderr captured apart (stderr through a file, so not a
/// terminal): {exit code, stdout}, and stderr in `err`.
inline CliRun run_cli_stderr_apart(const std::string& args, std::string& err) {
  const auto err_file = std::filesystem::temp_directory_path() / ("tendyn_cli_stderr_" + std::to_string(::getpid()) + ".txt");
  const CliRun r = run_shell(std::string(TENDYN_CLI) + " " + args + " 2> '" + err_file.string() + "'");
  std::ifstream in(err_file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  err = ss.str();
  std::filesystem::remove(err_file);
  return r;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Writes `text` to `p` as it is (binary), replacing the file.
inline void write_file(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

/// An empty directory under the system temp dir, unique per test name and process.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("tendyn_cli_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace tendyn::test
