#pragma once
// What a configuration's candidate_format means on one backend: which prompt templates ask for the
// candidate, which fence label the answer's block carries, and which file the candidate is stored as
// (its extension tells the evaluator the candidate's kind). docs/candidates.md, "Prompting in
// KernelBench's format".
#include <string>
#include <vector>

#include "agent/prompt/prompt_templates.h"
#include "core/result.h"
#include "providers/model_config.h"

namespace kf::agent {

using providers::CandidateFormat;

struct CandidateSpec {
  CandidateFormat format = CandidateFormat::kf_forward;
  std::string source_extension = ".cu";  // ".cu" / ".cpp" (kf_forward), ".py" (kernelbench)
  std::string code_label = "cuda";       // the fence label the prompts ask for: cuda, cpp, python
  std::string language = "CUDA";         // the kernels' language as prompts name it: CUDA, C++, Triton
  // Template folders below the prompts folder, most specific first: each template comes from the first
  // one that holds it ("" is the prompts folder itself).
  std::vector<std::string> template_layers = {""};
  std::string file_kind = "CUDA source (.cu)";  // the first turn's {{file_kind}}
  bool cuda_backend = true;
};

// The spec of `format` on the cuda (GPU) or host backend. kernelbench-triton on the host backend is an
// error saying what to use instead.
Result<CandidateSpec> candidate_spec(CandidateFormat format, bool cuda_backend);

// The machine candidates run on, as the first turn names it (gpu_name empty on the host backend).
struct TargetMachine {
  std::string gpu_name, gpu_arch, cuda_version;
};

// What the evaluator accepts beyond the defaults (the campaign's --allow-* settings).
struct Allowances {
  bool vendor_libs = false;
  bool reduced_precision = false;
};

// The first turn's placeholders that depend on the format, the backend and the allowances: language,
// code_label, file_kind, allowed_libraries, target, precision.
TemplateVars format_vars(const CandidateSpec& spec, const TargetMachine& machine, const Allowances& allowances);

}  // namespace kf::agent
