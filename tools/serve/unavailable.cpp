// Builds without cpp-httplib or nlohmann-json (e.g. the aarch64 cross build) have no server.
#include "base/error.h"
#include "serve/server.h"

namespace kz::serve {

void run_server(std::shared_ptr<const Engine>, const ServerConfig&) {
  fail(
      "this build has no server: it needs libcpp-httplib-dev and nlohmann-json3-dev at build time");
}

}  // namespace kz::serve
