#include "agent/prompt/extract.h"

#include <algorithm>
#include <cctype>

namespace kf::agent {
namespace {

bool is_code_label(const std::string& label) {
  static const char* const kLabels[] = {"", "cuda", "cu", "cpp", "c++", "cxx", "cc", "c", "h", "hpp"};
  return std::any_of(std::begin(kLabels), std::end(kLabels), [&](const char* l) { return label == l; });
}

bool is_python_label(const std::string& label) {
  return label.empty() || label == "python" || label == "py" || label == "python3";
}

// Splits into lines keeping track of nothing else; '\r' before '\n' is dropped.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

// A fence line: up to 3 spaces of indentation, then 3+ backticks or tildes. Returns the fence
// character and length, and the info string after it.
bool parse_fence(const std::string& line, char& ch, size_t& len, std::string& info) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  ch = line[i];
  size_t j = i;
  while (j < line.size() && line[j] == ch) ++j;
  len = j - i;
  if (len < 3) return false;
  info = line.substr(j);
  return true;
}

std::string first_word_lower(const std::string& info) {
  size_t b = info.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = info.find_first_of(" \t{", b);
  std::string w = info.substr(b, e == std::string::npos ? std::string::npos : e - b);
  std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return w;
}

}  // namespace

std::vector<CodeBlock> fenced_blocks(const std::string& answer) {
  std::vector<CodeBlock> blocks;
  auto lines = split_lines(answer);
  for (size_t i = 0; i < lines.size(); ++i) {
    char ch;
    size_t len;
    std::string info;
    if (!parse_fence(lines[i], ch, len, info)) continue;
    if (ch == '`' && info.find('`') != std::string::npos) continue;  // inline code, not a fence
    CodeBlock block;
    block.label = first_word_lower(info);
    block.terminated = false;
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      char ch2;
      size_t len2;
      std::string info2;
      if (parse_fence(lines[j], ch2, len2, info2) && ch2 == ch && len2 >= len &&
          info2.find_first_not_of(" \t") == std::string::npos) {
        block.terminated = true;
        break;
      }
      block.code += lines[j];
      block.code += '\n';
    }
    blocks.push_back(std::move(block));
    i = j;
  }
  return blocks;
}

bool defines_kf_forward(const std::string& code) {
  const std::string name = "kf_forward";
  for (size_t pos = code.find(name); pos != std::string::npos; pos = code.find(name, pos + 1)) {
    if (pos > 0 && (std::isalnum(static_cast<unsigned char>(code[pos - 1])) || code[pos - 1] == '_')) continue;
    size_t i = pos + name.size();
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i >= code.size() || code[i] != '(') continue;
    int depth = 0;
    for (; i < code.size(); ++i) {
      if (code[i] == '(') ++depth;
      if (code[i] == ')' && --depth == 0) break;
    }
    if (i >= code.size()) continue;
    ++i;
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i < code.size() && code[i] == '{') return true;
  }
  return false;
}

Extraction extract_source(const std::string& answer) {
  Extraction ex;
  std::vector<CodeBlock> candidates;
  for (auto& b : fenced_blocks(answer))
    if (is_code_label(b.label)) candidates.push_back(std::move(b));
  ex.blocks_seen = static_cast<int>(candidates.size());
  if (candidates.empty()) {
    ex.failure = "no_code_block";
    ex.message = "Your answer contained no fenced code block with C++ or CUDA source, so there was nothing to compile.";
    return ex;
  }
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if (defines_kf_forward(it->code)) {
      ex.source = it->code;
      return ex;
    }
  }
  ex.failure = "no_kf_forward";
  ex.message = candidates.size() == 1 ? "Your code block does not define kf_forward, so it cannot be called."
                                      : "None of your " + std::to_string(candidates.size()) +
                                            " code blocks defines kf_forward, so none of them can be called.";
  return ex;
}

bool defines_model_new(const std::string& code) {
  for (const auto& raw : split_lines(code)) {
    size_t i = raw.find_first_not_of(" \t");
    if (i == std::string::npos || raw.compare(i, 5, "class") != 0) continue;
    i += 5;
    const size_t name = raw.find_first_not_of(" \t", i);
    if (name == i || name == std::string::npos || raw.compare(name, 8, "ModelNew") != 0) continue;
    const size_t after = raw.find_first_not_of(" \t", name + 8);
    if (after != std::string::npos && (raw[after] == '(' || raw[after] == ':')) return true;
  }
  return false;
}

Extraction extract_model_new(const std::string& answer) {
  Extraction ex;
  std::vector<CodeBlock> candidates;
  std::vector<std::string> ignored;  // labels of blocks that are not Python
  for (auto& b : fenced_blocks(answer)) {
    if (is_python_label(b.label))
      candidates.push_back(std::move(b));
    else if (std::find(ignored.begin(), ignored.end(), b.label) == ignored.end())
      ignored.push_back(b.label);
  }
  ex.blocks_seen = static_cast<int>(candidates.size());
  if (candidates.empty()) {
    ex.failure = "no_code_block";
    ex.message = "Your answer contained no fenced ```python code block, so there was no solution file to evaluate.";
    if (!ignored.empty()) {
      std::string labels;
      for (const auto& l : ignored) labels += (labels.empty() ? "" : ", ") + l;
      ex.message += " Blocks labelled " + labels +
                    " are not read: the solution is one complete Python file, with any kernel source inside it.";
    }
    return ex;
  }
  const CodeBlock* cut = nullptr;
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if (!defines_model_new(it->code)) continue;
    if (it->terminated) {
      ex.source = it->code;
      return ex;
    }
    if (!cut) cut = &*it;
  }
  if (cut) {
    ex.source = cut->code;
    return ex;
  }
  ex.failure = "no_model_new";
  ex.message = candidates.size() == 1
                   ? "Your python code block does not define class ModelNew, so there is no model to evaluate."
                   : "None of your " + std::to_string(candidates.size()) +
                         " python code blocks defines class ModelNew, so there is no model to evaluate.";
  return ex;
}

Extraction extract_candidate(providers::CandidateFormat format, const std::string& answer) {
  return format == providers::CandidateFormat::kf_forward ? extract_source(answer) : extract_model_new(answer);
}

}  // namespace kf::agent
