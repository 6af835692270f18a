// A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
// the program starts the browser itself, with no port, no Node.js and no extra package, which
// works wherever Debian's chromium is installed (docs/VIEWER.md "Rendering headless").
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace tendyn::cli {

/// The Chromium to run: `given` when not empty, else $TENDYN_CHROMIUM when set and non-empty,
/// else /usr/bin/chromium. Throws tendyn::Error naming the path (and how to install Debian's
/// chromium) when it is not an executable file.
std::filesystem::path find_chromium(const std::string& given);

class HeadlessBrowser {
 public:
  /// Starts `chromium` headless (software WebGL through SwiftShader, a fresh profile in
  /// `profile_dir`, which must exist and stays the caller's) with a window of width x height CSS
  /// pixels. Throws tendyn::Error when it cannot be started or does not answer within
  /// `timeout_s`, with the end of its error output.
  HeadlessBrowser(const std::filesystem::path& chromium, const std::filesystem::path& profile_dir, int width, int height, double timeout_s);
  HeadlessBrowser(const HeadlessBrowser&) = delete;
  HeadlessBrowser& operator=(const HeadlessBrowser&) = delete;
  /// Closes the browser (Browser.close, then SIGKILL of its process group after 5 s).
  ~HeadlessBrowser();

  /// Opens `url` in a new page and attaches to it (later evaluate() calls run there).
  void open(const std::string& url);

  /// Evaluates the JavaScript expression `expr` in the page (awaiting it when it is a promise)
  /// and returns its value as JSON. Throws tendyn::Error with the page's message when it throws,
  /// and when no answer comes within `timeout_s`.
  nlohmann::json evaluate(const std::string& expr, double timeout_s);

 private:
  nlohmann::json call(const std::string& method, const nlohmann::json& params, bool in_page, double timeout_s);
  [[nodiscard]] std::string stderr_tail() const;

  int pid_ = -1;
  int to_browser_ = -1;    // we write commands here (the browser's fd 3)
  int from_browser_ = -1;  // the browser writes answers here (its fd 4)
  long next_id_ = 1;
  std::string session_;
  std::string buffer_;
  std::filesystem::path log_;
};

}  // namespace tendyn::cli
