// Reading a whole file given by the user (a prompt, a tool list, a saved state, an op filter).
#pragma once

#include <string>
#include <string_view>

namespace kz {

// The file's bytes. Throws kz::Error "PATH: cannot read WHAT: REASON" (errno's text, or "not a
// regular file" for a directory, a FIFO or a device, whose reads fail or never end).
std::string read_file(const std::string& path, std::string_view what);

}  // namespace kz
