// `kazeia serve` as a child process on a free loopback port, for the HTTP tests.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kz::testing {

class ServerProcess {
 public:
  // Starts `kazeia serve -m MODEL --port 0 ARGS...` and waits for its "listening on" line.
  ServerProcess(const std::string& model, const std::vector<std::string>& args);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  // SIGTERM, then waits: the exit status (-1 if it did not exit normally).
  int stop();
  // What the server wrote on stderr (its request log).
  std::string log() const;
  // VmRSS of the server, in KiB (/proc/PID/status).
  int64_t rss_kib() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
};

}  // namespace kz::testing
