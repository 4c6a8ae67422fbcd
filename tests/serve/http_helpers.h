// What the HTTP tests of `kazeia serve` share: requests through httplib's client, OpenAI error
// checks, a streaming client that holds its connection, and a raw socket for what no well-behaved
// client sends (pipelining, malformed lines, idle or half-sent requests).
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>

#include "server_process.h"

namespace kz::testing {

// The fixture model most HTTP tests serve, and its id in the API.
std::string serve_test_model();
inline const std::string kServeModel = serve_test_model();
extern const char* const kServeTestModelId;

nlohmann::json chat_body(const std::string& text, int max_tokens);
// A completion that runs to max_tokens (greedy decoding of the fixture model repeats one piece
// and never ends the text from this prompt): 8000 events of about 200 bytes each.
nlohmann::json long_completion();

struct Reply {
  int status = 0;  // 0: no answer (connection error)
  nlohmann::json body;
};

Reply post(httplib::Client& cli, const std::string& path, const std::string& body,
           const httplib::Headers& headers = {});
Reply get(httplib::Client& cli, const std::string& path, const httplib::Headers& headers = {});
// A client of `s` whose read timeout (an hour) only keeps a broken test from hanging.
httplib::Client client(const ServerProcess& s);
int busy_sessions(httplib::Client& cli);

// An OpenAI error object with these fields ("" = null).
void expect_error(const Reply& r, int status, const std::string& param, const std::string& code);

// A streaming request whose client reads the first event, then holds the connection until told
// to leave (its receiver returns false: the client closes the socket). Its receive buffer is
// small, so that the server, which writes far more than the socket buffers hold (see
// long_completion), blocks in a write while the client holds on: the generation cannot end
// before the client leaves.
class StreamingClient {
 public:
  StreamingClient(int port, const nlohmann::json& body);
  ~StreamingClient();
  void wait_first_event();
  void leave();

 private:
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string received_;
  bool leave_ = false;
};

// One TCP connection to 127.0.0.1:port, written and read byte for byte. Reads give up after
// `hang_guard_s` without data: that only ends a broken test, it is never what a test asserts.
class RawConnection {
 public:
  explicit RawConnection(int port, int hang_guard_s = 600);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  // Sends all of it; false when the server closed or reset the connection.
  bool send(std::string_view bytes);
  struct Response {
    int status = 0;       // 0: the connection ended before a whole response
    std::string headers;  // the header block, lower-cased
    std::string body;
    nlohmann::json json() const;
  };
  // Reads one response (Content-Length, or up to the close).
  Response read_response();
  // Whether the server has closed its side: a read returns the end at once, nothing pending.
  bool closed_by_server();
  // Open, and nothing to read right now.
  bool open_and_quiet();
  void close();

 private:
  bool fill();  // reads more into buffer_; false at the end or on an error
  int fd_ = -1;
  std::string buffer_;
};

// "POST PATH HTTP/1.1" with this JSON body and a Content-Length.
std::string post_request(const std::string& path, const std::string& body);

}  // namespace kz::testing
