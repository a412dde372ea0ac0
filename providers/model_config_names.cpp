// The names ProviderKind and CandidateFormat have in configuration files, reports and the corpus.
#include "providers/model_config.h"

namespace kf::providers {

std::string to_string(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::openai_chat: return "openai-chat";
    case ProviderKind::openai_responses: return "openai-responses";
    case ProviderKind::anthropic: return "anthropic";
    case ProviderKind::gemini: return "gemini";
    case ProviderKind::openai_compatible: return "openai-compatible";
  }
  return "unknown";
}

std::optional<ProviderKind> provider_kind_from_string(const std::string& text) {
  for (ProviderKind k : {ProviderKind::openai_chat, ProviderKind::openai_responses, ProviderKind::anthropic,
                         ProviderKind::gemini, ProviderKind::openai_compatible}) {
    if (to_string(k) == text) return k;
  }
  return std::nullopt;
}

std::string to_string(CandidateFormat format) {
  switch (format) {
    case CandidateFormat::kf_forward: return "kf_forward";
    case CandidateFormat::kernelbench_cuda: return "kernelbench-cuda";
    case CandidateFormat::kernelbench_triton: return "kernelbench-triton";
  }
  return "unknown";
}

std::optional<CandidateFormat> candidate_format_from_string(const std::string& text) {
  for (CandidateFormat f :
       {CandidateFormat::kf_forward, CandidateFormat::kernelbench_cuda, CandidateFormat::kernelbench_triton}) {
    if (to_string(f) == text) return f;
  }
  return std::nullopt;
}

const std::vector<std::string>& loop_strategy_names() {
  static const std::vector<std::string> names = {"refine", "best_of_n", "beam", "evolve"};
  return names;
}

const std::vector<std::string>& candidate_format_names() {
  static const std::vector<std::string> names = {to_string(CandidateFormat::kf_forward),
                                                 to_string(CandidateFormat::kernelbench_cuda),
                                                 to_string(CandidateFormat::kernelbench_triton)};
  return names;
}

}  // namespace kf::providers
