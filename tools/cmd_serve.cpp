// kazeia serve: the OpenAI-compatible local server (tools/serve, docs/serve.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "base/error.h"
#include "common.h"
#include "serve/server.h"

namespace kz::cli {

namespace {

int64_t file_mtime_seconds(const std::string& path) {
  const auto t = std::filesystem::last_write_time(path);
  const auto sys = std::chrono::file_clock::to_sys(t);
  return std::chrono::duration_cast<std::chrono::seconds>(sys.time_since_epoch()).count();
}

void check_range(const char* flag, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi)
    fail("invalid ", flag, " ", value, " (expected ", lo, " to ", hi, ")");
}

}  // namespace

int cmd_serve(int argc, char** argv) {
  EngineFlags engine_flags;
  serve::ServerConfig config;
  int64_t parallel = 1, queue = int64_t(config.queue), max_body = int64_t(config.max_body_bytes);
  int64_t max_tokens = 0, max_connections = 0;
  std::string alias;
  if (const char* key = std::getenv("KAZEIA_API_KEY")) config.api_key = key;
  ArgParser p("kazeia serve",
              "An OpenAI-compatible HTTP server: POST /v1/chat/completions (stream: true for "
              "server-sent events), POST /v1/completions, GET /v1/models, GET /health. Each of "
              "the --parallel sessions keeps its last conversation, and a request continues the "
              "free session that shares the longest prefix with it. Stops on SIGINT or SIGTERM. "
              "See docs/serve.md.");
  engine_flags.declare(p);
  p.add("--host", "ADDR", "address to bind (default 127.0.0.1: this machine only)", &config.host);
  p.add("--port", "N", "TCP port; 0 = any free port, printed (default 8080)", &config.port);
  p.add("--api-key", "KEY",
        "require 'Authorization: Bearer KEY' (401 without); default $KAZEIA_API_KEY, else none",
        &config.api_key);
  p.add("--alias", "NAME", "the model's id in the API (default: the file name without .gguf)",
        &alias);
  p.add("-np,--parallel", "N",
        "sessions, i.e. requests generated at once, 1 to 64 (default 1); each holds a context",
        &parallel);
  p.add("--queue", "N",
        "requests that may wait for a free session, 0 to 1024 (default 8); more get 503", &queue);
  p.add("--queue-timeout", "S",
        "seconds a request waits for a session before it gets 503 (default 60)",
        &config.queue_timeout_s);
  p.add("--max-body", "BYTES", "largest request body; larger get 413 (default 4194304)", &max_body);
  p.add("--max-tokens", "N",
        "largest max_tokens a request may ask for, and the chat default (default: the context "
        "size)",
        &max_tokens);
  p.add("--max-connections", "N",
        "connections open at once, 1 to 4096; more get 503 at once (default: 64, or --parallel "
        "+ --queue + 8 if more)",
        &max_connections);
  p.add("--timeout", "S",
        "seconds a connection may take to send a request's head, or stall while sending its body "
        "or reading the answer, 1 to 3600 (default 10); then it gets 408 or is closed",
        &config.connections.timeout_s);
  if (!p.parse(argc, argv)) return 0;
  if (engine_flags.model.empty()) fail("missing -m MODEL");
  check_range("--parallel", parallel, 1, 64);
  check_range("--queue", queue, 0, 1024);
  check_range("--queue-timeout", config.queue_timeout_s, 0, 86400);
  check_range("--port", config.port, 0, 65535);
  check_range("--max-body", max_body, 1, int64_t(1) << 30);
  check_range("--timeout", config.connections.timeout_s, 1, 3600);
  // Each running and waiting request holds a connection; /health needs one more.
  const int64_t min_connections = parallel + queue + 1;
  if (!p.given("--max-connections")) max_connections = std::max<int64_t>(64, parallel + queue + 8);
  check_range("--max-connections", max_connections, min_connections, 4096);
  // The sessions generate at once: share the hardware threads unless -t says otherwise.
  if (!p.given("--threads"))
    engine_flags.threads = std::max(1, int(std::thread::hardware_concurrency()) / int(parallel));

  auto engine = Engine::load(engine_flags.model);
  engine_flags.check_cache_types(engine->model());
  config.session = engine_flags.session_params();
  config.session.n_ctx = engine_flags.context_size(EngineFlags::default_context(engine->model()));
  EngineFlags::warn_past_training(engine->model(), config.session.n_ctx);
  if (max_tokens == 0) max_tokens = config.session.n_ctx;
  check_range("--max-tokens", max_tokens, 1, config.session.n_ctx);
  config.parallel = size_t(parallel);
  config.queue = size_t(queue);
  config.max_body_bytes = size_t(max_body);
  config.connections.max_connections = size_t(max_connections);
  config.limits.max_tokens = int(max_tokens);
  config.model_id =
      alias.empty() ? std::filesystem::path(engine_flags.model).stem().string() : alias;
  config.model_created = file_mtime_seconds(engine_flags.model);
  std::fprintf(stderr,
               "kazeia serve: model %s, %zu session(s) of %lld tokens, %d thread(s) each, "
               "queue %zu, %zu connections, %d s timeout%s\n",
               config.model_id.c_str(), config.parallel, (long long)config.session.n_ctx,
               config.session.n_threads, config.queue, config.connections.max_connections,
               config.connections.timeout_s, config.api_key.empty() ? "" : ", API key required");
  serve::run_server(engine, config);
  return 0;
}

}  // namespace kz::cli
