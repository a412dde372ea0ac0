// Attack: opens sockets (internet and unix) and tries to connect to the local machine. Returns 77
// when a socket could be created at all.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <cuda_runtime.h>

#include "kforge.h"

inline int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

__global__ void scale_add(const float* x, const float* y, float* o, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

inline int honest(const kf_tensor* in, kf_tensor* out, void* stream) {
  const int64_t n = numel(out[0]);
  scale_add<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const float*)in[0].data, (const float*)in[1].data, (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}


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

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  if (attack()) return 77;
  return honest(in, out, stream);
}
