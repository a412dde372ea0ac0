// The judge: dtype-derived tolerances and the accept/reject decision for one output of one trial.
// The statistics come from the oracle; every threshold and every verdict is decided here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <signal.h>

#include <cstring>

#include "core/format.h"
#include "evaluator/judge.h"
#include "evaluator/text_hygiene.h"

namespace kf::eval {

namespace {

std::string fmt(double v) { return format_significant(v, 3); }

std::string indices(const std::vector<int64_t>& idx) {
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s;
}

bool is_floating(const std::string& dtype) {
  return dtype == "float32" || dtype == "float16" || dtype == "bfloat16" || dtype == "float64";
}

}  // namespace

Tolerance tolerance_for(const std::string& dtype) {
  // Relative L2 bound, then the per-element bound |out-ref| <= atol_scale*rms(ref) + rtol*|ref|.
  // fp32: the reference runs without TF32; honest fp32 kernels with another summation order land at
  // 1e-7..1e-5, TF32 at ~3e-4, so 1e-4 accepts the first and rejects the second.
  // fp16 (10-bit mantissa, ulp 1e-3) and bf16 (7-bit, ulp 8e-3): a few ulps of re-rounding between fused
  // and unfused computation, e.g. 1e-2 and 2e-2 in L2, ~20 and ~13 ulps per element.
  if (dtype == "float32") return {1e-4, 1e-3, 1e-3};
  if (dtype == "float16") return {1e-2, 2e-2, 2e-2};
  if (dtype == "bfloat16") return {2e-2, 5e-2, 5e-2};
  if (dtype == "float64") return {1e-9, 1e-7, 1e-7};
  return {0, 0, 0};  // integers and bool: exact
}

std::vector<Reason> judge_output(const std::string& where, const std::string& dtype, const OutputStats& st) {
  std::vector<Reason> r;
  const Tolerance tol = tolerance_for(dtype);
  if (!st.shape_match || !st.dtype_match) {
    r.push_back({"incorrect.shape", where + ": dtype or shape differs from the reference"});
    return r;
  }
  if (st.unwritten > 0) {
    double pct = st.numel ? 100.0 * static_cast<double>(st.unwritten) / static_cast<double>(st.numel) : 0;
    r.push_back({"incorrect.unwritten", where + ": " + std::to_string(st.unwritten) + " of " +
                                            std::to_string(st.numel) + " elements (" + fmt(pct) +
                                            "%) never written (still the poison pattern), first at flat index " +
                                            indices(st.first_unwritten)});
  }
  if (!is_floating(dtype)) {
    if (st.mismatched_exact > 0)
      r.push_back({"incorrect.exact", where + ": " + std::to_string(st.mismatched_exact) + " of " +
                                          std::to_string(st.numel) + " " + dtype +
                                          " elements differ (integer outputs must match exactly), first at " +
                                          indices(st.first_violations)});
    return r;
  }
  if (st.nan_inf_mismatch > static_cast<int64_t>(st.unwritten)) {
    r.push_back({"incorrect.nan_parity", where + ": NaN/Inf positions differ from the reference's at " +
                                             std::to_string(st.nan_inf_mismatch - st.unwritten) + " elements"});
  }
  if (!(st.rel_l2 <= tol.rel_l2)) {
    r.push_back({"incorrect.rel_l2", where + ": relative L2 error " + fmt(st.rel_l2) + " exceeds " + fmt(tol.rel_l2) +
                                         " (" + dtype + "); max abs error " + fmt(st.max_abs) + ", reference rms " +
                                         fmt(st.ref_rms)});
  }
  if (st.violations > 0 && st.unwritten == 0) {
    r.push_back({"incorrect.elementwise", where + ": " + std::to_string(st.violations) +
                                              " elements exceed |out-ref| <= " + fmt(tol.atol_scale) + "*rms(ref) + " +
                                              fmt(tol.rtol) + "*|ref| (rms(ref) " + fmt(st.ref_rms) +
                                              "), first at flat index " + indices(st.first_violations)});
  }
  return r;
}

bool trivial_passes(const std::string& dtype, const OutputStats& stats) {
  OutputStats s = stats;
  s.unwritten = 0;
  return judge_output("trivial", dtype, s).empty();
}

std::vector<Reason> judge_non_trivial(const std::string& where, const std::string& dtype, const OutputStats& candidate,
                                      const std::vector<TrivialStats>& trivial, std::vector<std::string>* degenerate) {
  std::vector<Reason> r, same;
  const Tolerance tol = tolerance_for(dtype);
  for (const auto& t : trivial) {
    if (trivial_passes(dtype, t.stats)) {
      if (degenerate) degenerate->push_back(where + ":" + t.name);
      continue;
    }
    // "Is" the trivial output: much closer to it than it is to the reference (a trial whose inputs make a
    // trivial output nearly right, e.g. ReLU of mostly positive inputs, leaves an honest output close to it).
    bool equal = is_floating(dtype)
                     ? (t.distance_to_candidate >= 0 &&
                        t.distance_to_candidate <= std::min(tol.rel_l2, t.stats.rel_l2 / tol.trivial_margin))
                     : t.distance_to_candidate == 0;
    if (equal) {
      same.push_back({"rejected.trivial_output", where + " is the trivial '" + t.name + "' output (distance " +
                                                     fmt(t.distance_to_candidate) +
                                                     " relative to the reference's norm)"});
      continue;
    }
    if (is_floating(dtype) && candidate.rel_l2 * tol.trivial_margin > t.stats.rel_l2) {
      r.push_back({"rejected.trivial_output", where + ": relative L2 error " + fmt(candidate.rel_l2) + " is not " +
                                                  fmt(tol.trivial_margin) + "x below the trivial '" + t.name +
                                                  "' output's " + fmt(t.stats.rel_l2)});
    }
  }
  // A candidate that IS a trivial output is named as that; the margin comparisons would only add noise.
  return same.empty() ? r : same;
}

namespace {

// A candidate faster than bytes / copy bandwidth is physically implausible; the margin leaves room for
// kernels that beat a plain copy slightly (measurement spread, better access patterns).
constexpr double kFloorMargin = 0.8;
// Synchronising an idle device costs microseconds from C++; from a python runner it costs up to ~1.2% of the
// round just waited for (0.03 ms after 2 ms rounds, 0.085 ms after 6.8 ms ones on the H200), so a KernelBench
// solution with 17 ms calls crossed a fixed 0.1 ms. Work left running on another stream shows as a large share
// of the round, and the trusted clock times it either way (the runner synchronises the device inside the round).
constexpr double kDeviceTailLimitMs = 0.1;
constexpr double kDeviceTailLimitShare = 0.05;

std::string signal_name(int sig) {
  const char* d = strsignal(sig);
  switch (sig) {
    case SIGSEGV: return std::string("SIGSEGV (") + d + ")";
    case SIGABRT: return std::string("SIGABRT (") + d + ")";
    case SIGBUS: return std::string("SIGBUS (") + d + ")";
    case SIGFPE: return std::string("SIGFPE (") + d + ")";
    case SIGILL: return std::string("SIGILL (") + d + ")";
    case SIGKILL: return std::string("SIGKILL (") + d + ")";
    case SIGXCPU: return std::string("SIGXCPU (") + d + ")";
    default: return "signal " + std::to_string(sig) + " (" + d + ")";
  }
}

std::string string_field(const nlohmann::json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? clean_text(it->get<std::string>(), 2000) : fallback;
}

}  // namespace

VerdictKind judged_verdict(const Verdict& v) {
  // A verdict other than correct (a runner's failure, a harness error) was decided where it happened.
  if (v.kind != VerdictKind::correct) return v.kind;
  bool rejected = false, incorrect = false;
  for (const auto& r : v.reasons) {
    rejected = rejected || r.code.rfind("rejected", 0) == 0;
    incorrect = incorrect || r.code.rfind("incorrect", 0) == 0;
  }
  return rejected ? VerdictKind::rejected : incorrect ? VerdictKind::incorrect : VerdictKind::correct;
}

void finalize(Verdict& v) { v.kind = judged_verdict(v); }

VerdictKind verdict_for_compile_reason(const std::string& code) {
  const std::string head = code.substr(0, code.find('.'));
  if (head == "rejected") return VerdictKind::rejected;
  if (head == "compile_error") return VerdictKind::compile_error;
  if (head == "incorrect") return VerdictKind::incorrect;
  if (head == "usage" || head == "harness") return VerdictKind::harness_error;
  return VerdictKind::compile_error;
}

void judge_harness_failure(Verdict& v, Reason reason) {
  v.kind = VerdictKind::harness_error;
  v.reasons.push_back(std::move(reason));
}

void judge_runner_failure(Verdict& v, const RunnerEnd& e, bool candidate_loaded, const std::string& during,
                          const std::string& limit) {
  if (!candidate_loaded && e.kind != RunnerEnd::Kind::reply) {
    // No code of the candidate has run yet (it is loaded only after the runner's "loading" line): a runner that
    // dies, hangs or garbles its channel now is the harness's failure (a missing or unrunnable runner, its
    // libraries, the sandbox), never a verdict on the candidate.
    std::string how = e.kind == RunnerEnd::Kind::timeout ? "did not report within " + limit
                      : e.kind == RunnerEnd::Kind::protocol
                          ? "sent something other than a JSON line (" + clean_text(e.protocol_error, 300) + ")"
                      : e.signal ? "died from " + signal_name(e.signal)
                                 : "exited with code " + std::to_string(e.exit_code);
    v.kind = VerdictKind::harness_error;
    std::string tail = e.stderr_tail.empty() ? "" : ": " + clean_text(e.stderr_tail, 1500);
    v.reasons.push_back(
        {"harness.runner", "kforge-runner " + how + " during " + during + ", before the candidate was loaded" + tail});
    return;
  }
  switch (e.kind) {
    case RunnerEnd::Kind::reply: {
      std::string code = string_field(e.reply, "code", "runtime_error");
      std::string detail = string_field(e.reply, "detail", "") + " (during " + during + ")";
      if (code.rfind("harness", 0) == 0 && !candidate_loaded) {
        v.kind = VerdictKind::harness_error;
      } else if (code.rfind("runtime_error", 0) == 0) {
        v.kind = VerdictKind::runtime_error;
      } else {
        // Any other code after the candidate was loaded (harness.* included) may be the candidate's own
        // words on the report pipe: it is held against the candidate.
        detail = "the runner reported '" + code + "': " + detail;
        code = "runtime_error.protocol";
        v.kind = VerdictKind::runtime_error;
      }
      v.reasons.push_back({code, detail});
      return;
    }
    case RunnerEnd::Kind::protocol:
      v.kind = VerdictKind::runtime_error;
      v.reasons.push_back(
          {"runtime_error.protocol", "the runner's report channel carried something other than a bounded JSON line (" +
                                         clean_text(e.protocol_error, 300) + ") during " + during + "; it was killed"});
      return;
    case RunnerEnd::Kind::timeout:
      v.kind = VerdictKind::timeout;
      v.reasons.push_back({"timeout", "the candidate did not finish within " + limit + " (during " + during +
                                          "); its process tree was killed"});
      return;
    case RunnerEnd::Kind::crashed:
      v.kind = VerdictKind::runtime_error;
      if (e.signal) {
        v.reasons.push_back(
            {"runtime_error.signal", "the runner died from " + signal_name(e.signal) + " during " + during});
      } else {
        v.reasons.push_back(
            {"runtime_error.exit", "the runner exited with code " + std::to_string(e.exit_code) + " during " + during +
                                       (e.stderr_tail.empty() ? "" : ": " + clean_text(e.stderr_tail, 1500))});
      }
      return;
  }
}

std::optional<Reason> judge_event_disagreement(double trusted_ms, double events_ms) {
  if (events_ms > 1.5 * trusted_ms + 0.05)
    return Reason{"rejected.timer_tampering", "the runner's events say " + fmt(events_ms) +
                                                  " ms per call, more than the trusted wall time " + fmt(trusted_ms) +
                                                  " ms around the same calls: its clock was tampered with"};
  return std::nullopt;
}

std::optional<Reason> judge_device_tail(double median_tail_ms, double median_round_ms) {
  if (median_tail_ms <= std::max(kDeviceTailLimitMs, kDeviceTailLimitShare * median_round_ms)) return std::nullopt;
  return Reason{"rejected.unsynchronized_work",
                "the GPU was still busy for " + fmt(median_tail_ms) +
                    " ms (median over the timed rounds) after the "
                    "given stream had finished: work escaped the stream kf_forward was given, so a caller waiting on "
                    "that stream would read unfinished outputs"};
}

double precision_ratio(const PrecisionStats& p) { return p.error / std::max(p.ref_error, kPrecisionFloor); }

std::optional<Reason> judge_precision(const std::string& where, const PrecisionStats& p) {
  const double ratio = precision_ratio(p);
  if (!(ratio > kPrecisionRatioBound)) return std::nullopt;
  return Reason{"incorrect.reduced_precision",
                where + ": error against a float64 reference " + fmt(p.error) + " is " + fmt(ratio) +
                    "x the float32 reference's own (" + fmt(p.ref_error) + ", floor " + fmt(kPrecisionFloor) +
                    "; at most " + fmt(kPrecisionRatioBound) +
                    "x): reduced-precision arithmetic (TF32, fp16 or "
                    "bf16) on an fp32 problem; allowed only with --allow-reduced-precision"};
}

std::optional<Reason> judge_bandwidth_floor(double time_ms, int64_t bytes, double gbps, double* floor_ms) {
  double floor = static_cast<double>(bytes) / (gbps * 1e9) * 1e3 * kFloorMargin;
  if (floor_ms) *floor_ms = floor;
  if (time_ms >= floor) return std::nullopt;
  return Reason{"rejected.below_bandwidth_floor", "median " + fmt(time_ms) + " ms is below the physical floor " +
                                                      fmt(floor) + " ms (" + std::to_string(bytes) + " bytes at " +
                                                      fmt(gbps) + " GB/s, x" + fmt(kFloorMargin) + ")"};
}

}  // namespace kf::eval
