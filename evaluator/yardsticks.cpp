// The yardsticks of a correct candidate: its speedup over each baseline (eager, torch.compile of the
// reference) and its time against the roofline (docs/evaluator.md, "Yardsticks").
#include "core/time.h"
#include "evaluator/evaluator_impl.h"

namespace kf::eval {

bool Evaluator::Impl::times_compile_baseline() const {
  if (opt.baseline == "compile" || opt.compile_baseline == "on") return true;
  if (opt.compile_baseline == "off") return false;
  return opt.backend == Backend::cuda;  // auto
}

Result<nlohmann::json> Evaluator::Impl::compile_reference(const std::string& key, const Plan& plan, bool* cached) {
  const std::string compiled_key = key + "|" + opt.compile_mode;
  *cached = true;
  if (auto it = compiled_references.find(compiled_key); it != compiled_references.end()) return it->second;
  *cached = false;
  auto r = ask({{"op", "compile_baseline"}, {"mode", opt.compile_mode}, {"slots", plan.slots}});
  if (!r.ok()) return r.error();
  compiled_references[compiled_key] = *r;
  return *r;
}

Result<DevicePeaks> Evaluator::Impl::device_peaks_measured() {
  if (peaks) return *peaks;
  auto r = ask({{"op", "peaks"}, {"backend", to_string(opt.backend)}});
  if (!r.ok()) return r.error();
  std::optional<double> bw;
  if ((*r)["copy_gbps"].is_number()) bw = (*r)["copy_gbps"].get<double>();
  std::map<std::string, double> tflops;
  if ((*r)["matmul_tflops"].is_object())
    for (const auto& [dtype, t] : (*r)["matmul_tflops"].items())
      if (t.is_number() && t.get<double>() > 0) tflops[dtype] = t.get<double>();
  peaks = device_peaks(r->value("device", ""), opt.backend == Backend::cuda, bw, tflops);
  if (opt.backend == Backend::cuda && bw && !bandwidth) bandwidth = bw;
  return *peaks;
}

Result<Roofline> Evaluator::Impl::problem_roofline(const std::string& key, const nlohmann::json& seeds) {
  if (auto it = rooflines.find(key); it != rooflines.end()) return it->second;
  auto dev = device_peaks_measured();
  if (!dev.ok()) return dev.error();
  auto r = ask({{"op", "roofline"}, {"seeds", seeds}, {"cache_dir", opt.cache_dir + "/roofline"}});
  if (!r.ok()) return r.error();
  Roofline rl;
  rl.peaks = *dev;
  std::vector<Work> works;
  for (const auto& shape : (*r)["shapes"]) {
    rl.shapes.push_back(shape);
    if (shape.contains("error")) {
      rl.error = "the reference's work could not be counted: " + shape.value("error", "");
      continue;
    }
    works.push_back(Work::from_json(shape));
  }
  rl.work = mean_work(works);
  rooflines[key] = rl;
  return rl;
}

void Evaluator::Impl::measure_yardsticks(const std::string& key, Verdict& v, const Plan& plan, bool copies_outputs,
                                         const nlohmann::json& seeds) {
  auto phase_start = now_s();
  if (opt.roofline) {
    auto rl = problem_roofline(key, seeds);
    if (rl.ok())
      v.roofline = *rl;
    else
      v.checks.roofline_error = rl.error().message;
  }
  const bool tf32 = opt.allow_reduced_precision;
  auto fraction = [&](double ms) -> std::optional<PeakFraction> {
    if (!v.roofline || !v.roofline->error.empty()) return std::nullopt;
    return fraction_of_peak(v.roofline->work, v.roofline->peaks, ms, tf32);
  };
  if (v.time_ms) v.peak = fraction(*v.time_ms);
  v.checks.phases_s["roofline"] = now_s() - phase_start;
  if (!opt.measure_baseline) return;

  std::vector<std::string> names{"eager"};
  if (times_compile_baseline()) names.push_back("compile");
  for (const auto& name : names) {
    phase_start = now_s();
    BaselineTime bt;
    if (name == "compile") {
      bool cached = false;
      auto c = compile_reference(key, plan, &cached);
      if (!c.ok()) {
        bt.error = "torch.compile baseline: " + c.error().message;
      } else {
        bt.compile_s = c->value("compile_s", 0.0);
        bt.compile_cached = cached || c->value("cached", false);
        if (!c->value("compiled", false)) bt.error = c->value("error", std::string("torch.compile failed"));
      }
      v.checks.phases_s["compile_baseline"] = now_s() - phase_start;
      phase_start = now_s();
    }
    if (bt.error.empty()) {
      auto base = baseline(key, plan, copies_outputs, name);
      if (base.ok()) {
        BaselineRounds b = *base;
        if (name != "eager") b.mode = opt.compile_mode;
        v.checks.timing_record().baselines[name] = b;
        bt.time_ms = base->summary.median_ms.value_or(0.0);
        if (v.time_ms && *v.time_ms > 0) bt.speedup = *bt.time_ms / *v.time_ms;
        bt.peak = fraction(*bt.time_ms);
      } else if (base.error().code == "oracle.candidate") {
        // The runner left the shared buffers broken on its way out (a truncated slot file): its doing. A reason
        // like any other: the judgement (phases/judgement.cpp) makes the verdict rejected.
        v.reasons.push_back({"rejected.buffer_tampered", base.error().message});
        return;
      } else {
        bt.error = base.error().message;
        // A restarted oracle has lost its compiled reference: the next evaluation compiles it again.
        if (name == "compile") compiled_references.erase(key + "|" + opt.compile_mode);
      }
    }
    if (name == "eager" && !bt.error.empty()) v.checks.timing_record().baseline_error = bt.error;
    v.checks.phases_s[name == "eager" ? "baseline" : "baseline_" + name] = now_s() - phase_start;
    v.baselines[name] = bt;
  }
  // The primary baseline's figures are the verdict's; one that has no time falls back to eager, flagged.
  v.baseline = opt.baseline;
  auto primary = v.baselines.find(opt.baseline);
  if (primary == v.baselines.end() || !primary->second.time_ms) {
    if (opt.baseline != "eager") v.flags.push_back("primary_baseline_unavailable");
    v.baseline = "eager";
    primary = v.baselines.find("eager");
  }
  if (primary != v.baselines.end() && primary->second.time_ms) {
    v.ref_time_ms = primary->second.time_ms;
    v.speedup = primary->second.speedup;
    if (v.speedup && *v.speedup > opt.suspicious_speedup) v.flags.push_back("suspicious_speedup");
  }
}

}  // namespace kf::eval
