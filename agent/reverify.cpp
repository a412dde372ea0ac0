#include "agent/reverify.h"

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "agent/evaluator_pool.h"
#include "agent/reverify_rule.h"
#include "core/exit_codes.h"
#include "core/files.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/log.h"
#include "corpus/reader.h"
#include "evaluator/evaluator.h"
#include "evaluator/pool.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::string interval_text(const std::optional<SpeedupInterval>& i) {
  return i ? "[" + format_fixed(i->low, 3) + ", " + format_fixed(i->high, 3) + "]" : "-";
}

nlohmann::json interval_json(const std::optional<SpeedupInterval>& i) {
  return i ? nlohmann::json::array({i->low, i->high}) : nlohmann::json(nullptr);
}

std::string speedup_text(const nlohmann::json& x) {
  return x.is_number() ? format_fixed(x.get<double>(), 3) + "x" : std::string("-");
}

// One kernel's re-judgement (judged by whichever evaluator of the pool is free).
struct Rejudged {
  nlohmann::json result;
  std::optional<SpeedupInterval> claimed_interval, interval;
  SpeedupJudgement judged;
};

Rejudged rejudge(const corpus::Record& r, const std::string& dir, eval::EvaluatorPool& pool) {
  const auto& claimed = r.verdict;
  Rejudged out;
  nlohmann::json& res = out.result;
  res = {{"config", r.config},
         {"problem",
          {{"name", r.problem.name}, {"file_hash", r.problem.file_hash}, {"category", r.problem.category},
           {"path", r.problem.path}}},
         {"sample", r.sample},
         {"turn", r.turn},
         {"best", r.best},
         {"claimed_speedup", claimed.value("speedup", nlohmann::json())}};
  std::string status;
  nlohmann::json now;
  const std::string source_rel = r.source ? r.source->path : "";
  auto phash = sha256_file(r.problem.path);
  auto source = read_file((fs::path(dir) / source_rel).string());
  if (!phash || *phash != r.problem.file_hash) {
    status = "problem_changed";
    res["detail"] = "problem file '" + r.problem.path + "' is missing or no longer matches the recorded hash";
  } else if (!source || !r.source || sha256_hex(*source) != r.source->sha256) {
    status = "source_missing";
    res["detail"] = "source '" + source_rel + "' is missing or no longer matches the recorded hash";
  } else {
    auto lease = pool.acquire();
    auto v = lease.evaluator().evaluate_file(r.problem.path, fs::absolute(fs::path(dir) / source_rel).string());
    res["evaluator"] = evaluator_ref(lease.slot()).to_json();
    now = v.to_json();
    status = v.verdict == "harness_error" ? "harness_error" : reverify_status(claimed, now);
    res["verdict"] = now;
    res["speedup"] = now.value("speedup", nlohmann::json());
  }
  res["status"] = status;
  // The claim as `kforge report` now counts it: interval above 1.0 and held here.
  out.judged = VerifiedSpeedupRule::judge_verdict(claimed, status);
  res["speedup_check"] = to_string(out.judged.check);
  out.claimed_interval = out.judged.interval;
  out.interval = now.is_object() ? speedup_interval(now) : std::nullopt;
  res["claimed_interval"] = interval_json(out.claimed_interval);
  res["interval"] = interval_json(out.interval);
  return out;
}

}  // namespace

