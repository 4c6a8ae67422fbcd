// Noticing that the client of a request has gone, so that its generation stops or it leaves the
// wait queue. The socket is its connection's (serve/connection.h).
#pragma once

namespace kz::serve {

// Whether the peer closed or reset the connection (a pending next request is not a close).
bool client_gone(int socket);

}  // namespace kz::serve
