// Honest: online (single pass) max and sum, then a normalising pass.
#include <cmath>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  float* o = static_cast<float*>(out[0].data);
  const int64_t rows = in[0].shape[0], cols = in[0].shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double v = xr[c];
      if (v > mx) {
        sum = sum * std::exp(mx - v) + 1.0;
        mx = v;
      } else {
        sum += std::exp(v - mx);
      }
    }
    for (int64_t c = 0; c < cols; ++c) o[r * cols + c] = static_cast<float>(std::exp(xr[c] - mx) / sum);
  }
  return 0;
}
