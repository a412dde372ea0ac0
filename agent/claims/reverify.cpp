#include "agent/claims/reverify.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "agent/campaign/ahead_compiler.h"
#include "agent/campaign/evaluator_pool.h"
#include "agent/campaign/stop_signals.h"
#include "agent/claims/claim_check.h"
#include "agent/claims/reverify_journal.h"
#include "agent/claims/reverify_rule.h"
#include "core/exit_codes.h"
#include "core/files.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/time.h"
#include "corpus/reader.h"
#include "evaluator/evaluator.h"
#include "evaluator/pool.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::string interval_text(const std::optional<SpeedupInterval>& i) {
  return i ? "[" + format_fixed(i->low, 3) + ", " + format_fixed(i->high, 3) + "]" : "-";
}

std::string speedup_text(const std::optional<double>& x) { return x ? format_fixed(*x, 3) + "x" : std::string("-"); }

// The stored source judged afresh against its problem, unless either changed since it was recorded.
struct Fresh {
  std::string status;  // problem_changed | source_missing; "" when judged
  std::string detail;
  std::optional<eval::Verdict> verdict;  // absent when not judged
  corpus::EvaluatorRef evaluator;
};

Fresh judge_stored(const corpus::Record& r, const std::string& dir, eval::EvaluatorPool& pool) {
  Fresh f;
  const std::string source_rel = r.source ? r.source->path : "";
  auto phash = sha256_file(r.problem.path);
  auto source = read_file((fs::path(dir) / source_rel).string());
  if (!phash || *phash != r.problem.file_hash) {
    f.status = "problem_changed";
    f.detail = "problem file '" + r.problem.path + "' is missing or no longer matches the recorded hash";
  } else if (!source || !r.source || sha256_hex(*source) != r.source->sha256) {
    f.status = "source_missing";
    f.detail = "source '" + source_rel + "' is missing or no longer matches the recorded hash";
  } else {
    auto lease = pool.acquire();
    auto v = lease.evaluator().evaluate_file(r.problem.path, fs::absolute(fs::path(dir) / source_rel).string());
    f.evaluator = evaluator_ref(lease.slot());
    f.verdict = std::move(v);
  }
  return f;
}

// One kernel's re-judgement (judged by whichever evaluator of the pool is free).
struct Rejudged {
  ReverifyEntry result;
  std::optional<SpeedupInterval> claimed_interval, interval;
  SpeedupJudgement judged;
};

Rejudged rejudge(const corpus::Record& r, const std::string& dir, eval::EvaluatorPool& pool) {
  const eval::Verdict& claimed = r.verdict ? *r.verdict : eval::Verdict::none();
  Rejudged out;
  ReverifyEntry& res = out.result;
  res.config = r.config;
  res.problem = r.problem;
  res.sample = r.sample;
  res.turn = r.turn;
  res.best = r.best;
  res.claimed_speedup = claimed.speedup;
  Fresh f = judge_stored(r, dir, pool);
  std::string status = f.status;
  if (status.empty()) {
    const eval::Verdict& now = *f.verdict;
    res.evaluator = f.evaluator;
    status = now.kind == eval::VerdictKind::harness_error ? "harness_error" : reverify_status(claimed, now);
    res.verdict = now;
    res.speedup = now.speedup;
    out.interval = speedup_interval(now);
  } else {
    res.detail = f.detail;
  }
  res.status = status;
  // The claim as `kforge report` now counts it: interval above 1.0 and held here.
  out.judged = VerifiedSpeedupRule::judge_verdict(claimed, status);
  res.speedup_check = to_string(out.judged.check);
  out.claimed_interval = out.judged.interval;
  res.claimed_interval = out.claimed_interval;
  res.interval = out.interval;
  return out;
}

std::vector<ReverifiedBaseline> comparisons(const std::vector<BaselineComparison>& list) {
  std::vector<ReverifiedBaseline> out;
  for (const auto& b : list)
    out.push_back({b.baseline, b.claimed, b.measured ? std::optional<double>(b.measured->value) : std::nullopt,
                   b.measured ? b.measured->interval : std::nullopt, b.outcome});
  return out;
}

