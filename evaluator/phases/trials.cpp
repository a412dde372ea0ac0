// The trials phase: the candidate called once on each input set (seeds and distributions, docs/evaluator.md,
// "Trials"), its outputs compared by the oracle and judged here, then, on fp32 problems, the precision trial.
// One trial and the judging of one comparison are here too: re-validation, the attribution trial and the
// timed rounds' checks use them.
#include <algorithm>

#include "evaluator/evaluation_session.h"

namespace kf::eval {

void Evaluator::Impl::run_trials(EvaluationSession& s) {
  Verdict& v = s.verdict;
  bool ok = true;
  for (int k = 0; k < opt.trials && ok; ++k) {
    auto r = one_trial(s, k, s.seed + static_cast<uint64_t>(k), kVariants[k % 5], "trial " + std::to_string(k));
    ok = r && r->empty();
  }
  // fp32 problems are judged at fp32: zero-mean full-mantissa inputs expose TF32/fp16/bf16 operand rounding.
  if (ok && opt.precision == "fp32") {
    auto r = one_trial(s, opt.trials, s.seed + 500, "precision", "precision trial (zero-mean inputs, wide range)",
                       true);
    ok = r.has_value();
    if (r && !r->empty()) {
      if (opt.allow_reduced_precision) {
        v.flags.push_back("reduced_precision");
      } else {
        if (r->front().code != "incorrect.reduced_precision")
          v.reasons.push_back({"incorrect.reduced_precision",
                               "the candidate passes the regular trials but misses fp32's tolerance on zero-mean "
                               "full-mantissa inputs (" + r->front().detail + "): reduced-precision arithmetic "
                               "(TF32, fp16 or bf16 operands) on an fp32 problem; allowed only with "
                               "--allow-reduced-precision"});
        v.reasons.insert(v.reasons.end(), r->begin(), r->end());
        ok = false;
      }
    }
  }
  s.going_on = ok;
  s.phase_done("trials");
}

std::vector<Reason> Evaluator::Impl::judge_comparison(EvaluationSession& s, const nlohmann::json& cmp, int trial,
                                                      const std::string& label, nlohmann::json* record_out) {
  Verdict& v = s.verdict;
  nlohmann::json record{{"trial", trial}, {"label", label}, {"seed", cmp.value("seed", nlohmann::json())}, {"variant", cmp["variant"]}};
  if (s.varying_shapes) record["shapes"] = s.trial_shapes;
  record["outputs"] = nlohmann::json::array();
  std::vector<Reason> reasons;
  std::vector<std::string> degenerate;
  for (const auto& o : cmp["outputs"]) {
    std::string where = o.value("name", "output") + " (" + label + ", " + cmp["variant"].get<std::string>() + ")";
    std::string dtype = o.value("dtype", "float32");
    OutputStats st = stats_from(o["stats"]);
    auto r = judge_output(where, dtype, st);
    std::vector<TrivialStats> triv;
    nlohmann::json trivj = nlohmann::json::object();
    for (const auto& t : o["trivial"]) {
      TrivialStats ts{t.value("name", ""), stats_from(t["stats"]),
                      t["distance"].is_number() ? t["distance"].get<double>() : 1e308};
      trivj[ts.name] = {{"rel_l2", ts.stats.rel_l2}, {"distance", ts.distance_to_candidate}};
      const std::string key = o.value("name", "") + ":" + ts.name;
      if (trial == 0 && trivial_passes(dtype, ts.stats)) s.base_degenerate.insert(key);
      // The sparse trial changes a few elements of trial 0's inputs: a trivial output that is right on
      // trial 0 is nearly right there too, so it cannot be held against the candidate on that trial.
      if (cmp["variant"] == "sparse" && s.base_degenerate.count(key)) continue;
      triv.push_back(ts);
    }
    auto nt = judge_non_trivial(where, dtype, st, triv, &degenerate);
    // Precision on these very inputs (fp32 outputs with a float64 reference): a candidate that tells the
    // precision trial from the others gains nothing. Only for outputs that pass otherwise.
    nlohmann::json precision;
    if (auto p = o.find("precision"); p != o.end() && p->is_object() && (*p)["f64_rel_l2"].is_number()) {
      PrecisionStats ps{(*p)["f64_rel_l2"].get<double>(), p->value("ref_f64_rel_l2", 0.0)};
      precision = {{"error", ps.error}, {"ref_error", ps.ref_error}, {"ratio", precision_ratio(ps)}};
      if (r.empty() && nt.empty()) {
        if (auto pr = judge_precision(where, ps)) {
          if (!opt.allow_reduced_precision) r.push_back(*pr);
          else if (std::find(v.flags.begin(), v.flags.end(), "reduced_precision") == v.flags.end())
            v.flags.push_back("reduced_precision");
        }
      }
    }
    // A candidate that IS a trivial output is named as such first.
    reasons.insert(reasons.end(), nt.begin(), nt.end());
    reasons.insert(reasons.end(), r.begin(), r.end());
    double coverage = st.numel ? 1.0 - static_cast<double>(st.unwritten) / static_cast<double>(st.numel) : 1.0;
    record["outputs"].push_back({{"name", o.value("name", "")},
                                 {"dtype", dtype},
                                 {"rel_l2", st.rel_l2},
                                 {"max_abs", st.max_abs},
                                 {"ref_rms", st.ref_rms},
                                 {"violations", st.violations},
                                 {"nan_inf_mismatch", st.nan_inf_mismatch},
                                 {"unwritten", st.unwritten},
                                 {"mismatched_exact", st.mismatched_exact},
                                 {"coverage", coverage},
                                 {"trivial", trivj}});
    if (!precision.is_null()) record["outputs"].back()["precision"] = precision;
  }
  for (const auto& m : cmp["inputs_modified"]) {
    reasons.push_back({"rejected.input_modified",
                       "input '" + m.value("name", "") + "' was modified by the candidate (" +
                           std::to_string(m.value("changed", int64_t{0})) + " of " +
                           std::to_string(m.value("numel", int64_t{0})) + " elements, first at flat index " +
                           std::to_string(m.value("first", int64_t{0})) + ") during " + label});
  }
  record["inputs_modified"] = cmp["inputs_modified"];
  for (const auto& d : degenerate) {
    if (std::find(v.flags.begin(), v.flags.end(), "degenerate_problem") == v.flags.end())
      v.flags.push_back("degenerate_problem");
    v.checks["degenerate"].push_back(d + " passes on its own");
  }
  if (record_out) *record_out = std::move(record);
  else v.checks["trials"].push_back(record);
  return reasons;
}

std::optional<std::vector<Reason>> Evaluator::Impl::one_trial(EvaluationSession& s, int trial, uint64_t seed,
                                                              const std::string& variant, const std::string& label,
                                                              bool hold) {
  Verdict& v = s.verdict;
  auto prep = ask({{"op", "prepare"}, {"seed", seed}, {"variant", variant}});
  if (!prep.ok()) {
    oracle_failed(v, prep.error());
    return std::nullopt;
  }
  if ((*prep)["variant"] == "skipped") {
    v.checks["trials"].push_back({{"trial", trial}, {"label", label}, {"skipped", "its inputs make the reference non-finite"}});
    return std::vector<Reason>{};
  }
  s.trial_shapes = (*prep)["shapes"];
  s.trial_bytes = prep->value("bytes", int64_t{0});
  double ms = 0;
  auto e = round(s, nlohmann::json::array({0}), nlohmann::json::array({s.trial_shapes}), &ms);
  if (runner_failed(s, e, label)) return std::nullopt;
  check_maps(s);
  if (no_custom_kernel(s, e, label)) return std::nullopt;
  auto cmp = ask({{"op", "compare"}, {"tolerances", tolerances_json()}});
  if (!cmp.ok()) {
    oracle_failed(v, cmp.error());
    return std::nullopt;
  }
  auto reasons = judge_comparison(s, *cmp, trial, label);
  v.checks["trials"].back()["call_ms"] = ms;
  if (!hold) v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
  return reasons;
}

}  // namespace kf::eval
