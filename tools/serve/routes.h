// The endpoints: POST /v1/chat/completions, POST /v1/completions, GET /v1/models[/ID], GET
// /health, with the API key check. Every failure becomes an OpenAI error object. Bodies are read
// here, not by httplib, so that every framing is bounded by --max-body.
#pragma once

#include <httplib.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serve/api_error.h"
#include "serve/server.h"
#include "serve/session_pool.h"

namespace kz::serve {

class Routes {
 public:
  Routes(std::shared_ptr<const Engine> engine, SessionPool& pool, const ServerConfig& config);

  // Registers the handlers, the API key check and the error bodies on `server`.
  void install(httplib::Server& server);

 private:
  struct Job;

  // Why a request is refused before its body is read (API key, route, body framing and size).
  std::optional<ApiError> preflight(const httplib::Request& req) const;
  // The body, at most --max-body bytes whatever its framing (httplib bounds a Content-Length only).
  std::string read_body(const httplib::Request& req, const httplib::ContentReader& reader) const;
  void generation(const std::string& body, httplib::Response& res, Endpoint endpoint);
  std::vector<int32_t> prompt_tokens(const GenerationRequest& r) const;
  GenerateResult run(Job& job, const TokenCallback& on_text) const;
  void log(const Job& job, const GenerateResult& result) const;
  bool authorized(const httplib::Request& req) const;

  std::shared_ptr<const Engine> engine_;
  SessionPool& pool_;
  const ServerConfig& config_;
};

}  // namespace kz::serve
