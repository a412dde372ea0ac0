# Puts /dev/null over the runner's report descriptor from C++ (the static check cannot see it) and returns:
# the runner's answers go nowhere and the supervisor's end of the channel is closed. The runner must end at
# the per-call limit, not at the sandbox's wall limit.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_add_source = """
#include <torch/extension.h>
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

torch::Tensor scale_add(torch::Tensor x, torch::Tensor y) {
  std::ifstream in("/proc/self/cmdline");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = std::string("--report-fd") + '\\0';
  const auto at = all.find(key);
  if (at != std::string::npos) {
    const int fd = std::atoi(all.c_str() + at + key.size());
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0 && fd > 2) dup2(null_fd, fd);
  }
  auto out = torch::empty_like(x);
  const float* a = x.data_ptr<float>();
  const float* b = y.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = 2.0f * a[i] + b[i];
  return out;
}
"""

scale_add_ext = load_inline(name="kf_selftest_report_devnull", cpp_sources=scale_add_source, functions=["scale_add"])


class ModelNew(nn.Module):
    def forward(self, x, y):
        return scale_add_ext.scale_add(x.contiguous(), y.contiguous())
