// Writing a file so that it is never lost: the bytes go to a temporary file beside it, which is
// flushed to the disk and then renamed over the old one. A failure (a full disk, a read-only
// folder) leaves the old file as it was.
#pragma once

#include <string>
#include <string_view>

namespace kz {

// Throws kz::Error "PATH: cannot write WHAT: REASON" (errno's text) on failure; also refuses a
// PATH that exists and is not a regular file (a device such as /dev/full is not replaced).
void write_file_atomically(const std::string& path, std::string_view bytes, std::string_view what);

}  // namespace kz
