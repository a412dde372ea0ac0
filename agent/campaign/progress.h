#pragma once
// What a campaign tells its user while it runs: one log line per record, and on a terminal a \r progress
// line (units, correct, evaluations, spend, elapsed, ETA) refreshed every second.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "corpus/record.h"

namespace kf::agent {

struct ProgressCounts {
  int total_units = 0;
  int units_done = 0;  // earlier sessions included
  int units_correct = 0;
  int evaluations = 0;  // this session
  double cost_usd = 0;  // this shard's records, earlier sessions included
  int64_t tokens = 0;
};

class ProgressPrinter {
 public:
  // `line` false: plain log lines only (no \r line even on a terminal).
  ProgressPrinter(ProgressCounts start, bool line);
  ~ProgressPrinter();
  void start();  // starts the refresh thread (a terminal only)
  void stop();   // stops it and clears the line
  void on_record(const corpus::Record& record);
  std::string text();
  ProgressCounts counts();

 private:
  std::mutex mu_, print_mu_;
  ProgressCounts c_;
  int done_this_session_ = 0;
  bool tty_ = false;
  std::chrono::steady_clock::time_point started_;
  std::atomic<bool> finished_{false};
  std::thread refresher_;
};

}  // namespace kf::agent
