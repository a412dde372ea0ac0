#pragma once
// Separates `<think>…</think>` reasoning from the answer in content streamed by OpenAI-compatible
// servers (DeepSeek-R1, Qwen3, QwQ … on vLLM, SGLang, Ollama, llama.cpp). Tags may be split across
// chunks. Many chat templates put the opening tag in the prompt, so the content then starts inside
// the reasoning: text before a lone `</think>` is reasoning too.
#include <string>
#include <string_view>

namespace kf::providers {

class ThinkTagSplitter {
 public:
  void feed(std::string_view chunk);
  // End of content: holds-back are flushed. Content that never contained a think tag is answer;
  // an unterminated `<think>` block is reasoning (the model ran out of tokens while thinking).
  void finish();

  const std::string& answer() const { return answer_; }
  const std::string& reasoning() const { return reasoning_; }

 private:
  enum class State { undecided, thinking, answering };
  void emit(std::string_view text);
  void on_open_tag();
  void on_close_tag();

  State state_ = State::undecided;
  std::string pending_;    // bytes that may be the start of a tag
  std::string undecided_;  // text before any tag: answer unless a lone </think> follows
  std::string answer_;
  std::string reasoning_;
  bool finished_ = false;
};

}  // namespace kf::providers
