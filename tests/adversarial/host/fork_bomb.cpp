// Attack: a fork bomb from inside kf_forward. Returns 77 if any fork succeeded (process creation
// must be denied in the runner).
#include <unistd.h>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  int made = 0;
  for (int i = 0; i < 100000; ++i) {
    const pid_t p = fork();
    if (p == 0) {
      for (;;) (void)fork();
    }
    if (p < 0) break;
    ++made;
  }
  if (made > 0) return 77;
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  return 0;
}
