#include "agent/scheduler.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "core/log.h"

namespace kf::agent {

UnitPlan plan_units(const std::vector<std::string>& config_names, const std::vector<int>& samples,
                    const std::vector<std::string>& problem_names, const corpus::Shard& shard,
                    std::map<UnitKey, std::vector<corpus::Record>>& prior,
                    const std::function<UnitJob(size_t, size_t, int)>& make_job) {
  UnitPlan plan;
  plan.queues.resize(config_names.size());
  for (size_t pi = 0; pi < problem_names.size(); ++pi)
    for (size_t ci = 0; ci < config_names.size(); ++ci)
      for (int s = 0; s < samples[ci]; ++s) {
        UnitKey key{config_names[ci], problem_names[pi], s};
        if (!shard.owns(key)) continue;
        ++plan.total_units;
        auto it = prior.find(key);
        if (it != prior.end() && unit_finished(it->second)) {
          ++plan.already_done;
          if (std::any_of(it->second.begin(), it->second.end(), [](const auto& r) { return r.correct(); }))
            ++plan.already_correct;
          continue;
        }
        UnitJob job = make_job(ci, pi, s);
        if (it != prior.end()) job.prior_records = std::move(it->second);
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
