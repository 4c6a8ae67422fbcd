// Errors as the OpenAI API returns them: an HTTP status and
// {"error": {"message", "type", "param", "code"}}. Request parsing and the handlers throw ApiError;
// the router turns it into the response.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace kz::serve {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string type, const std::string& message, std::string param = {},
           std::string code = {})
      : std::runtime_error(message),
        status_(status),
        type_(std::move(type)),
        param_(std::move(param)),
        code_(std::move(code)) {}

  int status() const { return status_; }
  // The response body; an empty param or code is null, as in OpenAI's errors.
  nlohmann::json body() const;

 private:
  int status_;
  std::string type_, param_, code_;
};

// 400 invalid_request_error naming the request field at fault (e.g. "messages[1].role").
ApiError invalid_request(const std::string& message, const std::string& param = {},
                         const std::string& code = {});

// 408 request_timeout: the request head, or a part of its body, did not arrive in time.
ApiError request_timeout(int seconds);
// 413 request_too_large, naming the limit.
ApiError body_too_large(size_t max_bytes);
// 503 server_shutting_down: the server stopped the generation after `generated` tokens.
ApiError shutting_down(size_t generated);

// The error of a bare status (404 route, 413 body too large, ...) that no handler described.
ApiError status_error(int status, const std::string& method, const std::string& path);

}  // namespace kz::serve
