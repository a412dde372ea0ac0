#include "agent/ahead_compiler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace kf::agent {
namespace {

using namespace std::chrono_literals;

struct Counts {
  std::mutex mu;
  std::map<std::string, int> n;
  void add(const std::string& s) {
    std::lock_guard lock(mu);
    ++n[s];
  }
};

TEST(AheadCompiler, EverySourceIsCompiledOnceAndAJudgeWaitsForTheOneUnderWay) {
  Counts c;
  std::vector<std::string> sources = {"a", "b", "", "d", "e", "f"};
  {
    AheadCompiler ahead(sources, 2, [&](const std::string& s) {
      std::this_thread::sleep_for(5ms);
      c.add(s);
    });
    for (size_t i = 0; i < sources.size(); ++i) {
      ahead.wait_for(i);
      std::lock_guard lock(c.mu);
      // Either compiled ahead (and finished) or left to the judge; never half-way.
      auto it = c.n.find(sources[i]);
      EXPECT_TRUE(it == c.n.end() || it->second == 1) << sources[i];
    }
  }
  for (const char* s : {"a", "b", "d", "e", "f"}) EXPECT_LE(c.n[s], 1) << s;
  EXPECT_EQ(c.n.count(""), 0u);  // nothing to compile for an empty entry
}

TEST(AheadCompiler, AnItemTheJudgeTookIsSkippedByTheThreads) {
  Counts c;
  std::atomic<bool> release{false};
  std::vector<std::string> sources = {"slow", "x", "y"};
  AheadCompiler ahead(sources, 1, [&](const std::string& s) {
    if (s == "slow")
      while (!release) std::this_thread::sleep_for(1ms);
    c.add(s);
  });
  std::this_thread::sleep_for(20ms);  // the one thread is inside "slow"
  ahead.wait_for(2);                  // "y" not started: the judge compiles it itself, at once
  release = true;
  ahead.wait_for(0);
  ahead.wait_for(1);
  std::lock_guard lock(c.mu);
  EXPECT_EQ(c.n["slow"], 1);
  EXPECT_EQ(c.n["y"], 0);
}

TEST(AheadCompiler, WithoutThreadsWaitingReturnsAtOnce) {
  AheadCompiler ahead({"a"}, 0, [](const std::string&) { FAIL() << "no thread should compile"; });
  ahead.wait_for(0);
  ahead.wait_for(7);
}

}  // namespace
}  // namespace kf::agent
