#include "agent/reverify.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "agent/corpus.h"
#include "cli/registry.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "evaluator/evaluator.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::optional<double> num(const nlohmann::json& j, const char* a, const char* b, const char* c) {
  if (!j.contains(a) || !j[a].is_object() || !j[a].contains(b) || !j[a][b].is_object()) return std::nullopt;
  const auto& x = j[a][b];
  if (!x.contains(c) || !x[c].is_number()) return std::nullopt;
  return x[c].get<double>();
}

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string interval_text(const std::optional<std::pair<double, double>>& i) {
  return i ? "[" + fmt(i->first, 3) + ", " + fmt(i->second, 3) + "]" : "-";
}

}  // namespace

std::optional<std::pair<double, double>> speedup_interval(const nlohmann::json& v) {
  if (!v.contains("checks") || !v["checks"].is_object()) return std::nullopt;
  const auto& t = v["checks"];
  auto c10 = num(t, "timing", "candidate_events", "p10_ms"), c90 = num(t, "timing", "candidate_events", "p90_ms");
  auto b10 = num(t, "timing", "baseline", "p10_ms"), b90 = num(t, "timing", "baseline", "p90_ms");
  if (!c10 || !c90 || !b10 || !b90 || *c10 <= 0 || *c90 <= 0) return std::nullopt;
  return std::make_pair(*b10 / *c90, *b90 / *c10);
}

std::string reverify_status(const nlohmann::json& claimed, const nlohmann::json& now) {
  if (!now.value("correct", false)) return "now_incorrect";
  auto ci = speedup_interval(claimed), ni = speedup_interval(now);
  if (ci && ni) return (ci->first <= ni->second && ni->first <= ci->second) ? "holds" : "not_reproduced";
  auto cs = claimed.value("speedup", nlohmann::json()), ns = now.value("speedup", nlohmann::json());
  if (!cs.is_number() || !ns.is_number()) return "holds";  // correctness re-verified; no timing to compare
  double a = cs.get<double>(), b = ns.get<double>();
  return std::fabs(a - b) <= 0.1 * std::max(a, b) ? "holds" : "not_reproduced";
}

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
  auto ev = eval::Evaluator::create(eo);
  if (!ev) {
    log::error(ev.error().message);
    return kExitHarness;
  }
  log::info("re-verifying " + std::to_string(kernels.size()) + " correct kernels from " + o.dir + " (backend " +
            backend_name + ", seed " + std::to_string(seed) + ")");

  nlohmann::json results = nlohmann::json::array();
  int holds = 0, failed = 0;
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
    auto ci = speedup_interval(claimed), ni = now.is_object() ? speedup_interval(now) : std::nullopt;
    res["claimed_interval"] = ci ? nlohmann::json::array({ci->first, ci->second}) : nlohmann::json(nullptr);
    res["interval"] = ni ? nlohmann::json::array({ni->first, ni->second}) : nlohmann::json(nullptr);
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
  if (!o.out.empty()) {
    nlohmann::json doc = {{"corpus", o.dir}, {"seed", seed}, {"backend", backend_name},
                          {"holds", holds},  {"not_holding", failed}, {"kernels", results}};
    if (auto env = (*ev)->environment(); env) doc["environment"] = env->to_json();
    if (auto st = write_file_atomic(o.out, doc.dump(2) + "\n"); !st) {
      log::error(st.error().message);
      return kExitHarness;
    }
  }
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace kf::agent
