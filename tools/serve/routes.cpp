#include "serve/routes.h"

#include <cstdio>
#include <random>

#include "base/error.h"
#include "base/timer.h"
#include "serve/api_error.h"
#include "serve/client_socket.h"
#include "serve/connection.h"
#include "serve/response.h"
#include "serve/stream.h"
#include "text/tokenizer.h"

namespace kz::serve {

namespace {

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(to_wire(body), "application/json");
}

void send_error(httplib::Response& res, const ApiError& e) {
  send_json(res, e.status(), e.body());
}

// Runs a handler's body; whatever it throws becomes an OpenAI error object.
template <class Body>
void run_guarded(httplib::Response& res, const Body& body) {
  try {
    body();
  } catch (const ApiError& e) {
    send_error(res, e);
  } catch (const ServerBusy& e) {
    send_error(res, ApiError(503, "server_error", e.what(), "", "server_busy"));
  } catch (const ClientGone& e) {  // nobody reads this answer: the connection is closed
    if (Connection* c = Connection::current()) c->close_after_response();
    send_error(res, ApiError(499, "invalid_request_error", e.what(), "", "client_closed"));
  } catch (const Error& e) {  // the engine refused the input
    send_error(res, invalid_request(e.what()));
  } catch (const std::exception& e) {
    send_error(res, ApiError(500, "server_error", e.what()));
  }
}

template <class Handler>
httplib::Server::Handler guarded(Handler handler) {
  return [handler](const httplib::Request& req, httplib::Response& res) {
    run_guarded(res, [&] { handler(req, res); });
  };
}

bool known_route(const httplib::Request& req) {
  if (req.method == "POST")
    return req.path == "/v1/chat/completions" || req.path == "/v1/completions";
  if (req.method != "GET" && req.method != "HEAD") return false;
  return req.path == "/health" || req.path == "/v1/models" || req.path.rfind("/v1/models/", 0) == 0;
}

// Compares in time independent of where the strings differ.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= (unsigned char)(a[i] ^ b[i]);
  return diff == 0;
}

uint64_t random_seed() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

}  // namespace

// One accepted request on its session, kept alive by the streaming response until it ends.
struct Routes::Job {
  GenerationRequest request;
  std::vector<int32_t> prompt;
  SessionPool::Lease lease;
  ResponseHeader header;
  Timer timer;
};

Routes::Routes(std::shared_ptr<const Engine> engine, SessionPool& pool, const ServerConfig& config)
    : engine_(std::move(engine)), pool_(pool), config_(config) {}

bool Routes::authorized(const httplib::Request& req) const {
  return config_.api_key.empty() || req.path == "/health" ||
         same_secret(req.get_header_value("Authorization"), "Bearer " + config_.api_key);
}

std::vector<int32_t> Routes::prompt_tokens(const GenerationRequest& r) const {
  if (r.endpoint == Endpoint::Completions) return engine_->tokenizer().encode(r.prompt, false);
  if (!r.params.tools.empty() && engine_->chat_format() == ChatFormat::ChatML)
    throw invalid_request("This model's chat template has no tool calling.", "tools",
                          "unsupported_value");
  try {
    return engine_->encode_chat(r.messages, r.params);
  } catch (const Error& e) {
    throw invalid_request(e.what(), "messages");
  }
}

GenerateResult Routes::run(Job& job, const TokenCallback& on_text) const {
  Session& session = job.lease.session();
  if (job.request.endpoint == Endpoint::Completions)
    return session.generate_tokens(job.prompt, job.request.params, on_text);
  return session.generate(job.request.messages, job.request.params, on_text);
}

void Routes::log(const Job& job, const GenerateResult& r) const {
  std::fprintf(stderr,
               "kazeia serve: %s session %zu: %lld prompt tokens (%lld cached), %zu generated, "
               "stop %s, %.3f s\n",
               job.header.id.c_str(), job.lease.slot(), (long long)r.prompt_tokens,
               (long long)r.cached_tokens, r.tokens.size(),
               std::string(stop_reason_name(r.stop)).c_str(), job.timer.seconds());
}

