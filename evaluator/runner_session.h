#pragma once
// The supervisor's side of one kforge-runner process: launch, request/response over two pipes, and a
// deadline for the whole evaluation; on expiry the runner's process tree is killed.
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "core/result.h"

namespace kf::eval {

struct RunnerEnd {
  enum class Kind { reply, crashed, timeout } kind = Kind::reply;
  nlohmann::json reply;      // kind == reply: the runner's JSON (ok true or false)
  int signal = 0;            // crashed: terminating signal (0: exited)
  int exit_code = 0;
  std::string stderr_tail;
};

class RunnerSession {
 public:
  ~RunnerSession();
  Status start(const std::string& runner, const std::string& job_dir, std::map<std::string, std::string> env,
               double deadline_s);
  // Sends one command and waits for the answer (or the crash, or the deadline).
  RunnerEnd exchange(const nlohmann::json& cmd);
  void finish();           // asks the runner to exit, then makes sure nothing of it survives
  bool tree_empty() const { return tree_empty_; }

 private:
  RunnerEnd ended();
  pid_t pid_ = -1;
  int cmd_fd_ = -1, report_fd_ = -1;
  double deadline_ = 0;
  std::string pending_, stderr_path_;
  bool tree_empty_ = true;
};

}  // namespace kf::eval
