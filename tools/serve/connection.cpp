#include "serve/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "serve/response.h"

namespace kz::serve {

namespace {

using Clock = std::chrono::steady_clock;

// httplib refuses longer request lines (CPPHTTPLIB_REQUEST_URI_MAX_LENGTH).
constexpr size_t kMaxRequestLine = 8192;
// After an answer to a request whose body was left unread, the rest is read and thrown away for
// this long, so that the client reads the answer instead of a reset (a close with unread input
// sends RST, and the peer may drop the answer with it).
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = size_t(64) << 20;
// How often a connection waiting for its next request looks whether the server is stopping.
constexpr auto kStopPollInterval = std::chrono::milliseconds(100);

thread_local Connection* t_current = nullptr;
// Set by ConnectionQueue while it runs a connection it refuses, on the listening thread.
thread_local bool t_refusing = false;

std::string peer_text(const sockaddr_storage& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  port = -1;
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    port = ntohs(in6->sin6_port);
  }
  return text;
}

int poll_ms(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return int(std::clamp<int64_t>(left.count(), 0, 1 << 30));
}

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 414:
      return "URI Too Long";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// What httplib's Server::parse_request_line accepts, written out so that a client gets a reason
// rather than a bare 400: "METHOD TARGET HTTP/1.x" and CRLF.
bool well_formed_request_line(std::string_view line) {
  static constexpr std::string_view kMethods[] = {"GET",     "HEAD",    "POST",  "PUT",   "DELETE",
                                                  "CONNECT", "OPTIONS", "TRACE", "PATCH", "PRI"};
  if (line.size() < 2 || line.substr(line.size() - 2) != "\r\n") return false;
  line.remove_suffix(2);
  const size_t a = line.find(' ');
  const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
  if (b == std::string_view::npos || line.find(' ', b + 1) != std::string_view::npos) return false;
  const std::string_view method = line.substr(0, a), target = line.substr(a + 1, b - a - 1),
                         version = line.substr(b + 1);
  return std::find(std::begin(kMethods), std::end(kMethods), method) != std::end(kMethods) &&
         !target.empty() && (version == "HTTP/1.1" || version == "HTTP/1.0");
}

}  // namespace

// A socket read through a buffer that the connection loop can look into: pipelined requests that
// arrived with an earlier one wait there, not in the socket. Reads stop at the head's deadline
// while one is set, and after `timeout` without progress in any case; so do writes.
class BufferedSocketStream final : public httplib::Stream {
 public:
  enum class Line { Ok, TooLong, Closed, TimedOut };

  BufferedSocketStream(int fd, int timeout_s) : fd_(fd), timeout_(std::chrono::seconds(timeout_s)) {
    buf_.resize(kMaxRequestLine + 4096);
  }

  void set_deadline(Clock::time_point t) { deadline_ = t; }
  void clear_deadline() { deadline_ = Clock::time_point::max(); }
  bool timed_out() const { return timed_out_; }

