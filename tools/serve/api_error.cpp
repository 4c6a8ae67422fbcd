#include "serve/api_error.h"

namespace kz::serve {

namespace {

nlohmann::json null_if_empty(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

nlohmann::json ApiError::body() const {
  return {{"error",
           {{"message", what()},
            {"type", type_},
            {"param", null_if_empty(param_)},
            {"code", null_if_empty(code_)}}}};
}

ApiError invalid_request(const std::string& message, const std::string& param,
                         const std::string& code) {
  return ApiError(400, "invalid_request_error", message, param, code);
}

ApiError request_timeout(int seconds) {
  return ApiError(408, "invalid_request_error",
                  "The request did not arrive in time (--timeout " + std::to_string(seconds) +
                      " s); the connection is closed.",
                  "", "request_timeout");
}

ApiError body_too_large(size_t max_bytes) {
  return ApiError(413, "invalid_request_error",
                  "The request body is larger than this server accepts: at most " +
                      std::to_string(max_bytes) + " bytes (--max-body).",
                  "", "request_too_large");
}

ApiError shutting_down(size_t generated) {
  return ApiError(503, "server_error",
                  "The server is shutting down: the answer was cut off after " +
                      std::to_string(generated) + " tokens. Retry the request.",
                  "", "server_shutting_down");
}

ApiError status_error(int status, const std::string& method, const std::string& path) {
  switch (status) {
    case 404:
      return ApiError(404, "invalid_request_error",
                      "Unknown request URL: " + method + " " + path +
                          ". The server serves POST /v1/chat/completions, POST /v1/completions, "
                          "GET /v1/models and GET /health.",
                      "", "unknown_url");
    case 413:
      return ApiError(413, "invalid_request_error",
                      "The request body is larger than this server accepts (--max-body).", "",
                      "request_too_large");
    default:
      return ApiError(status, status >= 500 ? "server_error" : "invalid_request_error",
                      "HTTP status " + std::to_string(status));
  }
}

}  // namespace kz::serve
