#pragma once
// Pulls the candidate source out of a model's answer text. Only the answer is ever searched: a
// kernel sketched in reasoning text is not the model's submission.
#include <optional>
#include <string>
#include <vector>

#include "providers/model_config.h"

namespace kf::agent {

struct CodeBlock {
  std::string label;  // the fence's info string, first word, lower-cased ("" when unlabelled)
  std::string code;
  bool terminated = true;  // false when the answer ended inside the block (truncated reply)
};

// Every fenced block (``` or ~~~, three or more) in `answer`, in order.
std::vector<CodeBlock> fenced_blocks(const std::string& answer);

// True when `code` defines (not merely declares or calls) kf_forward.
bool defines_kf_forward(const std::string& code);

// True when `code` defines the class ModelNew (a line `class ModelNew(...)` or `class ModelNew:`), not
// merely uses it.
bool defines_model_new(const std::string& code);

struct Extraction {
  std::optional<std::string> source;  // set on success
  // On failure: "no_code_block", "no_kf_forward" or "no_model_new"; `message` is the text sent back to
  // the model.
  std::string failure;
  std::string message;
  int blocks_seen = 0;
};

// Considers blocks labelled cuda, cu, cpp, c++, cxx, cc, c or unlabelled. With several, takes the
// one that defines kf_forward (the last such block when more than one does).
Extraction extract_source(const std::string& answer);

// KernelBench's format: considers blocks labelled python, py, python3 or unlabelled, and takes the last
// one that defines ModelNew; a block the answer ended inside (a cut reply) only when no complete block
// defines it.
Extraction extract_model_new(const std::string& answer);

// extract_source for kf_forward, extract_model_new for the kernelbench formats.
Extraction extract_candidate(providers::CandidateFormat format, const std::string& answer);

}  // namespace kf::agent