std::optional<ApiError> Routes::preflight(const httplib::Request& req) const {
  if (!authorized(req))
    return ApiError(401, "invalid_request_error",
                    req.has_header("Authorization")
                        ? "Incorrect API key provided."
                        : "You didn't provide an API key (Authorization: Bearer KEY).",
                    "", "invalid_api_key");
  // Unknown routes are answered here, before httplib reads a body for them without a bound.
  if (!known_route(req)) return status_error(404, req.method, req.path);
  if (req.method != "POST") return std::nullopt;
  const BodyFraming f = body_framing(req);
  if (f.bad_length && !f.chunked)
    return invalid_request("Content-Length must be a decimal number of bytes.", "",
                           "invalid_content_length");
  // No Content-Length and no chunked framing is an empty body (RFC 9112 6.3): answered at once,
  // not after waiting for a close.
  if (!f.chunked && f.length == 0)
    return invalid_request(
        "The request has no body: POST a JSON object, with a Content-Length or "
        "Transfer-Encoding: chunked.",
        "", "missing_body");
  if (!f.chunked && f.length > config_.max_body_bytes)
    return body_too_large(config_.max_body_bytes);
  return std::nullopt;
}

std::string Routes::read_body(const httplib::Request& req,
                              const httplib::ContentReader& reader) const {
  const size_t max = config_.max_body_bytes;
  std::string body;
  const BodyFraming f = body_framing(req);
  if (!f.chunked) body.reserve(size_t(f.length));  // one allocation, checked by preflight
  bool too_large = false;
  const bool complete = reader([&](const char* data, size_t n) {
    too_large = n > max - body.size();
    if (!too_large) body.append(data, n);
    return !too_large;
  });
  Connection* c = Connection::current();
  if (complete) {
    if (c) c->body_read();
    return body;
  }
  // The rest of the body is still on the wire: the connection cannot carry another request.
  if (c) c->close_after_response();
  if (too_large) throw body_too_large(max);
  if (c && c->timed_out()) throw request_timeout(config_.connections.timeout_s);
  throw invalid_request("The request body ended early or its chunked encoding is malformed.", "",
                        "malformed_body");
}

void Routes::generation(const std::string& body, httplib::Response& res, Endpoint endpoint) {
  GenerationRequest r = endpoint == Endpoint::ChatCompletions
                            ? parse_chat_request(body, config_.limits)
                            : parse_completion_request(body, config_.limits);
  if (!r.model.empty() && r.model != config_.model_id)
    throw ApiError(404, "invalid_request_error",
                   "The model `" + r.model + "` does not exist. This server serves `" +
                       config_.model_id + "`.",
                   "model", "model_not_found");
  if (!r.seed_given) r.params.sampling.seed = random_seed();
  std::vector<int32_t> prompt = prompt_tokens(r);
  if (prompt.empty()) throw invalid_request("The prompt is empty.", "prompt");
  if (int64_t(prompt.size()) >= config_.session.n_ctx)
    throw invalid_request(
        "This server's context holds " + std::to_string(config_.session.n_ctx) +
            " tokens, but the prompt is " + std::to_string(prompt.size()) + " tokens.",
        endpoint == Endpoint::ChatCompletions ? "messages" : "prompt", "context_length_exceeded");
  // A client that leaves while its request waits for a session leaves the queue; one that leaves
  // before a plain answer cancels it, as a stream's does at its next write.
  const Connection* connection = Connection::current();
  const int socket = connection ? connection->socket() : -1;
  const auto gone = [socket] { return socket >= 0 && client_gone(socket); };
  SessionPool::Lease lease = pool_.acquire(prompt, gone);
  auto job = std::make_shared<Job>(Job{std::move(r),
                                       std::move(prompt),
                                       std::move(lease),
                                       new_response_header(endpoint, config_.model_id),
                                       {}});
  if (!job->request.stream) {
    std::string text;  // what a stream would have shown
    const GenerateResult result = run(*job, [&](std::string_view piece) {
      text += piece;
      return !gone();
    });
    log(*job, result);
    // Cancelled with the client still there: the server is stopping. An error, not a cut answer
    // passed off as whole (issue 41: it said "stop").
    if (result.stop == StopReason::Cancelled) throw shutting_down(result.tokens.size());
    send_json(res, 200, completion_body(job->header, result, text));
    return;
  }
  // The generation runs while the response is written; the job (and its session) is released
  // with the response, also when the client is gone before the first byte.
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream", [this, job](size_t, httplib::DataSink& sink) {
        try {
          const GenerateResult result = stream_generation(
              job->header, job->request.include_usage,
              [&](std::string_view bytes) { return sink.write(bytes.data(), bytes.size()); },
              [&](const TokenCallback& on_text) { return run(*job, on_text); });
          log(*job, result);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "kazeia serve: %s: error: %s\n", job->header.id.c_str(), e.what());
        }
        sink.done();
        return true;
      });
}