  bool is_readable() const override { return end_ > begin_ || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, size_t size) override {
    if (end_ == begin_) {
      const ssize_t n = fill();
      if (n <= 0) return n;
    }
    const size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buf_.data() + begin_, n);
    begin_ += n;
    return ssize_t(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!wait(POLLOUT)) return -1;
    return send(fd_, ptr, size, MSG_NOSIGNAL);
  }

  bool write_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = write(bytes.data(), bytes.size());
      if (n <= 0) return false;
      bytes.remove_prefix(size_t(n));
    }
    return true;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip = peer_text(addr, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip = peer_text(addr, port);
  }
  socket_t socket() const override { return fd_; }

  // Waits for the next request's first byte (or the peer's close) until the deadline; false when
  // none came or `stopping` said so first.
  template <class Stopping>
  bool wait_for_request(const Stopping& stopping) {
    while (end_ == begin_) {
      if (stopping() || Clock::now() >= deadline_) return false;
      pollfd p{fd_, POLLIN, 0};
      const int r = poll(&p, 1, poll_ms(std::min(deadline_, Clock::now() + kStopPollInterval)));
      if (r < 0 && errno != EINTR) return false;
      if (r > 0) return true;
    }
    return true;
  }

  // The buffered first line, through its '\n', reading until it is whole; nothing is consumed.
  Line peek_line(std::string_view& line) {
    for (;;) {
      const char* begin = buf_.data() + begin_;
      if (const void* nl = std::memchr(begin, '\n', end_ - begin_)) {
        line = std::string_view(begin, size_t(static_cast<const char*>(nl) - begin) + 1);
        return Line::Ok;
      }
      if (end_ - begin_ > kMaxRequestLine) return Line::TooLong;
      const ssize_t n = fill();
      if (n == 0) return Line::Closed;
      if (n < 0) return timed_out_ ? Line::TimedOut : Line::Closed;
    }
  }

 private:
  // Waits for `events` until the deadline, and at most `timeout` from now.
  bool wait(short events) const {
    const Clock::time_point until = std::min(deadline_, Clock::now() + timeout_);
    for (;;) {
      pollfd p{fd_, events, 0};
      const int r = poll(&p, 1, poll_ms(until));
      if (r > 0) return true;
      if (r == 0) {
        timed_out_ = true;
        return false;
      }
      if (errno != EINTR) return false;
    }
  }

  // Reads what has arrived after the buffered bytes: the count, 0 at the end, -1 on an error or
  // a timeout.
  ssize_t fill() {
    if (begin_ == end_) begin_ = end_ = 0;
    if (end_ == buf_.size()) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (!wait(POLLIN)) return -1;
    const ssize_t n = recv(fd_, buf_.data() + end_, buf_.size() - end_, 0);
    if (n > 0) end_ += size_t(n);
    return n;
  }

  int fd_;
  std::chrono::seconds timeout_;
  Clock::time_point deadline_ = Clock::time_point::max();
  mutable bool timed_out_ = false;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;  // the unread bytes of buf_
};

// One thread per open connection, started when needed and kept for the next one, at most `max`;
// a connection beyond that is refused at once on the listening thread (t_refusing).
class ConnectionQueue final : public httplib::TaskQueue {
 public:
  explicit ConnectionQueue(size_t max) : max_(max) {}

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(mutex_);
    if (open_ >= max_) {
      lock.unlock();
      t_refusing = true;
      fn();
      t_refusing = false;
      return;
    }
    ++open_;
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size())
      threads_.emplace_back([this] { work(); });
    else
      ready_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;  // stopping, and every accepted connection served
      std::function<void()> fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
      --open_;
    }
  }

  const size_t max_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;  // touched by the listening thread only
  size_t open_ = 0, idle_ = 0;
  bool stopping_ = false;
};

BodyFraming body_framing(const httplib::Request& req) {
  BodyFraming f;
  f.chunked = strcasecmp(req.get_header_value("Transfer-Encoding").c_str(), "chunked") == 0;
  if (req.has_header("Content-Length")) {
    const std::string text = req.get_header_value("Content-Length");
    f.has_length = true;
    f.bad_length = text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
                   text.size() > 18;
    if (!f.bad_length) f.length = std::stoull(text);
  }
  return f;
}

Connection::Connection(BufferedSocketStream& stream) : stream_(stream) {
  t_current = this;
}
Connection::~Connection() {
  t_current = nullptr;
}
Connection* Connection::current() {
  return t_current;
}
int Connection::socket() const {
  return stream_.socket();
}
bool Connection::timed_out() const {
  return stream_.timed_out();
}

void Connection::begin_request() {
  head_parsed_ = has_body_ = body_read_ = close_ = false;
}

void Connection::on_head(const httplib::Request& req) {
  head_parsed_ = true;
  const BodyFraming f = body_framing(req);
  has_body_ = f.chunked || f.bad_length || f.length > 0;
}

bool Connection::must_close() const {
  // Without a parsed head httplib answered an error itself; an unread body would be read as the
  // next request.
  return close_ || stream_.timed_out() || !head_parsed_ || (has_body_ && !body_read_);
}