int run_reverify(const ReverifyOptions& o) {
  auto corpus = corpus::load(o.dir);
  if (!corpus) {
    log::error(corpus.error().message);
    return kExitUsage;
  }
  std::vector<const corpus::Record*> kernels;
  std::string backend_name = o.backend;
  for (const auto& r : corpus->records) {
    if (!r.correct()) continue;
    if (o.best_only && !r.best) continue;
    kernels.push_back(&r);
    if (backend_name.empty() && r.environment) backend_name = r.environment->backend;
  }
  if (backend_name.empty()) backend_name = "cuda";
  auto backend = eval::parse_backend(backend_name);
  if (!backend) {
    log::error(backend.error().message);
    return kExitUsage;
  }
  std::vector<eval::GpuDevice> gpus;
  if (*backend == eval::Backend::cuda) {
    auto visible = eval::visible_gpus();
    if (!visible) {
      log::error(visible.error().message);
      return kExitHarness;
    }
    gpus = *visible;
  }
  auto slots = eval::plan_evaluators(*backend, o.gpus, o.evaluators, gpus);
  if (!slots) {
    log::error(slots.error().message);
    return kExitUsage;
  }
  uint64_t seed = o.seed ? *o.seed : (static_cast<uint64_t>(std::random_device{}()) << 16) ^ 0x5eed;
  eval::EvaluatorOptions eo;
  eo.backend = *backend;
  eo.python = o.python;
  eo.seed = seed;
  eo.allow_vendor_libs = o.allow_vendor_libs;
  eo.allow_reduced_precision = o.allow_reduced_precision;
  auto pool = eval::EvaluatorPool::create(eo, *slots);
  if (!pool) {
    log::error(pool.error().message);
    return kExitHarness;
  }
  log::info("re-verifying " + std::to_string(kernels.size()) + " correct kernels from " + o.dir + " (backend " +
            backend_name + ", seed " + std::to_string(seed) + ", " + std::to_string((*pool)->size()) +
            " evaluator(s))");

  // Workers take kernels in corpus order; rows print in that order as soon as each one's turn comes.
  std::vector<std::optional<Rejudged>> done(kernels.size());
  nlohmann::json results = nlohmann::json::array();
  int holds = 0, failed = 0, claimed_faster = 0, verified = 0;
  std::mutex mu;
  size_t next = 0, printed = 0;
  auto print_ready = [&] {  // under mu
    for (; printed < kernels.size() && done[printed]; ++printed) {
      const auto& d = *done[printed];
      const auto& res = d.result;
      const std::string status = res["status"];
      if (status == "holds") ++holds;
      else ++failed;
      if (d.judged.faster()) ++claimed_faster;
      if (d.judged.verified()) ++verified;
      std::printf("| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", res["config"].get<std::string>().c_str(),
                  kernels[printed]->problem.name.c_str(), res["sample"].get<int>(), res["turn"].get<int>(),
                  speedup_text(res["claimed_speedup"]).c_str(), interval_text(d.claimed_interval).c_str(),
                  speedup_text(res.value("speedup", nlohmann::json())).c_str(), interval_text(d.interval).c_str(),
                  status.c_str());
      std::fflush(stdout);
      results.push_back(res);
    }
  };
  std::printf("| config | problem | sample | turn | claimed | claimed spread | now | now spread | status |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::thread> workers;
  for (size_t w = 0; w < std::min((*pool)->size(), kernels.size()); ++w)
    workers.emplace_back([&] {
      while (true) {
        size_t i;
        {
          std::lock_guard lock(mu);
          if (next >= kernels.size()) return;
          i = next++;
        }
        Rejudged r = rejudge(*kernels[i], o.dir, **pool);
        std::lock_guard lock(mu);
        done[i] = std::move(r);
        print_ready();
      }
    });
  for (auto& t : workers) t.join();

  std::printf("\n%d of %zu claimed speedups hold within the measured spread; %d do not.\n", holds, kernels.size(),
              failed);
  std::printf("%d of the %d kernels claimed faster than the baseline are verified speedups (interval above 1.0 "
              "and held here).\n",
              verified, claimed_faster);
  std::fflush(stdout);
  nlohmann::json doc = {{"corpus", o.dir},      {"seed", seed},         {"backend", backend_name},
                        {"holds", holds},       {"not_holding", failed}, {"claimed_faster", claimed_faster},
                        {"verified_speedups", verified}, {"recorded_at", corpus::utc_now_iso()},
                        {"kernels", results}};
  if (auto env = (*pool)->evaluator(0).environment(); env) doc["environment"] = env->to_json();
  doc["evaluators"] = nlohmann::json::array();
  for (size_t i = 0; i < (*pool)->size(); ++i) doc["evaluators"].push_back(evaluator_ref((*pool)->slot(i)).to_json());
  const std::string text = doc.dump(2) + "\n";
  std::vector<std::string> files = {(fs::path(o.dir) / kReverifyFile).string()};
  if (!o.out.empty()) files.push_back(o.out);
  for (const auto& file : files)
    if (auto st = write_file_atomic(file, text); !st) {
      log::error(st.error().message);
      return kExitHarness;
    }
  log::info("results: " + files.front() + " (read by `kforge report " + o.dir + "`)");
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace kf::agent
