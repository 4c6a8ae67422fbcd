#include "serve/client_socket.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>

namespace kz::serve {
namespace {

bool peer_is(int fd, const std::string& addr, int port) {
  sockaddr_storage peer{};
  socklen_t len = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return false;
  char text[INET6_ADDRSTRLEN] = {};
  int peer_port = -1;
  if (peer.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&peer);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    peer_port = ntohs(in->sin_port);
  } else if (peer.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&peer);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    peer_port = ntohs(in6->sin6_port);
  }
  return peer_port == port && addr == text;
}

}  // namespace

int find_client_socket(const std::string& addr, int port) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int found = -1;
  while (const dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    if (peer_is(int(fd), addr, port)) {
      found = int(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

bool client_gone(int socket) {
  char byte;
  const ssize_t n = recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return false;  // the next request is already there
  if (n == 0) return true;  // closed
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace kz::serve