// An imported solution's re-judgement: its claim against kforge's verdict (agent/claims/claim_check.h), and, where
// the claim was made against a reference other than the dataset's (reference_differs), against that
// reference too.
Rejudged rejudge_imported(const corpus::Record& r, const std::string& dir, eval::EvaluatorPool& pool) {
  Rejudged out;
  ReverifyEntry& res = out.result;
  const corpus::Claim claim = r.claim.value_or(corpus::Claim{});
  const corpus::ImportOrigin origin = r.imported.value_or(corpus::ImportOrigin{});
  const bool reference_differs = claim.reference && claim.reference->differs.value_or(false);
  res.imported = true;
  res.config = r.config;
  res.problem = r.problem;
  res.sample = r.sample;
  res.turn = r.turn;
  res.run = origin.run;
  res.level = origin.level;
  res.problem_number = origin.problem_number;
  res.claimed = claim;
  res.claimed_speedup = claim.speedup;
  res.reference_differs = reference_differs;
  res.task_quality = claim.task_quality;
  if (reference_differs) res.reference_summary = claim.reference->summary;
  Fresh f = judge_stored(r, dir, pool);
  if (!f.status.empty()) {
    res.status = f.status;
    res.detail = f.detail;
    return out;
  }
  const Measurement measurement{"eager", f.evaluator.gpu_name};
  const ClaimCheck c = check_claim(claim, *f.verdict, measurement);
  res.evaluator = f.evaluator;
  res.status = c.status;
  res.reason = c.reason;
  res.hack_class = c.hack_class;
  res.detail = c.detail;
  res.baseline_kind = c.baseline_kind;
  res.hardware_differs = c.hardware_differs;
  res.baselines = comparisons(c.baselines);
  res.verdict = f.verdict;
  res.speedup = f.verdict->speedup;
  out.interval = speedup_interval(*f.verdict);
  res.interval = out.interval;
  if (reference_differs && r.source) {
    // The claim as it was made: the same stored source against the reference the release shipped.
    ClaimedReferenceCheck& then = res.claimed_reference.emplace();
    const fs::path reference = fs::absolute(fs::path(dir) / claim.reference->path);
    auto text = read_file(reference.string());
    if (!text || sha256_hex(*text) != claim.reference->sha256) {
      then.status = "source_missing";
      then.detail = "reference '" + claim.reference->path + "' is missing or no longer matches its hash";
    } else {
      auto lease = pool.acquire();
      auto v =
          lease.evaluator().evaluate_file(reference.string(), fs::absolute(fs::path(dir) / r.source->path).string());
      const ClaimCheck t = check_claim(claim, v, Measurement{"eager", evaluator_ref(lease.slot()).gpu_name});
      then.judged = true;
      then.status = t.status;
      then.reason = t.reason;
      then.hack_class = t.hack_class;
      then.detail = t.detail;
      then.verdict = v;
      then.speedup = v.speedup;
      then.interval = speedup_interval(v);
    }
  }
  return out;
}

// A kernel judged by an earlier, stopped run of the same journal: its entry as it was written, and what the
// summary counts derive from it.
Rejudged from_journal(const corpus::Record& r, ReverifyEntry entry) {
  Rejudged out;
  if (!entry.imported) {
    out.judged = VerifiedSpeedupRule::judge_verdict(r.verdict ? *r.verdict : eval::Verdict::none(), entry.status);
    out.claimed_interval = entry.claimed_interval;
  }
  out.interval = entry.interval;
  out.result = std::move(entry);
  return out;
}

using KernelKey = std::tuple<std::string, std::string, int, int>;
KernelKey key_of(const corpus::Record& r) { return {r.config, r.problem.name, r.sample, r.turn}; }
KernelKey key_of(const ReverifyEntry& e) { return {e.config, e.problem.name, e.sample, e.turn}; }

// What DIR/reverify.journal says about this run: a fresh journal, or the one --resume continues (its seed and
// entries). Refuses to replace an unfinished journal without --resume or --restart, so that no judged kernel is
// lost by running the same command again.
struct JournalStart {
  std::optional<ReverifyJournal::Contents> resumed;
  uint64_t seed = 0;
};

