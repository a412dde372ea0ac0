#include "agent/search/ask_messages.h"

#include <cmath>
#include <cstdio>

#include "agent/prompt/conversation.h"
#include "agent/prompt/extract.h"

namespace kf::agent::search {
namespace {

std::string figures(const Judged& j) {
  char buf[160];
  std::string out;
  if (j.speedup) {
    std::snprintf(buf, sizeof buf, "speedup %.2fx", *j.speedup);
    out = buf;
  }
  if (j.peak_fraction && !j.bound_by.empty()) {
    std::snprintf(buf, sizeof buf, "%s%.0f%% of the %s bound", out.empty() ? "" : ", ",
                  std::round(*j.peak_fraction * 100), j.bound_by.c_str());
    out += buf;
  }
  return out.empty() ? "correct" : out;
}

}  // namespace

std::string inspiration_text(const std::vector<corpus::RecordId>& ids, const History& history,
                             providers::CandidateFormat format) {
  std::string text;
  for (const auto& id : ids) {
    const Judged* j = history.find(id);
    if (!j) continue;
    const Extraction ex = extract_candidate(format, j->answer);
    if (!ex.source) continue;
    text += "\nA kernel of turn " + std::to_string(id.turn) + " (" + figures(*j) + "):\n```\n" + *ex.source +
            (ex.source->empty() || ex.source->back() == '\n' ? "" : "\n") + "```\n";
  }
  if (text.empty()) return "";
  return "\nFor inspiration, other correct kernels of this problem with their measured figures:\n" + text;
}

std::vector<providers::ChatMessage> messages_for(const Ask& ask, const History& history, const Opening& o) {
  std::vector<Attempt> attempts;
  if (ask.prompt == Ask::Prompt::conversation) {
    for (const auto& j : history.judged()) attempts.push_back({j.answer, j.feedback});
    return build_messages(o.system, o.first_turn, attempts, o.keep_last_attempts);
  }
  const Judged* parent = ask.parents.empty() ? nullptr : history.find(ask.parents.front());
  if (ask.prompt == Ask::Prompt::improve && parent)
    attempts.push_back({parent->answer, parent->feedback + inspiration_text(ask.inspirations, history, o.format)});
  return build_messages(o.system, o.first_turn, attempts, 0);
}

}  // namespace kf::agent::search