HttpServer::HttpServer(const ConnectionLimits& limits) : limits_(limits) {
  const size_t max = limits.max_connections;
  new_task_queue = [max] { return new ConnectionQueue(max); };
  set_keep_alive_max_count(limits.keep_alive_max);  // what the Keep-Alive header announces
  set_keep_alive_timeout(limits.timeout_s);
  set_read_timeout(limits.timeout_s);
  set_write_timeout(limits.timeout_s);
  // Tells the client when this answer is the connection's last, so that it does not send the
  // next request on a connection the server is closing.
  set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    const Connection* c = Connection::current();
    if (c && c->must_close() && !res.has_header("Connection"))
      res.set_header("Connection", "close");
  });
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  if (t_refusing) {
    static std::atomic<uint64_t> refused{0};
    const uint64_t n = ++refused;
    if (n == 1 || n % 100 == 0)
      std::fprintf(stderr,
                   "kazeia serve: refused a connection: %zu open (--max-connections); %llu "
                   "refused so far\n",
                   limits_.max_connections, (unsigned long long)n);
    const std::string answer = error_response(ApiError(
        503, "server_error",
        "Too many connections: this server keeps at most " +
            std::to_string(limits_.max_connections) + " open (--max-connections); retry later.",
        "", "too_many_connections"));
    // A fresh socket's send buffer is empty: this never blocks the listening thread.
    send(sock, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    shutdown(sock, SHUT_WR);
    close(sock);
    return false;
  }
  BufferedSocketStream stream(sock, limits_.timeout_s);
  Connection conn(stream);
  bool linger = false;
  for (size_t served = 0; served < limits_.keep_alive_max && !stopping(); ++served) {
    stream.set_deadline(Clock::now() + std::chrono::seconds(limits_.timeout_s));
    if (!stream.wait_for_request([this] { return stopping(); })) break;  // idle: closed quietly
    std::string_view line;
    const BufferedSocketStream::Line got = stream.peek_line(line);
    if (got == BufferedSocketStream::Line::Closed) break;
    const bool too_long = got == BufferedSocketStream::Line::TooLong ||
                          (got == BufferedSocketStream::Line::Ok && line.size() > kMaxRequestLine);
    if (got != BufferedSocketStream::Line::Ok || too_long || !well_formed_request_line(line)) {
      const ApiError error =
          got == BufferedSocketStream::Line::TimedOut ? request_timeout(limits_.timeout_s)
          : too_long
              ? ApiError(414, "invalid_request_error",
                         "The request line is longer than " + std::to_string(kMaxRequestLine) +
                             " bytes.",
                         "", "request_line_too_long")
              : ApiError(400, "invalid_request_error",
                         "Malformed HTTP request line: expected `METHOD /path HTTP/1.1` and CRLF.",
                         "", "malformed_request_line");
      stream.write_all(error_response(error));
      linger = true;
      break;
    }
    conn.begin_request();
    bool connection_closed = false;
    const bool answered = process_request(stream, served + 1 == limits_.keep_alive_max,
                                          connection_closed, [&](httplib::Request& req) {
                                            conn.on_head(req);
                                            stream.clear_deadline();
                                          });
    if (!answered || connection_closed || conn.must_close()) {
      linger = answered && conn.must_close();
      break;
    }
  }
  shutdown(sock, SHUT_WR);
  if (linger) {
    const Clock::time_point until = Clock::now() + kLingerTime;
    std::vector<char> sink(65536);
    for (size_t drained = 0; drained < kLingerBytes;) {
      pollfd p{sock, POLLIN, 0};
      if (poll(&p, 1, poll_ms(until)) <= 0) break;
      const ssize_t n = recv(sock, sink.data(), sink.size(), 0);
      if (n <= 0) break;
      drained += size_t(n);
    }
  }
  close(sock);
  return true;
}

std::string error_response(const ApiError& error) {
  const std::string body = to_wire(error.body());
  return "HTTP/1.1 " + std::to_string(error.status()) + " " + reason_phrase(error.status()) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace kz::serve
