// Noticing that the client of a non-streaming request has gone, so that its generation stops:
// httplib 0.11 gives handlers no socket, so the connection's socket is found by its peer address
// among the process's descriptors (the worker thread keeps it open until the handler returns).
#pragma once

#include <string>

namespace kz::serve {

// The socket connected to addr:port, or -1.
int find_client_socket(const std::string& addr, int port);
// Whether the peer closed or reset the connection (a pending next request is not a close).
bool client_gone(int socket);

}  // namespace kz::serve
