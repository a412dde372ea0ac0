#include "agent/reverify.h"

#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "agent/corpus.h"
#include "agent/reverify_rule.h"
#include "cli/registry.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "evaluator/evaluator.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string interval_text(const std::optional<SpeedupInterval>& i) {
  return i ? "[" + fmt(i->low, 3) + ", " + fmt(i->high, 3) + "]" : "-";
}

nlohmann::json interval_json(const std::optional<SpeedupInterval>& i) {
  return i ? nlohmann::json::array({i->low, i->high}) : nlohmann::json(nullptr);
}

}  // namespace

int run_reverify(const ReverifyOptions& o) {
  using namespace kf::cli;
  auto corpus = load_corpus(o.dir);
  if (!corpus) {
    log::error(corpus.error().message);
    return kExitUsage;
  }
  std::vector<const nlohmann::json*> kernels;
  std::string backend_name = o.backend;
  for (const auto& r : corpus->records) {
    if (!record_correct(r)) continue;
    if (o.best_only && !r.value("best", false)) continue;
    kernels.push_back(&r);
    if (backend_name.empty() && r.contains("environment")) backend_name = r["environment"].value("backend", "");
  }
  if (backend_name.empty()) backend_name = "cuda";
  auto backend = eval::parse_backend(backend_name);
  if (!backend) {
    log::error(backend.error().message);
    return kExitUsage;
  }
  uint64_t seed = o.seed ? *o.seed : (static_cast<uint64_t>(std::random_device{}()) << 16) ^ 0x5eed;
  eval::EvaluatorOptions eo;
  eo.backend = *backend;
  eo.python = o.python;
  eo.seed = seed;
  eo.allow_vendor_libs = o.allow_vendor_libs;
  eo.allow_reduced_precision = o.allow_reduced_precision;
  auto ev = eval::Evaluator::create(eo);
  if (!ev) {
    log::error(ev.error().message);
    return kExitHarness;
  }
  log::info("re-verifying " + std::to_string(kernels.size()) + " correct kernels from " + o.dir + " (backend " +
            backend_name + ", seed " + std::to_string(seed) + ")");

  nlohmann::json results = nlohmann::json::array();
  int holds = 0, failed = 0, claimed_faster = 0, verified = 0;
  std::printf("| config | problem | sample | turn | claimed | claimed spread | now | now spread | status |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const auto* r : kernels) {
    const auto& claimed = (*r)["verdict"];
    nlohmann::json res = {{"config", r->value("config", "")},
                          {"problem", (*r)["problem"]},
                          {"sample", r->value("sample", 0)},
                          {"turn", r->value("turn", 0)},
                          {"best", r->value("best", false)},
                          {"claimed_speedup", claimed.value("speedup", nlohmann::json())}};
    std::string status;
    nlohmann::json now;
    const std::string problem_path = (*r)["problem"].value("path", "");
    const std::string source_rel = (*r)["source"].is_object() ? (*r)["source"].value("path", "") : "";
    auto phash = sha256_file(problem_path);
    auto source = read_file((fs::path(o.dir) / source_rel).string());
    if (!phash || *phash != (*r)["problem"].value("file_hash", "")) {
      status = "problem_changed";
      res["detail"] = "problem file '" + problem_path + "' is missing or no longer matches the recorded hash";
    } else if (!source || sha256_hex(*source) != (*r)["source"].value("sha256", "")) {
      status = "source_missing";
      res["detail"] = "source '" + source_rel + "' is missing or no longer matches the recorded hash";
    } else {
      auto v = (*ev)->evaluate_file(problem_path, fs::absolute(fs::path(o.dir) / source_rel).string());
      now = v.to_json();
      status = v.verdict == "harness_error" ? "harness_error" : reverify_status(claimed, now);
      res["verdict"] = now;
      res["speedup"] = now.value("speedup", nlohmann::json());
    }
    res["status"] = status;
    if (status == "holds") ++holds;
    else ++failed;
    // The claim as `kforge report` now counts it: interval above 1.0 and held here.
    const auto judged = VerifiedSpeedupRule::judge_verdict(claimed, status);
    res["speedup_check"] = to_string(judged.check);
    if (judged.faster()) ++claimed_faster;
    if (judged.verified()) ++verified;
    auto ci = judged.interval, ni = now.is_object() ? speedup_interval(now) : std::nullopt;
    res["claimed_interval"] = interval_json(ci);
    res["interval"] = interval_json(ni);
    auto sp = [](const nlohmann::json& x) { return x.is_number() ? fmt(x.get<double>(), 3) + "x" : std::string("-"); };
    std::printf("| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", res["config"].get<std::string>().c_str(),
                (*r)["problem"].value("name", "").c_str(), res["sample"].get<int>(), res["turn"].get<int>(),
                sp(res["claimed_speedup"]).c_str(), interval_text(ci).c_str(),
                sp(res.value("speedup", nlohmann::json())).c_str(), interval_text(ni).c_str(), status.c_str());
    std::fflush(stdout);
    results.push_back(res);
  }
  std::printf("\n%d of %zu claimed speedups hold within the measured spread; %d do not.\n", holds, kernels.size(),
              failed);
  std::printf("%d of the %d kernels claimed faster than the baseline are verified speedups (interval above 1.0 "
              "and held here).\n",
              verified, claimed_faster);
  std::fflush(stdout);
  nlohmann::json doc = {{"corpus", o.dir},      {"seed", seed},         {"backend", backend_name},
                        {"holds", holds},       {"not_holding", failed}, {"claimed_faster", claimed_faster},
                        {"verified_speedups", verified}, {"recorded_at", utc_now_iso()}, {"kernels", results}};
  if (auto env = (*ev)->environment(); env) doc["environment"] = env->to_json();
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
