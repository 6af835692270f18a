// tendyn serve: the modelling studio (document 001, section 3.4) as a local web page. The page
// talks to this process through the JSON API of docs/VIEWER.md; simulations and plans run here,
// one thread per job, and their frames stream to the page by polling. HTTP by cpp-httplib.
// This file: the options and the start; the API in studio_app.cpp, the server in http_server.cpp.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/version.hpp>
#include <tendyn/viz/live.hpp>
#include <tendyn/viz/studio.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "cli_util.hpp"
#include "commands.hpp"
#include "http_server.hpp"
#include "live_routes.hpp"
#include "resources.hpp"
#include "studio_app.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {

namespace studio = viz::studio;

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }

/// Writes the token for programs of the same user (viz::live_token_path: mode 0600 in a 0700
/// directory); returns the path, or "" with a warning when it cannot.
std::string write_token_file(int port, const std::string& token) {
  const std::string path = viz::live_token_path(port);
  if (path.empty()) return {};
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && ::fchmod(fd, 0600) == 0;
  const std::string line = token + "\n";
  if (ok) ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (fd >= 0) ::close(fd);
  if (!ok) {
    std::fprintf(stderr,
                 "tendyn serve: note: cannot write the token file %s (%s): live-view clients need the token given (TENDYN_SERVE_TOKEN)\n",
                 path.c_str(), std::strerror(errno));
    return {};
  }
  return path;
}

bool is_loopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

void run_serve(const ServeArgs& a) {
  require_viewer();
  if (a.port < 0 || a.port > 65535) throw Error("serve: --port must be in 0..65535");
  Studio studio(a);
  StudioServer svr(studio.limits());
  const int port = a.port == 0 ? svr.bind_to_any_port(a.host.c_str()) : (svr.bind_to_port(a.host.c_str(), a.port) ? a.port : -1);
  if (port < 0)
    throw Error("serve: cannot listen on " + a.host + ":" + std::to_string(a.port) + " (in use, or not an address of this machine)");
  studio.routes(svr, studio::Listen{a.host, port});
  add_live_routes(svr, is_loopback(a.host), studio.limits().max_body_bytes, read_body);  // /live (docs/VIEWER.md)
  if (!is_loopback(a.host))
    std::fprintf(
        stderr,
        "tendyn serve: WARNING: listening on %s, not only on this machine: anyone who can reach it and knows the token can run simulations\n",
        a.host.c_str());
  const std::string token_file = write_token_file(port, studio.token());
  const std::string shown = a.host == "0.0.0.0" ? "127.0.0.1" : a.host.find(':') != std::string::npos ? "[" + a.host + "]" : a.host;
  std::printf("tendyn studio: http://%s:%d/?token=%s (Ctrl-C to stop)\n", shown.c_str(), port, studio.token().c_str());
  if (is_loopback(a.host)) std::printf("tendyn live view: http://%s:%d/live?token=%s\n", shown.c_str(), port, studio.token().c_str());
  std::fflush(stdout);
  g_stop = false;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  svr.serve(g_stop);
  if (!token_file.empty()) ::unlink(token_file.c_str());
  if (!a.quiet) std::printf("tendyn studio: stopped\n");
}

}  // namespace

void register_serve(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand(
      "serve", "Run the modelling studio: a web page to build, run and watch tensegrity and CDPR models (docs/VIEWER.md)");
  cmd->add_option("--host", a->host, "address to listen on (127.0.0.1: this machine only)");
  cmd->add_option("-p,--port", a->port, "TCP port (0: any free port, printed)");
  cmd->add_option("--max-jobs", a->max_jobs, "runs at the same time (more wait in a queue fair across clients)")->check(CLI::Range(1, 64));
  cmd->add_option("--time-limit", a->time_limit, "wall time per run [s]")->check(positive());
  cmd->add_option(
         "--max-connections", a->max_connections,
         "open connections at the same time (3/4 of them for one client; when full, a waiting connection is closed for a new one, else HTTP 503)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--request-timeout", a->request_timeout, "wall time to receive one request, headers and body [s]")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_flag("-q,--quiet", a->quiet, "no report at exit");
  cmd->callback([a] { run_serve(*a); });
}

}  // namespace tendyn::cli
