// `kazeia serve` over plain HTTP on loopback: error objects for bad requests, the API key, body
// and queue limits, a client leaving mid-stream, clean shutdown, and a bounded load test.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "http_helpers.h"
#include "server_process.h"
#include "testing/reference_logits.h"
#include "testing/sanitizers.h"

namespace kz::testing {
namespace {

using nlohmann::json;

const std::string kModelId = kServeTestModelId;

TEST(ServeHttp, HealthModelsAndBadRequests) {
  ServerProcess server(kServeModel,
                       {"-c", "256", "-t", "1", "--parallel", "2", "--max-tokens", "64"});
  auto cli = client(server);

  const Reply health = get(cli, "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, json({{"status", "ok"}, {"sessions", 2}, {"busy", 0}, {"waiting", 0}}));
  const Reply models = get(cli, "/v1/models");
  EXPECT_EQ(models.status, 200);
  EXPECT_EQ(models.body["object"], "list");
  ASSERT_EQ(models.body["data"].size(), 1u);
  EXPECT_EQ(models.body["data"][0]["id"], kModelId);
  EXPECT_EQ(get(cli, "/v1/models/" + kModelId).body["id"], kModelId);
  expect_error(get(cli, "/v1/models/gpt-4"), 404, "model", "model_not_found");

  const std::string chat = "/v1/chat/completions";
  expect_error(post(cli, chat, "{\"messages\": [oops"), 400, "", "invalid_json");
  expect_error(post(cli, chat, "\"a string\""), 400, "", "");
  json unknown_field = chat_body("hi", 4);
  unknown_field["frobnicate"] = true;
  expect_error(post(cli, chat, unknown_field.dump()), 400, "frobnicate", "");
  json unknown_model = chat_body("hi", 4);
  unknown_model["model"] = "gpt-4";
  expect_error(post(cli, chat, unknown_model.dump()), 404, "model", "model_not_found");
  expect_error(post(cli, chat, chat_body("hi", 65).dump()), 400, "max_tokens", "");
  expect_error(post(cli, chat, R"({"messages":[{"role":"user","content":"\ud800"}]})"), 400, "",
               "invalid_json");
  // A prompt longer than the context (256 tokens).
  std::string long_text;
  for (int i = 0; i < 300; ++i) long_text += "word ";
  expect_error(post(cli, chat, chat_body(long_text, 4).dump()), 400, "messages",
               "context_length_exceeded");
  expect_error(post(cli, "/v1/completions", R"({"prompt":""})"), 400, "prompt", "");
  expect_error(post(cli, "/v1/embeddings", "{}"), 404, "", "unknown_url");
  expect_error(get(cli, "/v1/chat/completions"), 404, "", "unknown_url");

  // After all that the server still answers.
  const Reply ok = post(cli, chat, chat_body("hi", 4).dump());
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.body["object"], "chat.completion");
  EXPECT_EQ(server.stop(), 0);
}

TEST(ServeHttp, ApiKey) {
  ServerProcess server(kServeModel, {"-c", "128", "-t", "1", "--api-key", "s3cret"});
  auto cli = client(server);
  const std::string body = chat_body("hi", 2).dump();
  expect_error(post(cli, "/v1/chat/completions", body), 401, "", "invalid_api_key");
  expect_error(post(cli, "/v1/chat/completions", body, {{"Authorization", "Bearer wrong"}}), 401,
               "", "invalid_api_key");
  expect_error(get(cli, "/v1/models", {{"Authorization", "s3cret"}}), 401, "", "invalid_api_key");
  EXPECT_EQ(get(cli, "/health").status, 200);  // probes need no key
  const httplib::Headers key = {{"Authorization", "Bearer s3cret"}};
  EXPECT_EQ(get(cli, "/v1/models", key).status, 200);
  EXPECT_EQ(post(cli, "/v1/chat/completions", body, key).status, 200);
}

TEST(ServeHttp, OversizeBody) {
  ServerProcess server(kServeModel, {"-c", "128", "-t", "1", "--max-body", "65536"});
  auto cli = client(server);
  expect_error(post(cli, "/v1/chat/completions", chat_body(std::string(70000, 'a'), 2).dump()), 413,
               "", "request_too_large");
  EXPECT_EQ(post(cli, "/v1/chat/completions", chat_body("hi", 2).dump()).status, 200);
}

TEST(ServeHttp, DisconnectMidStreamFreesTheSession) {
  ServerProcess server(kServeModel, {"-c", "8192", "-t", "1", "--parallel", "1", "--queue", "0"});
  auto cli = client(server);
  {
    StreamingClient leaving(server.port(), long_completion());
    leaving.wait_first_event();
    EXPECT_EQ(busy_sessions(cli), 1);
    // The only session is busy and nothing may wait: refused at once.
    expect_error(post(cli, "/v1/chat/completions", chat_body("hi", 2).dump()), 503, "",
                 "server_busy");
    leaving.leave();
  }
  // The server notices at its next write and cancels the generation.
  while (busy_sessions(cli) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const Reply next = post(cli, "/v1/chat/completions", chat_body("hi", 4).dump());
  EXPECT_EQ(next.status, 200) << next.body;
  EXPECT_EQ(server.stop(), 0);
  const std::string log = server.log();
  EXPECT_NE(log.find("stop cancelled"), std::string::npos) << log;
  EXPECT_EQ(log.find("8000 generated"), std::string::npos) << log;
}

// A non-streaming request whose client closes its socket right after sending it: the server
// notices at the next token and cancels; without that, the generation would run to 8000 tokens.
TEST(ServeHttp, DisconnectBeforeANonStreamingAnswerCancelsIt) {
  ServerProcess server(kServeModel, {"-c", "8192", "-t", "1", "--parallel", "1", "--queue", "0"});
  json body = long_completion();
  body["stream"] = false;
  const std::string text = body.dump();
  const std::string request =
      "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nContent-Length: " +
      std::to_string(text.size()) + "\r\n\r\n" + text;
  const int sock = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(server.port()));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(send(sock, request.data(), request.size(), 0), ssize_t(request.size()));
  close(sock);
  auto cli = client(server);
  // The request may not have reached a session yet; wait until it has run and been cancelled.
  while (server.log().find("stop cancelled") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(post(cli, "/v1/chat/completions", chat_body("hi", 4).dump()).status, 200);
  EXPECT_EQ(server.stop(), 0);
  EXPECT_EQ(server.log().find("8000 generated"), std::string::npos) << server.log();
}

TEST(ServeHttp, QueuedRequestWaitsForTheSession) {
  ServerProcess server(kServeModel, {"-c", "8192", "-t", "1", "--parallel", "1", "--queue", "1",
                                     "--queue-timeout", "3600"});
  auto cli = client(server);
  Reply queued;
  {
    StreamingClient leaving(server.port(), long_completion());
    leaving.wait_first_event();
    std::thread waiter([&] {
      auto c = client(server);
      queued = post(c, "/v1/chat/completions", chat_body("hi", 4).dump());
    });
    while (get(cli, "/health").body["waiting"] != 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // The queue (1) is full now.
    expect_error(post(cli, "/v1/chat/completions", chat_body("hi", 2).dump()), 503, "",
                 "server_busy");
    leaving.leave();
    waiter.join();
  }
  EXPECT_EQ(queued.status, 200) << queued.body;
}

TEST(ServeHttp, QueueTimeout) {
  ServerProcess server(kServeModel, {"-c", "8192", "-t", "1", "--parallel", "1", "--queue", "1",
                                     "--queue-timeout", "0"});
  auto cli = client(server);
  StreamingClient leaving(server.port(), long_completion());
  leaving.wait_first_event();
  expect_error(post(cli, "/v1/chat/completions", chat_body("hi", 2).dump()), 503, "",
               "server_busy");
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

// 8 clients × 25 requests, each client its own conversation (5 turns, then anew), every third
// request streamed, on 2 sessions with the other requests queued.
TEST(ServeHttp, LoadTest) {
  constexpr int kClients = 8, kRequests = 25, kMaxTokens = 16;
  ServerProcess server(
      kServeModel, {"-c", "1024", "--parallel", "2", "--queue", "8", "--queue-timeout", "3600"});
  std::atomic<int> failures{0}, cached_requests{0};
  std::mutex latency_mutex;
  std::vector<double> latencies;
  auto run_clients = [&](int requests) {
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c)
      clients.emplace_back([&, c] {
        auto cli = client(server);
        json messages = json::array();
        for (int i = 0; i < requests; ++i) {
          if (i % 5 == 0)
            messages = {{{"role", "system"}, {"content", "client " + std::to_string(c)}}};
          messages.push_back({{"role", "user"}, {"content", "question " + std::to_string(i)}});
          json body = {{"messages", messages}, {"max_tokens", kMaxTokens}, {"seed", c * 100 + i}};
          const bool stream = i % 3 == 2;
          if (stream) body["stream"] = true, body["stream_options"] = {{"include_usage", true}};
          const auto t0 = std::chrono::steady_clock::now();
          auto res = cli.Post("/v1/chat/completions", body.dump(), "application/json");
          const double s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (!res || res->status != 200) {
            ++failures;
            continue;
          }
          json usage;
          std::string text;
          if (stream) {
            const std::string& wire = res->body;
            if (wire.size() < 14 || wire.compare(wire.size() - 14, 14, "data: [DONE]\n\n") != 0)
              ++failures;
            for (size_t at = 0, end; (end = wire.find("\n\n", at)) != std::string::npos;
                 at = end + 2) {
              const json chunk = json::parse(wire.substr(at + 6, end - at - 6), nullptr, false);
              if (chunk.is_discarded()) continue;  // [DONE]
              if (chunk.contains("usage")) usage = chunk["usage"];
              if (!chunk["choices"].empty())
                text += chunk["choices"][0]["delta"].value("content", "");
            }
          } else {
            const json j = json::parse(res->body);
            usage = j["usage"];
            text = j["choices"][0]["message"]["content"];
          }
          const int n = usage.value("completion_tokens", 0);
          if (n < 1 || n > kMaxTokens) ++failures;
          if (usage["prompt_tokens_details"]["cached_tokens"].get<int>() > 0) ++cached_requests;
          messages.push_back({{"role", "assistant"}, {"content", text}});
          std::lock_guard lock(latency_mutex);
          latencies.push_back(s);
        }
      });
    for (auto& t : clients) t.join();
  };
  run_clients(5);  // warm-up: every session and allocation pool in use once
  const int64_t rss_before = server.rss_kib();
  latencies.clear();
  cached_requests = 0;
  const auto t0 = std::chrono::steady_clock::now();
  run_clients(kRequests);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int64_t rss_after = server.rss_kib();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(latencies.size(), size_t(kClients * kRequests));
  // Turns 2-5 of a conversation extend the previous one; most land on the session holding it.
  EXPECT_GT(cached_requests.load(), 0);
  // RSS stable: the sessions' memory is allocated when they open; what a request allocates is
  // freed with it. 200 requests may grow the heap by at most 4 MiB (20 KiB per request). Not
  // under ASan, whose quarantine holds freed memory (its leak checker covers this there).
  if (!kAddressSanitizer) {
    EXPECT_LE(rss_after - rss_before, 4096)
        << "RSS " << rss_before << " -> " << rss_after << " KiB";
  }
  std::printf(
      "load: %d clients x %d requests, %d max tokens: p50 %.1f ms, p95 %.1f ms, max %.1f ms, "
      "%.1f requests/s; %d of them reused a prefix; RSS %lld -> %lld KiB\n",
      kClients, kRequests, kMaxTokens, percentile(latencies, 0.5) * 1e3,
      percentile(latencies, 0.95) * 1e3, percentile(latencies, 1) * 1e3,
      double(latencies.size()) / wall, cached_requests.load(), (long long)rss_before,
      (long long)rss_after);
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
}  // namespace kz::testing
