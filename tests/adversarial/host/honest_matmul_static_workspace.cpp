// Honest: a workspace kept across calls (static), but everything recomputed on every call.
#include <algorithm>
#include <vector>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t, void*) {
  if (n_in != 2) return 1;
  static std::vector<double> acc;
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  acc.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) acc[static_cast<size_t>(j)] += static_cast<double>(a[i * k + p]) * b[p * n + j];
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<float>(acc[static_cast<size_t>(j)]);
  }
  return 0;
}
