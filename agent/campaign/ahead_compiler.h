#pragma once
// Compiles the sources of a list on CPU threads ahead of the evaluators that judge the list in order. A build
// of a KernelBench extension takes 10-70 s and its evaluation a few seconds, so without this the GPU waits for
// the compiler most of the time. compile() fills the compile cache that the evaluation then hits; a judge of
// item i first waits for an ahead compile of i that has already started (the same source is not built twice
// at once) and otherwise goes on and compiles it itself.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kf::agent {

class AheadCompiler {
 public:
  // sources[i] empty: nothing to compile for item i. jobs <= 0: no threads (wait_for returns at once).
  AheadCompiler(std::vector<std::string> sources, int jobs, std::function<void(const std::string&)> compile);
  ~AheadCompiler();  // the threads stop after their current compile
  AheadCompiler(const AheadCompiler&) = delete;
  AheadCompiler& operator=(const AheadCompiler&) = delete;

  void wait_for(size_t i);

  // Default threads: a quarter of the cores (each build runs a host and a device compiler at once), at least 1.
  static int default_jobs();

 private:
  void work();

  std::vector<std::string> sources_;
  std::function<void(const std::string&)> compile_;
  std::mutex mu_;
  std::condition_variable cv_;
  enum class State : char { pending, compiling, done, judge_compiles };
  size_t next_ = 0;  // no item below it is pending
  bool stopping_ = false;
  std::vector<State> state_;
  std::vector<std::thread> threads_;
};

}  // namespace kf::agent
