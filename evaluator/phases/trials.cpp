// The trials phase: the candidate called once on each input set (seeds and distributions, docs/evaluator.md,
// "Trials"), its outputs compared by the oracle and judged here, then, on fp32 problems, the precision trial.
// One trial and the judging of one comparison are here too: re-validation, the attribution trial and the
// timed rounds' checks use them.
#include <algorithm>

#include "evaluator/evaluation_context.h"

namespace kf::eval {

OutputStats stats_from(const nlohmann::json& j) {
  auto figure = [&](const char* key) { return j[key].is_number() ? j[key].get<double>() : kNotFinite; };
  OutputStats s;
  s.numel = j.value("numel", int64_t{0});
  s.floating = j.value("floating", true);
  s.rel_l2 = figure("rel_l2");
  s.max_abs = figure("max_abs");
  s.ref_rms = j.value("ref_rms", 0.0);
  s.violations = j.value("violations", int64_t{0});
  s.first_violations = j.value("first_violations", std::vector<int64_t>{});
  s.nan_inf_mismatch = j.value("nan_inf_mismatch", int64_t{0});
  s.unwritten = j.value("unwritten", int64_t{0});
  s.first_unwritten = j.value("first_unwritten", std::vector<int64_t>{});
  s.mismatched_exact = j.value("mismatched_exact", int64_t{0});
  return s;
}

Next Evaluator::Impl::run_trials(EvaluationContext& s) {
  Verdict& v = s.verdict;
  bool ok = true;
  for (int k = 0; k < opt.trials && ok; ++k) {
    auto r = one_trial(s, k, s.seed + static_cast<uint64_t>(k), kVariants[k % 5], "trial " + std::to_string(k));
    ok = r && r->empty();
  }
  // fp32 problems are judged at fp32: zero-mean full-mantissa inputs expose TF32/fp16/bf16 operand rounding.
  if (ok && opt.precision == "fp32") {
    auto r =
        one_trial(s, opt.trials, s.seed + 500, "precision", "precision trial (zero-mean inputs, wide range)", true);
    ok = r.has_value();
    if (r && !r->empty()) {
      if (opt.allow_reduced_precision) {
        v.flags.push_back("reduced_precision");
      } else {
        if (r->front().code != "incorrect.reduced_precision")
          v.reasons.push_back({"incorrect.reduced_precision",
                               "the candidate passes the regular trials but misses fp32's tolerance on zero-mean "
                               "full-mantissa inputs (" +
                                   r->front().detail +
                                   "): reduced-precision arithmetic "
                                   "(TF32, fp16 or bf16 operands) on an fp32 problem; allowed only with "
                                   "--allow-reduced-precision"});
        v.reasons.insert(v.reasons.end(), r->begin(), r->end());
        ok = false;
      }
    }
  }
  s.phase_done("trials");
  return ok ? Next::go_on : Next::stop;
}

std::vector<Reason> Evaluator::Impl::judge_comparison(EvaluationContext& s, const nlohmann::json& cmp, int trial,
                                                      const std::string& label, TrialRecord* record) {
  Verdict& v = s.verdict;
  *record = TrialRecord{};
  record->trial = trial;
  record->label = label;
  if (auto seed = cmp.find("seed"); seed != cmp.end() && seed->is_number_unsigned())
    record->seed = seed->get<uint64_t>();
  if (auto variant = cmp.find("variant"); variant != cmp.end() && variant->is_string()) record->variant = *variant;
  if (s.varying_shapes) record->shapes = s.trial_shapes;
  std::vector<Reason> reasons;
  std::vector<std::string> degenerate;
  for (const auto& o : cmp["outputs"]) {
    std::string where = o.value("name", "output") + " (" + label + ", " + record->variant + ")";
    std::string dtype = o.value("dtype", "float32");
    OutputStats st = stats_from(o["stats"]);
    auto r = judge_output(where, dtype, st);
    std::vector<TrivialStats> triv;
    TrialOutput out;
    for (const auto& t : o["trivial"]) {
      TrivialStats ts{t.value("name", ""), stats_from(t["stats"]),
                      t["distance"].is_number() ? t["distance"].get<double>() : kNotFinite};
      out.trivial[ts.name] = {ts.stats.rel_l2, ts.distance_to_candidate};
      const std::string key = o.value("name", "") + ":" + ts.name;
      if (trial == 0 && trivial_passes(dtype, ts.stats)) s.base_degenerate.insert(key);
      // The sparse trial changes a few elements of trial 0's inputs: a trivial output that is right on
      // trial 0 is nearly right there too, so it cannot be held against the candidate on that trial.
      if (record->variant == "sparse" && s.base_degenerate.count(key)) continue;
      triv.push_back(ts);
    }
    auto nt = judge_non_trivial(where, dtype, st, triv, &degenerate);
    // Precision on these very inputs (fp32 outputs with a float64 reference): a candidate that tells the
    // precision trial from the others gains nothing. Only for outputs that pass otherwise.
    if (auto p = o.find("precision"); p != o.end() && p->is_object() && (*p)["f64_rel_l2"].is_number()) {
      PrecisionStats ps{(*p)["f64_rel_l2"].get<double>(), p->value("ref_f64_rel_l2", 0.0)};
      out.precision = PrecisionFigures{ps.error, ps.ref_error, precision_ratio(ps)};
      if (r.empty() && nt.empty()) {
        if (auto pr = judge_precision(where, ps)) {
          if (!opt.allow_reduced_precision)
            r.push_back(*pr);
          else if (std::find(v.flags.begin(), v.flags.end(), "reduced_precision") == v.flags.end())
            v.flags.push_back("reduced_precision");
        }
      }
    }
    // A candidate that IS a trivial output is named as such first.
    reasons.insert(reasons.end(), nt.begin(), nt.end());
    reasons.insert(reasons.end(), r.begin(), r.end());
    double coverage = st.numel ? 1.0 - static_cast<double>(st.unwritten) / static_cast<double>(st.numel) : 1.0;
    out.name = o.value("name", "");
    out.dtype = dtype;
    out.rel_l2 = st.rel_l2;
    out.max_abs = st.max_abs;
    out.ref_rms = st.ref_rms;
    out.violations = st.violations;
    out.nan_inf_mismatch = st.nan_inf_mismatch;
    out.unwritten = st.unwritten;
    out.mismatched_exact = st.mismatched_exact;
    out.coverage = coverage;
    record->outputs.push_back(std::move(out));
  }
  for (const auto& m : cmp["inputs_modified"]) {
    reasons.push_back({"rejected.input_modified",
                       "input '" + m.value("name", "") + "' was modified by the candidate (" +
                           std::to_string(m.value("changed", int64_t{0})) + " of " +
                           std::to_string(m.value("numel", int64_t{0})) + " elements, first at flat index " +
                           std::to_string(m.value("first", int64_t{0})) + ") during " + label});
  }
  record->inputs_modified = cmp["inputs_modified"];
  for (const auto& d : degenerate) {
    if (std::find(v.flags.begin(), v.flags.end(), "degenerate_problem") == v.flags.end())
      v.flags.push_back("degenerate_problem");
    if (!v.checks.degenerate) v.checks.degenerate.emplace();
    v.checks.degenerate->push_back(d + " passes on its own");
  }
  return reasons;
}

std::optional<std::vector<Reason>> Evaluator::Impl::one_trial(EvaluationContext& s, int trial, uint64_t seed,
                                                              const std::string& variant, const std::string& label,
                                                              bool hold) {
  Verdict& v = s.verdict;
  auto prep = ask({{"op", "prepare"}, {"seed", seed}, {"variant", variant}});
  if (!prep.ok()) {
    judge_oracle_failure(v, prep.error());
    return std::nullopt;
  }
  if ((*prep)["variant"] == "skipped") {
    TrialRecord skipped;
    skipped.trial = trial;
    skipped.label = label;
    skipped.skipped = "its inputs make the reference non-finite";
    v.checks.trial_records().push_back(std::move(skipped));
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
    judge_oracle_failure(v, cmp.error());
    return std::nullopt;
  }
  TrialRecord record;
  auto reasons = judge_comparison(s, *cmp, trial, label, &record);
  record.call_ms = ms;
  v.checks.trial_records().push_back(std::move(record));
  if (!hold) v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
  return reasons;
}

}  // namespace kf::eval
