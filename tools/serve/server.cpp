#include "serve/server.h"

#include <httplib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <thread>

#include "base/error.h"
#include "serve/connection.h"
#include "serve/routes.h"
#include "serve/session_pool.h"

namespace kz::serve {

namespace {

std::unique_ptr<SessionPool> open_pool(const std::shared_ptr<const Engine>& engine,
                                       const ServerConfig& config) {
  std::vector<std::unique_ptr<Session>> sessions;
  for (size_t i = 0; i < config.parallel; ++i)
    sessions.push_back(std::make_unique<Session>(engine, config.session));
  return std::make_unique<SessionPool>(std::move(sessions), config.queue,
                                       std::chrono::seconds(config.queue_timeout_s));
}

// Blocks SIGINT and SIGTERM in this thread and the threads it starts from now on, so that only
// the watcher (sigtimedwait) receives them; restores the mask when destroyed.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~StopSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  // Waits up to 0.2 s for a stop signal.
  bool wait() const {
    const timespec tick{0, 200'000'000};
    return sigtimedwait(&set_, nullptr, &tick) > 0;
  }

 private:
  sigset_t set_, previous_;
};

}  // namespace

void run_server(std::shared_ptr<const Engine> engine, const ServerConfig& config) {
  std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an error return, not a signal
#ifdef __GLIBC__
  // Request bodies (up to --max-body) get their own mappings, returned when freed: glibc would
  // otherwise raise this threshold after the first free and keep later bodies in its arenas, so
  // that a burst of large bad requests left RSS up by megabytes per worker thread (issue 41).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
  const StopSignals stop_signals;
  std::unique_ptr<SessionPool> pool = open_pool(engine, config);
  Routes routes(engine, *pool, config);

  HttpServer server(config.connections);
  server.set_payload_max_length(config.max_body_bytes);
  routes.install(server);
  // httplib listens with a backlog of 5: a burst of new connections beyond it has its SYNs
  // dropped and retried a second later. Listening again on the bound socket raises the backlog.
  int listen_socket = -1;
  server.set_socket_options([&listen_socket](int sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (listen_socket < 0) listen_socket = sock;
  });

  const int port = config.port == 0
                       ? server.bind_to_any_port(config.host)
                       : (server.bind_to_port(config.host, config.port) ? config.port : -1);
  if (port <= 0) fail("cannot listen on ", config.host, ":", config.port, " (address in use?)");
  if (listen_socket >= 0) listen(listen_socket, SOMAXCONN);
  std::printf("kazeia serve: listening on http://%s:%d\n", config.host.c_str(), port);
  std::fflush(stdout);

  std::atomic<bool> finished{false};
  std::thread watcher([&] {
    while (!finished.load()) {
      if (!stop_signals.wait()) continue;
      std::fprintf(stderr, "kazeia serve: stopping\n");
      pool->shutdown();
      server.stop();
      return;
    }
  });
  server.listen_after_bind();
  finished.store(true);
  watcher.join();
}

}  // namespace kz::serve
