// Server-sent events: one generation written as `data: {chunk}` events as the text is generated,
// then `data: [DONE]`. The writer is a function so that this runs without a socket in tests; when
// it fails (the client went away) the generation stops.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "api/engine.h"
#include "serve/response.h"

namespace kz::serve {

// Sends bytes to the client; false when it is gone.
using EventWriter = std::function<bool(std::string_view bytes)>;
// Runs the generation, calling on_text with each piece.
using Generation = std::function<GenerateResult(const TokenCallback& on_text)>;

// "data: <payload>\n\n"
std::string sse_event(std::string_view payload);

// Streams one generation. The result's stop is Cancelled when the client went away (nothing more
// is written then) or the server stopped it (an error event server_shutting_down ends the
// stream, without a finish chunk or [DONE]). A kz::Error from the generation is written as an
// OpenAI error event and rethrown.
GenerateResult stream_generation(const ResponseHeader& header, bool include_usage,
                                 const EventWriter& write, const Generation& generate);

}  // namespace kz::serve
