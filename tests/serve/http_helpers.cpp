#include "http_helpers.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "testing/reference_logits.h"

namespace kz::testing {

using nlohmann::json;

std::string serve_test_model() {
  return model_path("qwen3-tiny-q8_0");
}
const char* const kServeTestModelId = "qwen3-tiny-q8_0";

json chat_body(const std::string& text, int max_tokens) {
  return {{"model", kServeTestModelId},
          {"messages", {{{"role", "user"}, {"content", text}}}},
          {"max_tokens", max_tokens},
          {"temperature", 0}};
}

json long_completion() {
  return {
      {"prompt", "Once upon a time"}, {"max_tokens", 8000}, {"temperature", 0}, {"stream", true}};
}

Reply post(httplib::Client& cli, const std::string& path, const std::string& body,
           const httplib::Headers& headers) {
  auto res = cli.Post(path.c_str(), headers, body, "application/json");
  if (!res) return {};
  return {res->status, json::parse(res->body, nullptr, false)};
}

Reply get(httplib::Client& cli, const std::string& path, const httplib::Headers& headers) {
  auto res = cli.Get(path.c_str(), headers);
  if (!res) return {};
  return {res->status, json::parse(res->body, nullptr, false)};
}

httplib::Client client(const ServerProcess& s) {
  httplib::Client cli("127.0.0.1", s.port());
  cli.set_read_timeout(3600);  // a loaded test machine is slow, not wrong
  return cli;
}

int busy_sessions(httplib::Client& cli) {
  return get(cli, "/health").body["busy"].get<int>();
}

void expect_error(const Reply& r, int status, const std::string& param, const std::string& code) {
  EXPECT_EQ(r.status, status) << r.body;
  ASSERT_TRUE(r.body.is_object() && r.body.contains("error")) << r.body;
  const json& e = r.body["error"];
  EXPECT_TRUE(e["message"].is_string() && !e["message"].get<std::string>().empty()) << r.body;
  EXPECT_TRUE(e["type"].is_string()) << r.body;
  EXPECT_EQ(e["param"], param.empty() ? json(nullptr) : json(param)) << r.body;
  EXPECT_EQ(e["code"], code.empty() ? json(nullptr) : json(code)) << r.body;
}

StreamingClient::StreamingClient(int port, const json& body) {
  thread_ = std::thread([this, port, body] {
    httplib::Client cli("127.0.0.1", port);
    cli.set_read_timeout(3600);
    cli.set_socket_options([](int sock) {
      const int bytes = 4096;
      setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
    });
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/completions";
    req.body = body.dump();
    req.set_header("Content-Type", "application/json");
    req.content_receiver = [this](const char* data, size_t n, uint64_t, uint64_t) {
      std::unique_lock lock(mutex_);
      received_.append(data, n);
      changed_.notify_all();
      changed_.wait(lock, [&] { return leave_; });
      return false;
    };
    cli.send(req);
  });
}

StreamingClient::~StreamingClient() {
  leave();
  thread_.join();
}

void StreamingClient::wait_first_event() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return received_.find("data: ") != std::string::npos; });
}

void StreamingClient::leave() {
  std::lock_guard lock(mutex_);
  leave_ = true;
  changed_.notify_all();
}

RawConnection::RawConnection(int port, int hang_guard_s) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return;
  const timeval tv{hang_guard_s, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) close();
}

RawConnection::~RawConnection() {
  close();
}

void RawConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

bool RawConnection::fill() {
  char chunk[65536];
  const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
  if (n <= 0) return false;
  buffer_.append(chunk, size_t(n));
  return true;
}

RawConnection::Response RawConnection::read_response() {
  Response r;
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos)
    if (!fill()) return r;
  std::string head = buffer_.substr(0, head_end + 2);
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  buffer_.erase(0, head_end + 4);
  const size_t at = head.find("content-length:");
  if (at != std::string::npos) {
    const size_t length = std::stoul(head.substr(at + 15));
    while (buffer_.size() < length)
      if (!fill()) return r;
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
  } else {
    while (fill()) {
    }
    r.body = std::move(buffer_);
    buffer_.clear();
  }
  if (head.rfind("http/1.1 ", 0) == 0) r.status = std::stoi(head.substr(9, 3));
  r.headers = std::move(head);
  return r;
}

json RawConnection::Response::json() const {
  return json::parse(body, nullptr, false);
}

bool RawConnection::closed_by_server() {
  char byte;
  const ssize_t n = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

bool RawConnection::open_and_quiet() {
  char byte;
  const ssize_t n = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::string post_request(const std::string& path, const std::string& body) {
  return "POST " + path +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace kz::testing
