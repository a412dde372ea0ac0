#include "agent/campaign/ahead_compiler.h"

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
  // started/finished per source; a judge that finds a source not compiled compiles it itself, as reverify does.
  Counts started, finished;
  std::vector<std::string> sources = {"a", "b", "", "d", "e", "f", "g", "h"};
  auto compile = [&](const std::string& s) {
    started.add(s);
    std::this_thread::sleep_for(5ms);
    finished.add(s);
  };
  {
    AheadCompiler ahead(sources, 2, compile);
    for (size_t i = 0; i < sources.size(); ++i) {
      ahead.wait_for(i);
      if (sources[i].empty()) continue;
      int s = 0, f = 0;
      {
        std::scoped_lock lock(started.mu, finished.mu);
        s = started.n[sources[i]];
        f = finished.n[sources[i]];
      }
      EXPECT_EQ(s, f) << sources[i] << ": wait_for returned while its ahead compile was under way";
      if (s == 0) compile(sources[i]);
    }
  }
  for (const auto& s : sources) {
    if (s.empty()) continue;
    EXPECT_EQ(started.n[s], 1) << s << " compiled " << started.n[s] << " times";
  }
  EXPECT_EQ(started.n.count(""), 0u);  // nothing to compile for an empty entry
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
