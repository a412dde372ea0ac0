#pragma once
// What a published solution is, read from its text without a GPU: a claimed "CUDA kernel speedup" may come
// from a solution with no kernel of its own (a PyTorch-level rewrite, CUDA graphs, torch.compile inside
// ModelNew, vendor-library calls). Comments are ignored; the check is textual, so it tells what a solution
// contains, not what runs.
#include <string>
#include <vector>

namespace kf::agent {

// The kinds, in the order reports list them:
//   cuda_kernel     a __global__ function of its own
//   triton_kernel   a @triton.jit (or triton.jit(...)) function of its own
//   no_own_kernel   neither of the two: a PyTorch-level rewrite (whatever else it uses)
//   cuda_graph      captures or replays CUDA graphs (torch.cuda.CUDAGraph, torch.cuda.graph, cudaGraph*)
//   torch_compile   torch.compile / torch._dynamo
//   vendor_library  calls cuBLAS, cuDNN, CUTLASS, cuFFT, cuSPARSE, CUB or Thrust, or ATen's matmul and
//                   convolution ops from C++ (at::/torch:: mm, matmul, bmm, addmm, linear, conv*)
const std::vector<std::string>& solution_kinds();
std::string solution_kind_label(const std::string& kind);

// The kinds `text` shows, in solution_kinds() order.
std::vector<std::string> classify_solution(const std::string& text);

}  // namespace kf::agent
