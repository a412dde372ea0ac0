// Per-unit budgets (loop.budget.*): evaluations are never exceeded (a round asks at most what is left); tokens and
// dollars are checked again before every call, so only calls already on the wire can exceed them; GPU-seconds
// (the evaluator's time per evaluation) are known only once judged, so they end the search between rounds.
#include <algorithm>

#include "agent/search/stop_rule.h"

namespace kf::agent::search {
namespace {

class EvaluationBudget final : public StopRule {
 public:
  explicit EvaluationBudget(int n) : n_(n) {}
  std::optional<std::string> reached(const History& h) const override {
    if (h.spend().evaluations >= n_) return "budget_evaluations";
    return std::nullopt;
  }
  int evaluations_left(const History& h) const override { return std::max(0, n_ - h.spend().evaluations); }

 private:
  int n_;
};

class TokenBudget final : public StopRule {
 public:
  explicit TokenBudget(int64_t n) : n_(n) {}
  std::optional<std::string> reached(const History& h) const override { return refuses_call(h.spend()); }
  std::optional<std::string> refuses_call(const Spend& s) const override {
    if (s.tokens >= n_) return "budget_tokens";
    return std::nullopt;
  }

 private:
  int64_t n_;
};

class UsdBudget final : public StopRule {
 public:
  explicit UsdBudget(double usd) : usd_(usd) {}
  std::optional<std::string> reached(const History& h) const override { return refuses_call(h.spend()); }
  std::optional<std::string> refuses_call(const Spend& s) const override {
    if (s.usd >= usd_) return "budget_usd";
    return std::nullopt;
  }

 private:
  double usd_;
};

class GpuSecondsBudget final : public StopRule {
 public:
  explicit GpuSecondsBudget(double seconds) : seconds_(seconds) {}
  std::optional<std::string> reached(const History& h) const override {
    if (h.spend().gpu_seconds >= seconds_) return "budget_gpu_seconds";
    return std::nullopt;
  }

 private:
  double seconds_;
};

class RoundsLimit final : public StopRule {
 public:
  RoundsLimit(int rounds, std::string reason) : rounds_(rounds), reason_(std::move(reason)) {}
  std::optional<std::string> reached(const History& h) const override {
    if (h.rounds_done() >= rounds_) return reason_;
    return std::nullopt;
  }

 private:
  int rounds_;
  std::string reason_;
};

}  // namespace

std::unique_ptr<StopRule> evaluation_budget(int n) { return std::make_unique<EvaluationBudget>(n); }
std::unique_ptr<StopRule> token_budget(int64_t n) { return std::make_unique<TokenBudget>(n); }
std::unique_ptr<StopRule> usd_budget(double usd) { return std::make_unique<UsdBudget>(usd); }
std::unique_ptr<StopRule> gpu_seconds_budget(double s) { return std::make_unique<GpuSecondsBudget>(s); }
std::unique_ptr<StopRule> rounds_limit(int rounds, std::string reason) {
  return std::make_unique<RoundsLimit>(rounds, std::move(reason));
}

}  // namespace kf::agent::search
