// The judge: dtype-derived tolerances and the accept/reject decision for one output of one trial.
// The statistics come from the oracle; every threshold and every verdict is decided here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "evaluator/evaluator.h"

namespace kf::eval {

namespace {

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

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
    r.push_back({"incorrect.rel_l2", where + ": relative L2 error " + fmt(st.rel_l2) + " exceeds " +
                                         fmt(tol.rel_l2) + " (" + dtype + "); max abs error " + fmt(st.max_abs) +
                                         ", reference rms " + fmt(st.ref_rms)});
  }
  if (st.violations > 0 && st.unwritten == 0) {
    r.push_back({"incorrect.elementwise",
                 where + ": " + std::to_string(st.violations) + " elements exceed |out-ref| <= " +
                     fmt(tol.atol_scale) + "*rms(ref) + " + fmt(tol.rtol) + "*|ref| (rms(ref) " + fmt(st.ref_rms) +
                     "), first at flat index " + indices(st.first_violations)});
  }
  return r;
}

bool trivial_passes(const std::string& dtype, const OutputStats& stats) {
  OutputStats s = stats;
  s.unwritten = 0;
  return judge_output("trivial", dtype, s).empty();
}

std::vector<Reason> judge_non_trivial(const std::string& where, const std::string& dtype,
                                      const OutputStats& candidate, const std::vector<TrivialStats>& trivial,
                                      std::vector<std::string>* degenerate) {
  std::vector<Reason> r, same;
  const Tolerance tol = tolerance_for(dtype);
  for (const auto& t : trivial) {
    if (trivial_passes(dtype, t.stats)) {
      if (degenerate) degenerate->push_back(where + ":" + t.name);
      continue;
    }
    // "Is" the trivial output: much closer to it than it is to the reference (a trial whose inputs make a
    // trivial output nearly right, e.g. ReLU of mostly positive inputs, leaves an honest output close to it).
    bool equal = is_floating(dtype) ? (t.distance_to_candidate >= 0 &&
                                       t.distance_to_candidate <= std::min(tol.rel_l2, t.stats.rel_l2 / tol.trivial_margin))
                                    : t.distance_to_candidate == 0;
    if (equal) {
      same.push_back({"rejected.trivial_output", where + " is the trivial '" + t.name +
                                                  "' output (distance " + fmt(t.distance_to_candidate) +
                                                  " relative to the reference's norm)"});
      continue;
    }
    if (is_floating(dtype) && candidate.rel_l2 * tol.trivial_margin > t.stats.rel_l2) {
      r.push_back({"rejected.trivial_output", where + ": relative L2 error " + fmt(candidate.rel_l2) +
                                                  " is not " + fmt(tol.trivial_margin) + "x below the trivial '" +
                                                  t.name + "' output's " + fmt(t.stats.rel_l2)});
    }
  }
  // A candidate that IS a trivial output is named as that; the margin comparisons would only add noise.
  return same.empty() ? r : same;
}

}  // namespace kf::eval
