#include "serve/client_socket.h"

#include <sys/socket.h>

#include <cerrno>

namespace kz::serve {

bool client_gone(int socket) {
  char byte;
  const ssize_t n = recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return false;  // the next request is already there
  if (n == 0) return true;  // closed
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace kz::serve
