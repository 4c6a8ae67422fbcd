#include "serve/stream.h"

#include "base/error.h"
#include "serve/api_error.h"

namespace kz::serve {

std::string sse_event(std::string_view payload) {
  std::string event = "data: ";
  event += payload;
  event += "\n\n";
  return event;
}

GenerateResult stream_generation(const ResponseHeader& header, bool include_usage,
                                 const EventWriter& write, const Generation& generate) {
  auto send = [&](const nlohmann::json& chunk) { return write(sse_event(to_wire(chunk))); };
  bool client_gone = header.endpoint == Endpoint::ChatCompletions && !send(role_chunk(header));
  GenerateResult result;
  if (client_gone) {
    result.stop = StopReason::Cancelled;
    return result;
  }
  try {
    result = generate([&](std::string_view piece) {
      client_gone = client_gone || !send(text_chunk(header, piece));
      return !client_gone;
    });
  } catch (const Error& e) {
    send(ApiError(500, "server_error", e.what()).body());
    throw;
  }
  if (client_gone) {
    result.stop = StopReason::Cancelled;
    return result;
  }
  // Cancelled with the client still there: the server is stopping. An error event, not a finish
  // chunk, so that the cut answer is not taken for a whole one.
  if (result.stop == StopReason::Cancelled) {
    send(shutting_down(result.tokens.size()).body());
    return result;
  }
  if (!result.tool_calls.empty()) send(tool_calls_chunk(header, result.tool_calls));
  send(finish_chunk(header, result));
  if (include_usage) send(usage_chunk(header, result));
  write(sse_event("[DONE]"));
  return result;
}

}  // namespace kz::serve
