#include "agent/prompt/conversation.h"

namespace kf::agent {

std::vector<providers::ChatMessage> build_messages(const std::string& system, const std::string& first_turn,
                                                   const std::vector<Attempt>& attempts, int keep_last) {
  std::vector<providers::ChatMessage> messages;
  if (!system.empty()) messages.push_back({"system", system});
  messages.push_back({"user", first_turn});
  size_t from = 0;
  if (keep_last > 0 && attempts.size() > static_cast<size_t>(keep_last)) from = attempts.size() - keep_last;
  for (size_t i = from; i < attempts.size(); ++i) {
    messages.push_back({"assistant", attempts[i].answer});
    messages.push_back({"user", attempts[i].feedback});
  }
  return messages;
}

}  // namespace kf::agent
