// Honest: cache-blocked i-k-j loops accumulating into the zeroed output.
#include <algorithm>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t, void*) {
  if (n_in != 2) return 1;
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  std::fill(c, c + m * n, 0.0f);
  const int64_t bs = 16;
  for (int64_t i0 = 0; i0 < m; i0 += bs)
    for (int64_t p0 = 0; p0 < k; p0 += bs)
      for (int64_t j0 = 0; j0 < n; j0 += bs)
        for (int64_t i = i0; i < std::min(m, i0 + bs); ++i)
          for (int64_t p = p0; p < std::min(k, p0 + bs); ++p) {
            const float av = a[i * k + p];
            for (int64_t j = j0; j < std::min(n, j0 + bs); ++j) c[i * n + j] += av * b[p * n + j];
          }
  return 0;
}
