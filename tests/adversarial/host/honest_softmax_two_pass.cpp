// Honest: max, then exp-sum, then normalise; one row at a time.
#include <cmath>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  float* o = static_cast<float*>(out[0].data);
  const int64_t rows = in[0].shape[0], cols = in[0].shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* orow = o + r * cols;
    float mx = xr[0];
    for (int64_t c = 1; c < cols; ++c) mx = std::fmax(mx, xr[c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      orow[c] = std::exp(xr[c] - mx);
      sum += orow[c];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int64_t c = 0; c < cols; ++c) orow[c] *= inv;
  }
  return 0;
}
