// The endpoints: POST /v1/chat/completions, POST /v1/completions, GET /v1/models[/ID], GET
// /health, with the API key check. Every failure becomes an OpenAI error object.
#pragma once

#include <httplib.h>

#include <memory>
#include <vector>

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

  void generation(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
  std::vector<int32_t> prompt_tokens(const GenerationRequest& r) const;
  GenerateResult run(Job& job, const TokenCallback& on_text) const;
  void log(const Job& job, const GenerateResult& result) const;
  bool authorized(const httplib::Request& req) const;

  std::shared_ptr<const Engine> engine_;
  SessionPool& pool_;
  const ServerConfig& config_;
};

}  // namespace kz::serve
