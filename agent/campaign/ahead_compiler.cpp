#include "agent/campaign/ahead_compiler.h"

#include <algorithm>

namespace kf::agent {

AheadCompiler::AheadCompiler(std::vector<std::string> sources, int jobs,
                             std::function<void(const std::string&)> compile)
    : sources_(std::move(sources)), compile_(std::move(compile)), state_(sources_.size(), State::pending) {
  for (int j = 0; j < jobs; ++j) threads_.emplace_back([this] { work(); });
}

AheadCompiler::~AheadCompiler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  for (auto& t : threads_) t.join();
}

int AheadCompiler::default_jobs() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 4); }

void AheadCompiler::work() {
  for (;;) {
    size_t i;
    {
      std::lock_guard lock(mu_);
      while (next_ < state_.size() && state_[next_] != State::pending) ++next_;
      if (stopping_ || next_ >= state_.size()) return;
      i = next_++;
      state_[i] = State::compiling;
    }
    try {
      if (!sources_[i].empty()) compile_(sources_[i]);
    } catch (...) {
      // The judge compiles it again and reports what went wrong.
    }
    {
      std::lock_guard lock(mu_);
      state_[i] = State::done;
    }
    cv_.notify_all();
  }
}

void AheadCompiler::wait_for(size_t i) {
  std::unique_lock lock(mu_);
  if (threads_.empty() || i >= state_.size()) return;
  if (state_[i] == State::pending) {
    state_[i] = State::judge_compiles;  // not started: the judge compiles it itself, the threads skip it
    return;
  }
  cv_.wait(lock, [&] { return state_[i] != State::compiling; });
}

}  // namespace kf::agent
