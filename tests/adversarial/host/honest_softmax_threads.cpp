// Honest: rows distributed over threads, each row done in double precision.
#include <cmath>
#include <thread>
#include <vector>

#include "kforge.h"

static void rows_range(const float* x, float* o, int64_t lo, int64_t hi, int64_t cols) {
  for (int64_t r = lo; r < hi; ++r) {
    double mx = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) mx = std::fmax(mx, x[r * cols + c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - mx);
    for (int64_t c = 0; c < cols; ++c) o[r * cols + c] = static_cast<float>(std::exp(x[r * cols + c] - mx) / sum);
  }
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  float* o = static_cast<float*>(out[0].data);
  const int64_t rows = in[0].shape[0], cols = in[0].shape[1];
  std::vector<std::thread> pool;
  const int workers = 3;
  for (int w = 0; w < workers; ++w)
    pool.emplace_back(rows_range, x, o, rows * w / workers, rows * (w + 1) / workers, cols);
  for (auto& t : pool) t.join();
  return 0;
}
