// `kazeia serve`: the OpenAI-compatible HTTP server (cpp-httplib). tools/cmd_serve.cpp parses the
// flags into a ServerConfig; routes.h answers the requests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "api/engine.h"
#include "serve/connection.h"
#include "serve/request.h"

namespace kz::serve {

struct ServerConfig {
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: any free port (printed)
  std::string api_key;  // empty: no authentication
  std::string model_id;
  int64_t model_created = 0;  // Unix seconds, shown by /v1/models
  SessionParams session;      // of each of the `parallel` sessions
  size_t parallel = 1;
  size_t queue = 8;  // requests that may wait for a session
  int queue_timeout_s = 60;
  size_t max_body_bytes = 4u << 20;
  RequestLimits limits;
  ConnectionLimits connections;
};

// Binds, prints "kazeia serve: listening on http://HOST:PORT" on stdout, and serves until SIGINT
// or SIGTERM; then cancels running generations, lets their requests end and returns. Throws
// kz::Error when it cannot bind.
void run_server(std::shared_ptr<const Engine> engine, const ServerConfig& config);

}  // namespace kz::serve