Result<JournalStart> open_journal(const ReverifyOptions& o, const std::string& backend) {
  JournalStart js;
  js.seed = o.seed ? *o.seed : (static_cast<uint64_t>(std::random_device{}()) << 16) ^ 0x5eed;
  if (o.restart) return js;
  auto existing = ReverifyJournal::load(o.dir);
  if (!existing) {
    if (!o.resume) return js;  // an unreadable journal is only in the way of a resume
    return existing.error();
  }
  if (!*existing) {
    if (o.resume) log::info("reverify: " + o.dir + " has no " + kReverifyJournalFile + " to resume; starting afresh");
    return js;
  }
  const ReverifyJournal::Contents& c = **existing;
  if (!o.resume) {
    if (c.finished) return js;
    return make_error("reverify.unfinished", o.dir + " holds an unfinished re-verification (" +
                                                 std::to_string(c.entries.size()) + " kernels judged, seed " +
                                                 std::to_string(c.header.seed) + ", started " + c.header.started_at +
                                                 "): `--resume` judges the rest, `--restart` starts over");
  }
  if (c.header.backend != backend)
    return make_error("reverify.resume_mismatch", "the journal in " + o.dir + " was made on the " + c.header.backend +
                                                      " backend, not " + backend + ": resume on " + c.header.backend +
                                                      " or pass --restart");
  if (o.seed && *o.seed != c.header.seed)
    return make_error("reverify.resume_mismatch", "the journal in " + o.dir + " uses seed " +
                                                      std::to_string(c.header.seed) + ", not " +
                                                      std::to_string(*o.seed) + ": drop --seed or pass --restart");
  js.seed = c.header.seed;
  js.resumed = c;
  return js;
}

std::string reason_cell(const ReverifyEntry& res) {
  const std::string& hack = res.hack_class;
  const std::string& reason = res.reason;
  std::string t = hack.empty() ? reason : hack + " (" + reason + ")";
  return t.empty() ? "-" : t;
}

}  // namespace