void Routes::install(httplib::Server& server) {
  using httplib::Request;
  using httplib::Response;
  // Runs before the body is read: a refused request's body is never read (its connection is
  // closed after the answer, serve/connection.h).
  server.set_pre_routing_handler([this](const Request& req, Response& res) {
    const std::optional<ApiError> refused = preflight(req);
    if (!refused) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, *refused);
    return httplib::Server::HandlerResponse::Handled;
  });
  // `Expect: 100-continue`: the same checks, so that a refused client never sends its body.
  server.set_expect_100_continue_handler([this](const Request& req, Response& res) {
    const std::optional<ApiError> refused = preflight(req);
    if (!refused) return 100;
    send_error(res, *refused);
    return refused->status();
  });
  // What httplib refuses itself: a malformed header block, or a head that stopped arriving.
  server.set_error_handler([this](const Request& req, Response& res) {
    const Connection* c = Connection::current();
    if (c && c->timed_out())
      send_error(res, request_timeout(config_.connections.timeout_s));
    else if (c && !c->head_parsed() && res.status == 400)
      send_error(res, ApiError(400, "invalid_request_error", "Malformed HTTP request headers.", "",
                               "malformed_request"));
    else if (res.body.empty())
      send_json(res, res.status, status_error(res.status, req.method, req.path).body());
  });
  server.set_exception_handler([](const Request&, Response& res, std::exception_ptr) {
    send_error(res, ApiError(500, "server_error", "internal error"));
  });
  const auto generation_route = [this](Endpoint endpoint) {
    return
        [this, endpoint](const Request& req, Response& res, const httplib::ContentReader& reader) {
          run_guarded(res, [&] { generation(read_body(req, reader), res, endpoint); });
        };
  };
  server.Post("/v1/chat/completions", generation_route(Endpoint::ChatCompletions));
  server.Post("/v1/completions", generation_route(Endpoint::Completions));
  server.Get("/v1/models", guarded([this](const Request&, Response& res) {
               send_json(res, 200, model_list(config_.model_id, config_.model_created));
             }));
  server.Get("/v1/models/(.+)", guarded([this](const Request& req, Response& res) {
               if (req.matches[1] != config_.model_id)
                 throw ApiError(404, "invalid_request_error",
                                "The model `" + std::string(req.matches[1]) + "` does not exist.",
                                "model", "model_not_found");
               send_json(res, 200, model_entry(config_.model_id, config_.model_created));
             }));
  server.Get(
      "/health", guarded([this](const Request&, Response& res) {
        const SessionPool::Stats s = pool_.stats();
        send_json(
            res, 200,
            {{"status", "ok"}, {"sessions", s.sessions}, {"busy", s.busy}, {"waiting", s.waiting}});
      }));
}

}  // namespace kz::serve
