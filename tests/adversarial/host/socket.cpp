// Attack: opens sockets (internet and unix) and tries to connect to the local machine. Returns 77
// when a socket could be created at all.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "kforge.h"

static bool attack() {
  bool got = false;
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) {
    got = true;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(22);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    close(s);
  }
  const int u = socket(AF_UNIX, SOCK_STREAM, 0);
  if (u >= 0) {
    got = true;
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strcpy(a.sun_path, "/run/dbus/system_bus_socket");
    (void)connect(u, reinterpret_cast<sockaddr*>(&a), sizeof a);
    close(u);
  }
  return got;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  if (attack()) return 77;
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  return 0;
}