int run_reverify(const ReverifyOptions& o) {
  auto corpus = corpus::load(o.dir);
  if (!corpus) {
    log::error(corpus.error().message);
    return kExitUsage;
  }
  // Campaign kernels first, then imported solutions: each kind has a table of its own.
  std::vector<const corpus::Record*> kernels, imported;
  std::string backend_name = o.backend;
  for (const auto& r : corpus->records) {
    if (r.kind == corpus::Kind::imported) {
      const int level = r.imported ? r.imported->level : 0;
      const bool level_selected =
          o.levels.empty() || std::find(o.levels.begin(), o.levels.end(), level) != o.levels.end();
      if ((o.all || r.claimed_correct()) && level_selected) imported.push_back(&r);
      continue;
    }
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
  auto slots = eval::plan_evaluators(*backend, o.gpus, o.evaluators);
  if (!slots) {
    log::error(slots.error().message);
    return slots.error().code == "gpu.query" ? kExitHarness : kExitUsage;
  }
  auto journal_start = open_journal(o, backend_name);
  if (!journal_start) {
    log::error(journal_start.error().message);
    return kExitUsage;
  }
  const uint64_t seed = journal_start->seed;
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
  const size_t total = kernels.size() + imported.size();
  std::string what = std::to_string(kernels.size()) + " correct kernels";
  const std::string solutions =
      std::to_string(imported.size()) + (o.all ? " imported solutions" : " claimed-correct imported solutions");
  if (!imported.empty()) what = kernels.empty() ? solutions : what + " and " + solutions;
  log::info("re-verifying " + what + " from " + o.dir + " (backend " + backend_name + ", seed " + std::to_string(seed) +
            ", " + std::to_string((*pool)->size()) + " evaluator(s))");

  // Workers take jobs in order; rows print in that order as soon as each one's turn comes.
  auto record_of = [&](size_t i) { return i < kernels.size() ? kernels[i] : imported[i - kernels.size()]; };
  std::vector<std::string> sources(total);
  for (size_t i = 0; i < total; ++i)
    if (const corpus::Record& r = *record_of(i); r.source)
      sources[i] = fs::absolute(fs::path(o.dir) / r.source->path).string();
  // Kernels an earlier run of this journal judged are taken from it, provided their problem is the same file.
  std::vector<std::optional<Rejudged>> done(total);
  size_t from_journal_count = 0;
  if (journal_start->resumed) {
    std::map<KernelKey, const ReverifyEntry*> judged;
    for (const auto& e : journal_start->resumed->entries) judged[key_of(e)] = &e;
    for (size_t i = 0; i < total; ++i) {
      const corpus::Record& r = *record_of(i);
      auto it = judged.find(key_of(r));
      if (it == judged.end() || it->second->imported != (r.kind == corpus::Kind::imported)) continue;
      if (!it->second->problem.file_hash.empty() && it->second->problem.file_hash != r.problem.file_hash) continue;
      done[i] = from_journal(r, *it->second);
      sources[i].clear();
      ++from_journal_count;
    }
    log::info("reverify: resuming " + std::string(kReverifyJournalFile) + " (seed " + std::to_string(seed) +
              "): " + std::to_string(from_journal_count) + " of " + std::to_string(total) + " already judged" +
              (journal_start->resumed->dropped_lines
                   ? ", " + std::to_string(journal_start->resumed->dropped_lines) + " damaged line(s) dropped"
                   : std::string()));
  }
  auto journal = journal_start->resumed
                     ? ReverifyJournal::resume(o.dir, *journal_start->resumed)
                     : ReverifyJournal::start(o.dir, ReverifyJournalHeader{seed, backend_name, corpus::utc_now_iso()});
  if (!journal) {
    log::error(journal.error().message);
    return kExitHarness;
  }
  eval::Evaluator& compiler = (*pool)->evaluator(0);
  const int compile_jobs = total < 2 ? 0 : o.compile_jobs > 0 ? o.compile_jobs : AheadCompiler::default_jobs();
  AheadCompiler ahead(std::move(sources), compile_jobs, [&](const std::string& s) { (void)compiler.compile(s); });
  std::vector<bool> skipped(total, false);  // not judged: the run stopped first (--time-limit, a signal)
  ReverifyDocument doc;
  int holds = 0, failed = 0, claimed_faster = 0, verified = 0;
  std::map<std::string, int> imported_status, imported_classes;
  std::mutex mu;
  size_t printed = 0;
  const double started = now_s();
  const size_t progress_every = total / 20;  // long runs: a line every 5% of the jobs
  auto print_ready = [&] {                   // under mu
    for (; printed < total && (done[printed] || skipped[printed]); ++printed) {
      if (!done[printed]) continue;
      const auto& d = *done[printed];
      const ReverifyEntry& res = d.result;
      const std::string& status = res.status;
      const corpus::Record& r = *record_of(printed);
      if (printed < kernels.size()) {
        if (status == "holds")
          ++holds;
        else
          ++failed;
        if (d.judged.faster()) ++claimed_faster;
        if (d.judged.verified()) ++verified;
        std::printf("| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", res.config.c_str(), r.problem.name.c_str(),
                    res.sample, res.turn, speedup_text(res.claimed_speedup).c_str(),
                    interval_text(d.claimed_interval).c_str(), speedup_text(res.speedup).c_str(),
                    interval_text(d.interval).c_str(), status.c_str());
      } else {
        if (printed == kernels.size()) {
          if (!kernels.empty()) std::printf("\n");
          std::printf("| run | problem | sample | claimed | now | now spread | status | reason |\n");
          std::printf("|---|---|---|---|---|---|---|---|\n");
        }
        ++imported_status[status];
        if (status == "rejected") ++imported_classes[res.judged() ? res.hack_class : "other"];
        if (r.claimed_correct() && status != "holds") ++failed;
        std::string status_cell = status;
        if (res.hardware_differs) status_cell += ", hardware_differs";
        if (res.reference_differs) {
          status_cell += ", reference_differs";
          if (res.claimed_reference)
            status_cell += " (against its own reference: " + res.claimed_reference->status + ")";
        }
        if (!res.task_quality.empty()) status_cell += ", " + res.task_quality + " problem";
        std::printf("| %s | %s | %d | %s | %s | %s | %s | %s |\n", res.run.c_str(), r.problem.name.c_str(), res.sample,
                    speedup_text(res.claimed_speedup).c_str(), speedup_text(res.speedup).c_str(),
                    interval_text(d.interval).c_str(), status_cell.c_str(), reason_cell(res).c_str());
      }
      std::fflush(stdout);
      doc.kernels.push_back(res);
      if (progress_every > 0 && (printed + 1) % progress_every == 0 && printed + 1 < total) {
        const double elapsed = now_s() - started, per_job = elapsed / static_cast<double>(printed + 1);
        log::info("reverify: " + std::to_string(printed + 1) + "/" + std::to_string(total) + " done in " +
                  format_fixed(elapsed, 0) + " s, about " +
                  format_fixed(per_job * static_cast<double>(total - printed - 1), 0) + " s left");
      }
    }
  };
  const bool kernel_table = !kernels.empty() || imported.empty();
  if (kernel_table) {
    std::printf("| config | problem | sample | turn | claimed | claimed spread | now | now spread | status |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
  }
  StopSignals signals(25, StopSignals::Notices{"\nkforge: interrupt: no new kernels; finishing and journaling the "
                                               "evaluations in flight (Ctrl-C again aborts)\n",
                                               "\nkforge: SIGTERM: no new kernels; journaling the evaluations in "
                                               "flight before the deadline (a second SIGTERM "
                                               "aborts)\n"});
  auto stopping = [&] {
    return StopSignals::requested() || (o.time_limit_s > 0 && now_s() - started >= o.time_limit_s);
  };
  std::optional<Error> journal_error;
  (*pool)->for_each_job(total, [&](size_t i) {
    const corpus::Record& r = *record_of(i);
    bool judge = false;
    {
      std::lock_guard lock(mu);
      judge = !done[i] && !stopping() && !journal_error;
      if (!judge && !done[i]) skipped[i] = true;
    }
    if (judge) {
      ahead.wait_for(i);
      Rejudged j = i < kernels.size() ? rejudge(r, o.dir, **pool) : rejudge_imported(r, o.dir, **pool);
      std::lock_guard lock(mu);
      if (auto st = journal->append(j.result); !st && !journal_error) journal_error = st.error();
      done[i] = std::move(j);
    }
    std::lock_guard lock(mu);
    print_ready();
  });
  const size_t not_judged = static_cast<size_t>(std::count(skipped.begin(), skipped.end(), true));

  if (kernel_table) {
    std::printf("\n%d of %zu claimed speedups hold within the measured spread; %zu do not.\n", holds, kernels.size(),
                kernels.size() - static_cast<size_t>(holds));
    std::printf(
        "%d of the %d kernels claimed faster than the baseline are verified speedups (interval above 1.0 "
        "and held here).\n",
        verified, claimed_faster);
  }
  if (!imported.empty()) {
    std::string counts, classes;
    for (const auto& [st, n] : imported_status) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + st;
    for (const auto& [c, n] : imported_classes) classes += (classes.empty() ? "" : ", ") + c + " " + std::to_string(n);
    if (!classes.empty()) classes = " Rejected by hack class: " + classes + ".";
    std::printf("\nImported solutions re-verified: %zu: %s.%s\n", imported.size(), counts.c_str(), classes.c_str());
  }
  std::fflush(stdout);
  doc.corpus = o.dir;
  doc.seed = seed;
  doc.backend = backend_name;
  doc.holds = holds;
  doc.not_holding = static_cast<int>(kernels.size()) - holds;
  doc.claimed_faster = claimed_faster;
  doc.verified_speedups = verified;
  doc.recorded_at = corpus::utc_now_iso();
  if (not_judged > 0) doc.not_judged = not_judged;
  if (!imported.empty())
    doc.imported = ReverifyDocument::ImportedSummary{imported.size(), o.all, imported_status, imported_classes};
  if (auto env = (*pool)->evaluator(0).environment(); env) doc.environment = env->to_json();
  for (size_t i = 0; i < (*pool)->size(); ++i) doc.evaluators.push_back(evaluator_ref((*pool)->slot(i)));
  auto written = doc.write(o.dir, o.out);
  if (!written) {
    log::error(written.error().message);
    return kExitHarness;
  }
  log::info("results: " + *written + " (read by `kforge report " + o.dir + "`)");
  if (journal_error) {
    log::error("reverify: could not write " + journal->path() + " (" + journal_error->message +
               "); stopped so that no judgement is lost");
    return kExitHarness;
  }
  if (not_judged > 0) {
    log::warn("reverify: stopped " + std::string(StopSignals::requested() ? "on a signal" : "at --time-limit") +
              " with " + std::to_string(not_judged) + " of " + std::to_string(total) +
              " kernels not judged; `kforge reverify " + o.dir + " --resume` judges them with the same seed");
    if (StopSignals::requested()) return StopSignals::terminated() ? 143 : 130;
    return kExitFailure;
  }
  if (auto st = journal->finish(); !st) log::warn("reverify: " + st.error().message);
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace kf::agent
