// A headless Chromium over the DevTools protocol on a pipe: each message is one JSON text ended
// by a NUL byte; the browser reads commands from its fd 3 and writes answers and events to fd 4.
#include "headless_browser.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tendyn/core/error.hpp>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace tendyn::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_left(Clock::time_point deadline) { return std::chrono::duration<double>(deadline - Clock::now()).count(); }

Clock::time_point deadline_after(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

std::filesystem::path find_chromium(const std::string& given) {
  std::filesystem::path p;
  std::string how;
  if (!given.empty()) {
    p = given;
    how = "--browser";
  } else if (const char* env = std::getenv("TENDYN_CHROMIUM"); env && *env) {
    p = env;
    how = "$TENDYN_CHROMIUM";
  } else {
    p = "/usr/bin/chromium";
    how = "the default";
  }
  if (::access(p.c_str(), X_OK) != 0 || std::filesystem::is_directory(p))
    throw Error("render: no Chromium at " + p.string() + " (" + how +
                "); install Debian's chromium (apt install chromium) or give its path with --browser PATH");
  return p;
}

HeadlessBrowser::HeadlessBrowser(const std::filesystem::path& chromium, const std::filesystem::path& profile_dir, int width, int height,
                                 double timeout_s)
    : log_(profile_dir / "chromium-stderr.log") {
  int cmd[2], ans[2];  // cmd: we -> browser, ans: browser -> we
  if (::pipe2(cmd, O_CLOEXEC) != 0) throw Error(std::string("render: pipe: ") + std::strerror(errno));
  if (::pipe2(ans, O_CLOEXEC) != 0) {
    ::close(cmd[0]);
    ::close(cmd[1]);
    throw Error(std::string("render: pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> args = {
      chromium.string(), "--headless=new", "--remote-debugging-pipe",
      // the page is the program's own local file; the sandbox cannot start as root or
      // in many containers
      "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist", "--disable-dev-shm-usage",
      "--hide-scrollbars", "--mute-audio", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
      "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--allow-file-access-from-files",
      "--user-data-dir=" + profile_dir.string(), "--window-size=" + std::to_string(width) + "," + std::to_string(height), "about:blank"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = log_.string();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("render: fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    // fds 3 and 4 for the browser; copies above them first, so that no dup2 hits its own source
    const int r = ::fcntl(cmd[0], F_DUPFD_CLOEXEC, 10);
    const int w = ::fcntl(ans[1], F_DUPFD_CLOEXEC, 10);
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (r < 0 || w < 0 || devnull < 0 || err < 0) ::_exit(127);
    ::dup2(devnull, 0);
    ::dup2(err, 1);
    ::dup2(err, 2);
    ::dup2(r, 3);
    ::dup2(w, 4);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  ::close(cmd[0]);
  ::close(ans[1]);
  to_browser_ = cmd[1];
  from_browser_ = ans[0];
  try {
    call("Browser.getVersion", nlohmann::json::object(), false, timeout_s);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + stderr_tail());
  }
}

HeadlessBrowser::~HeadlessBrowser() {
  if (pid_ > 0) {
    try {
      call("Browser.close", nlohmann::json::object(), false, 2.0);
    } catch (...) {  // already gone or not answering: killed below
    }
    int status = 0;
    const auto deadline = deadline_after(5.0);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (seconds_left(deadline) <= 0) {
        ::kill(-pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(-pid_, SIGKILL);  // helpers of the browser left in its process group
  }
  if (to_browser_ >= 0) ::close(to_browser_);
  if (from_browser_ >= 0) ::close(from_browser_);
}

std::string HeadlessBrowser::stderr_tail() const {
  std::ifstream in(log_, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.empty()) return "";
  if (s.size() > 600) s = "..." + s.substr(s.size() - 600);
  return "\nchromium said:\n" + s;
}

nlohmann::json HeadlessBrowser::call(const std::string& method, const nlohmann::json& params, bool in_page, double timeout_s) {
  const long id = next_id_++;
  nlohmann::json msg = {{"id", id}, {"method", method}, {"params", params}};
  if (in_page) msg["sessionId"] = session_;
  std::string text = msg.dump();
  text.push_back('\0');
  const auto deadline = deadline_after(timeout_s);
  for (std::size_t off = 0; off < text.size();) {
    const ssize_t n = ::write(to_browser_, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("render: chromium closed its DevTools pipe (" + std::string(std::strerror(errno)) + ") at " + method);
    }
    off += static_cast<std::size_t>(n);
  }
  for (;;) {
    for (std::size_t end; (end = buffer_.find('\0')) != std::string::npos;) {
      const std::string one = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      nlohmann::json ans = nlohmann::json::parse(one, nullptr, false);
      if (ans.is_discarded() || !ans.contains("id") || ans["id"] != id) continue;  // events, other answers
      if (ans.contains("error"))
        throw Error("render: chromium refused " + method + ": " + ans["error"].value("message", ans["error"].dump()));
      return ans.value("result", nlohmann::json::object());
    }
    const double left = seconds_left(deadline);
    if (left <= 0) throw Error("render: chromium did not answer " + method + " within " + std::to_string(timeout_s) + " s");
    pollfd pfd{from_browser_, POLLIN, 0};
    const int pr = ::poll(&pfd, 1, static_cast<int>(std::min(left * 1000.0 + 1.0, 1000.0)));
    if (pr < 0 && errno != EINTR) throw Error(std::string("render: poll: ") + std::strerror(errno));
    if (pr <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(from_browser_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("render: chromium exited while answering " + method + stderr_tail());
    buffer_.append(buf, static_cast<std::size_t>(n));
  }
}

void HeadlessBrowser::open(const std::string& url) {
  const auto target = call("Target.createTarget", {{"url", "about:blank"}}, false, 30.0);
  const auto attached = call("Target.attachToTarget", {{"targetId", target.at("targetId")}, {"flatten", true}}, false, 30.0);
  session_ = attached.at("sessionId").get<std::string>();
  call("Runtime.enable", nlohmann::json::object(), true, 30.0);
  call("Page.enable", nlohmann::json::object(), true, 30.0);
  const auto nav = call("Page.navigate", {{"url", url}}, true, 60.0);
  if (nav.contains("errorText") && !nav["errorText"].get<std::string>().empty())
    throw Error("render: chromium cannot open " + url + ": " + nav["errorText"].get<std::string>());
}

nlohmann::json HeadlessBrowser::evaluate(const std::string& expr, double timeout_s) {
  const auto r = call("Runtime.evaluate", {{"expression", expr}, {"awaitPromise", true}, {"returnByValue", true}}, true, timeout_s);
  if (r.contains("exceptionDetails")) {
    const auto& d = r["exceptionDetails"];
    std::string what = d.value("text", std::string("exception"));
    if (d.contains("exception") && d["exception"].contains("description")) what = d["exception"]["description"].get<std::string>();
    throw Error("render: the page failed: " + what.substr(0, what.find('\n')));
  }
  return r.contains("result") && r["result"].contains("value") ? r["result"]["value"] : nlohmann::json();
}

}  // namespace tendyn::cli
