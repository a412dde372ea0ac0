#pragma once
// The conversation of one (problem, configuration, sample): the opening messages plus one
// (reply, feedback) pair per attempt, optionally trimmed to the last k attempts.
#include <string>
#include <vector>

#include "providers/provider.h"

namespace kf::agent {

struct Attempt {
  std::string answer;    // the model's answer text (reasoning is never sent back)
  std::string feedback;  // the user message that answered it
};

// [system, first_turn] followed by assistant/user pairs of the last `keep_last` attempts
// (0 = all of them).
std::vector<providers::ChatMessage> build_messages(const std::string& system, const std::string& first_turn,
                                                   const std::vector<Attempt>& attempts, int keep_last);

}  // namespace kf::agent
