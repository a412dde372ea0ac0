#include "agent/campaign/scheduler.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "core/log.h"
#include "corpus/reader.h"

namespace kf::agent {

void PriorUnits::add(const corpus::RecordSummary& r, std::string_view line) {
  if (auto done = finished.find(r.key); done != finished.end()) {
    done->second = done->second || r.correct;
    return;
  }
  if (r.kind != corpus::Kind::unit_done) {
    open_lines_[r.key].emplace_back(line);
    open_correct_[r.key] = open_correct_[r.key] || r.correct;
    return;
  }
  finished[r.key] = open_correct_[r.key] || r.correct;
  open_lines_.erase(r.key);
  open_correct_.erase(r.key);
}

Status PriorUnits::finish() {
  for (auto& [key, lines] : open_lines_) {
    auto& records = open[key];
    for (const auto& line : lines) {
      auto r = corpus::parse_record_line(line);
      if (!r) return r.error();
      records.push_back(std::move(*r));
    }
  }
  open_lines_.clear();
  open_correct_.clear();
  return ok_status();
}

UnitPlan plan_units(const std::vector<std::string>& config_names, const std::vector<int>& samples,
                    const std::vector<std::string>& problem_names, const corpus::Shard& shard, PriorUnits& prior,
                    const std::function<UnitJob(size_t, size_t, int)>& make_job) {
  UnitPlan plan;
  plan.queues.resize(config_names.size());
  for (size_t pi = 0; pi < problem_names.size(); ++pi)
    for (size_t ci = 0; ci < config_names.size(); ++ci)
      for (int s = 0; s < samples[ci]; ++s) {
        UnitKey key{config_names[ci], problem_names[pi], s};
        if (!shard.owns(key)) continue;
        ++plan.total_units;
        if (auto done = prior.finished.find(key); done != prior.finished.end()) {
          ++plan.already_done;
          if (done->second) ++plan.already_correct;
          continue;
        }
        UnitJob job = make_job(ci, pi, s);
        if (auto it = prior.open.find(key); it != prior.open.end()) job.prior_records = std::move(it->second);
        plan.queues[ci].push_back(std::move(job));
      }
  return plan;
}

SchedulerResult run_units(std::vector<std::deque<UnitJob>>& queues, const std::vector<int>& workers) {
  std::mutex queue_mu;
  std::atomic<int> provider_failed{0}, harness_failed{0}, stopped{0};
  std::atomic<bool> fatal{false};
  std::vector<std::thread> threads;
  for (size_t ci = 0; ci < queues.size(); ++ci) {
    const int n = std::min<int>(std::max(1, workers[ci]), static_cast<int>(queues[ci].size()));
    for (int w = 0; w < n; ++w)
      threads.emplace_back([&, ci] {
        while (!fatal) {
          UnitJob job;
          {
            std::lock_guard lock(queue_mu);
            if (queues[ci].empty()) return;
            job = std::move(queues[ci].front());
            queues[ci].pop_front();
          }
          auto outcome = run_unit(job);
          if (!outcome) {
            log::error(job.key.file_stem() + ": " + outcome.error().message);
            fatal = true;
            return;
          }
          if (*outcome == UnitOutcome::provider_failed) ++provider_failed;
          if (*outcome == UnitOutcome::harness_failed) ++harness_failed;
          if (*outcome == UnitOutcome::stopped) ++stopped;
        }
      });
  }
  for (auto& t : threads) t.join();
  return {provider_failed.load(), harness_failed.load(), stopped.load(), fatal.load()};
}

}  // namespace kf::agent
