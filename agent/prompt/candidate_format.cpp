#include "agent/prompt/candidate_format.h"

namespace kf::agent {

Result<CandidateSpec> candidate_spec(CandidateFormat format, bool cuda_backend) {
  CandidateSpec s;
  s.format = format;
  s.cuda_backend = cuda_backend;
  switch (format) {
    case CandidateFormat::kf_forward:
      s.source_extension = cuda_backend ? ".cu" : ".cpp";
      s.code_label = cuda_backend ? "cuda" : "cpp";
      s.language = cuda_backend ? "CUDA" : "C++";
      s.template_layers = {""};
      s.file_kind = cuda_backend ? "CUDA source (.cu)" : "C++ source (.cpp)";
      return s;
    case CandidateFormat::kernelbench_cuda:
      // On the host backend the same format asks for CPU C++ in cpp_sources, as kf_forward asks for C++.
      s.source_extension = ".py";
      s.code_label = "python";
      s.language = cuda_backend ? "CUDA" : "C++";
      s.template_layers = {cuda_backend ? "kernelbench/cuda" : "kernelbench/host", "kernelbench"};
      s.file_kind = "Python (.py)";
      return s;
    case CandidateFormat::kernelbench_triton:
      if (!cuda_backend)
        return make_error("candidate_format.backend",
                          "candidate_format kernelbench-triton needs the cuda backend (Triton kernels run only on a "
                          "GPU); on the host backend use kernelbench-cuda, which asks for C++ in cpp_sources");
      s.source_extension = ".py";
      s.code_label = "python";
      s.language = "Triton";
      s.template_layers = {"kernelbench/triton", "kernelbench"};
      s.file_kind = "Python (.py)";
      return s;
  }
  return make_error("candidate_format.unknown", "unknown candidate_format");
}

TemplateVars format_vars(const CandidateSpec& spec, const TargetMachine& m, const Allowances& allowances) {
  const bool kb = spec.format != CandidateFormat::kf_forward;
  std::string target, allowed;
  if (spec.cuda_backend) {
    target = m.gpu_name + " (" + m.gpu_arch + ")" + (m.cuda_version.empty() ? "" : ", CUDA " + m.cuda_version);
    const std::string vendor = allowances.vendor_libs ? "cuBLAS, cuDNN and other vendor libraries are allowed"
                                                      : "no cuBLAS, cuDNN, CUTLASS or other vendor libraries";
    if (spec.format == CandidateFormat::kernelbench_triton)
      allowed =
          "Triton (triton, triton.language) for the kernels; torch only to allocate outputs, make views and "
          "launch the kernels; " +
          vendor;
    else if (kb)
      allowed =
          "in your CUDA and C++ sources the CUDA runtime, device intrinsics, the C++ standard library and "
          "torch's C++ tensor API (to allocate outputs and read shapes); " +
          vendor;
    else if (allowances.vendor_libs)
      allowed = "the CUDA runtime and toolkit libraries (cuBLAS, cuDNN and others are allowed)";
    else
      allowed =
          "the CUDA runtime, device intrinsics and the C++ standard library only; no cuBLAS, cuDNN, CUTLASS or "
          "other vendor libraries";
  } else if (kb) {
    target =
        "the host CPU (host backend: every tensor is a CPU tensor; the extension is built without CUDA, so use "
        "cpp_sources only)";
    allowed =
        "in cpp_sources the C++17 standard library and torch's C++ tensor API (to allocate outputs and read "
        "shapes); the arithmetic in your own loops";
  } else {
    target = "the host CPU (host backend: tensor data pointers are host memory, stream is NULL; plain C++17)";
    allowed = "the C++17 standard library only";
  }
  return {{"language", spec.language},
          {"code_label", spec.code_label},
          {"file_kind", spec.file_kind},
          {"allowed_libraries", allowed},
          {"target", target},
          {"precision", allowances.reduced_precision
                            ? "on fp32 problems TF32, fp16 or bf16 arithmetic is accepted if the outputs stay within "
                              "the tolerance"
                            : "keep fp32 accuracy on fp32 problems: no TF32, fp16 or bf16 arithmetic"}};
}

}  // namespace kf::agent
