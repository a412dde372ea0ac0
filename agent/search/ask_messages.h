#pragma once
// The messages of one ask (strategy.h): the problem alone, the unit's conversation (refine), or the parent's
// answer verbatim answered by its feedback (verdict, time, speedups, roofline) and the inspirations' sources with
// their measured figures. The parent's source is sent as it was answered, so a scripted model can key its answer
// on it (docs/mock-server.md).
#include <string>
#include <vector>

#include "agent/search/history.h"
#include "agent/search/strategy.h"
#include "providers/model_config.h"
#include "providers/provider.h"

namespace kf::agent::search {

struct Opening {
  std::string system;
  std::string first_turn;
  int keep_last_attempts = 0;  // refine's conversation: the last k attempts (0: all)
  providers::CandidateFormat format = providers::CandidateFormat::kf_forward;
};

std::vector<providers::ChatMessage> messages_for(const Ask& ask, const History& history, const Opening& opening);

// The inspirations' part of an improve prompt ("" without any).
std::string inspiration_text(const std::vector<corpus::RecordId>& ids, const History& history,
                             providers::CandidateFormat format);

}  // namespace kf::agent::search
