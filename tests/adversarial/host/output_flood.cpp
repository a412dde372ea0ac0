// Attack: floods stdout and stderr (32 MiB each) on every call, then answers correctly. The harness
// must neither block nor keep the flood.
#include <unistd.h>

#include <vector>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  static std::vector<char> junk(1 << 20, 'A');
  for (int i = 0; i < 32; ++i) {
    if (write(1, junk.data(), junk.size()) < 0) break;
    if (write(2, junk.data(), junk.size()) < 0) break;
  }
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  return 0;
}
