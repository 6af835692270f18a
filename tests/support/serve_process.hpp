// A real `tendyn serve` on a free loopback port for end-to-end tests, and a loopback connection
// to it (tests/cli/viewer_cli_test.cpp, tests/cli/live_cli_test.cpp).
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "support/cli_run.hpp"

namespace tendyn::test {

/// The server process; killed when this goes out of scope.
struct ServeProcess {
  std::string pid;
  int port = -1;      ///< -1: it printed no address within 10 s (see log)
  std::string token;  ///< the server's secret (the token= of the printed address)
  std::filesystem::path log;
  ServeProcess() = default;
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;
  ~ServeProcess() {
    if (!pid.empty()) (void)std::system(("kill " + pid + " 2>/dev/null").c_str());
  }
};

/// Starts `TENDYN_CLI serve --port 0 <extra>` in the background, its output in
/// fresh_dir(name)/serve.log, and waits up to 10 s for the address it prints.
inline std::unique_ptr<ServeProcess> start_serve(const std::string& name, const std::string& extra = "") {
  auto s = std::make_unique<ServeProcess>();
  s->log = fresh_dir(name) / "serve.log";
  const std::string cmd = std::string(TENDYN_CLI) + " serve --port 0 " + extra + " > " + s->log.string() + " 2>&1 & echo $!";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return s;
  char pid[32] = {0};
  if (std::fgets(pid, sizeof pid, p)) s->pid = std::string(pid, std::strcspn(pid, "\n"));
  pclose(p);
  for (int i = 0; i < 100; ++i) {
    const std::string out = slurp(s->log);
    const auto at = out.find("http://127.0.0.1:");
    const auto tok = out.find("?token=", at == std::string::npos ? 0 : at);
    const auto eol = tok == std::string::npos ? std::string::npos : out.find_first_of(" \n", tok);
    if (at != std::string::npos && eol != std::string::npos) {
      s->port = std::stoi(out.substr(at + 17));
      s->token = out.substr(tok + 7, eol - tok - 7);
      break;
    }
    ::usleep(100000);
  }
  return s;
}

/// A TCP connection to 127.0.0.1:port, or -1.
inline int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace tendyn::test
