// The server's connections: how many may be open, how long each may stay silent, and the loop that
// reads their requests one after the other. httplib 0.11 parses each request
// (Server::process_request) but its own loop is replaced here, because that loop
// - lets an idle socket hold a worker thread for the keep-alive timeout (issue 41: 12 idle
//   sockets made /health wait 4.7 s) and puts no bound on the connections it accepts;
// - waits for the socket to be readable before each request, so pipelined requests that already
//   sit in its read buffer are never answered;
// - goes on reading after a request whose body it did not read, parsing the body as requests.
// Here every connection has its own thread, up to max_connections; one more is refused with a
// 503 at once. The request head must arrive within `timeout_s` of the connection (or of the
// previous answer), and no later read or write may stall longer than that.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "serve/api_error.h"

namespace kz::serve {

struct ConnectionLimits {
  size_t max_connections = 64;  // open at once; more get 503 too_many_connections
  int timeout_s = 10;           // for the request head, and for any read or write to progress
  size_t keep_alive_max = 100;  // requests on one connection, then it is closed
};

class BufferedSocketStream;

// How a request says its body is framed.
struct BodyFraming {
  bool chunked = false;     // Transfer-Encoding: chunked (then Content-Length is ignored)
  bool has_length = false;  // a Content-Length header
  bool bad_length = false;  // ... that is not a decimal number
  uint64_t length = 0;
};
BodyFraming body_framing(const httplib::Request& req);

// The connection of the request a worker thread is serving: what the handlers may learn about it
// or ask of it.
class Connection {
 public:
  // The calling thread's connection, or nullptr outside a request.
  static Connection* current();

  int socket() const;
  // The stream stalled past the timeout (a head or body that did not arrive).
  bool timed_out() const;
  // Whether the request head was parsed (else a 400 from httplib means a malformed head).
  bool head_parsed() const { return head_parsed_; }
  // The body was read to its end: the next request starts right after it.
  void body_read() { body_read_ = true; }
  // Closes the connection after this answer (e.g. its body was refused half read).
  void close_after_response() { close_ = true; }

 private:
  friend class HttpServer;
  explicit Connection(BufferedSocketStream& stream);
  ~Connection();
  void begin_request();
  void on_head(const httplib::Request& req);
  bool must_close() const;

  BufferedSocketStream& stream_;
  bool head_parsed_ = false;
  bool has_body_ = false;  // Content-Length > 0 or chunked
  bool body_read_ = false;
  bool close_ = false;
};

// httplib::Server with the connection policy above.
class HttpServer : public httplib::Server {
 public:
  explicit HttpServer(const ConnectionLimits& limits);

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }

  ConnectionLimits limits_;
};

// An HTTP/1.1 response with this error body and `Connection: close`, for what httplib never sees
// (a refused connection, a malformed request line, a head that did not arrive).
std::string error_response(const ApiError& error);

}  // namespace kz::serve
