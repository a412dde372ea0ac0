#include "agent/campaign/loop.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "agent/prompt/extract.h"
#include "agent/prompt/feedback.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/secrets.h"
#include "verdict/verdict.h"
#include "corpus/reply_document.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

corpus::TokenUsage usage_of(const providers::Usage& u) {
  return {u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens, to_string(u.reasoning_source)};
}

corpus::Record base_record(const UnitJob& job, corpus::Kind kind, int turn) {
  const auto& cfg = job.provider->config();
  corpus::Record r;
  r.kind = kind;
  r.run_id = job.run->run_id;
  r.session = job.run->session;
  r.shard = job.run->shard;
  r.config = job.key.config;
  r.provider = to_string(cfg.provider);
  r.model = cfg.model;
  r.candidate_format = to_string(job.candidate.format);
  r.problem = job.problem->ref();
  r.sample = job.key.sample;
  r.turn = turn;
  return r;
}

std::string turn_stem(const UnitJob& job, int turn) { return job.key.file_stem() + "__t" + std::to_string(turn); }

struct Resumed {
  std::vector<Attempt> attempts;
  int next_turn = 1;
  bool last_correct = false;
  std::optional<int> best_turn;
  double best_speedup = -1;
  double best_peak_fraction = 0;  // the highest fraction of peak among the unit's correct kernels

  // A correct kernel on `turn`: the best by speedup is the unit's best kernel.
  void correct_kernel(int turn, double speedup, std::optional<double> peak_fraction) {
    if (!best_turn || speedup > best_speedup) {
      best_turn = turn;
      best_speedup = speedup;
    }
    if (peak_fraction) best_peak_fraction = std::max(best_peak_fraction, *peak_fraction);
  }
  // loop.stop_at_peak_fraction: the unit's kernels have reached the target.
  bool at_peak_target(const UnitSettings& s) const {
    return s.stop_at_peak_fraction && best_peak_fraction >= *s.stop_at_peak_fraction;
  }
};

std::optional<double> peak_fraction_of(const std::optional<eval::Verdict>& verdict) {
  return verdict && verdict->peak ? std::optional<double>(verdict->peak->fraction) : std::nullopt;
}

Result<Resumed> resume_state(const UnitJob& job) {
  Resumed st;
  std::vector<const corpus::Record*> evals;
  for (const auto& r : job.prior_records)
    if (r.kind == corpus::Kind::evaluation) evals.push_back(&r);
  std::stable_sort(evals.begin(), evals.end(), [](const auto* a, const auto* b) { return a->turn < b->turn; });
  for (const auto* r : evals) {
    int turn = r->turn;
    if (turn < st.next_turn) continue;  // a duplicate would be a bug elsewhere; never replay it twice
    std::string reply_rel = r->reply ? r->reply->path : "";
    auto reply_text = read_file((fs::path(job.corpus->dir()) / reply_rel).string());
    if (!reply_text)
      return make_error("corpus.reply_missing", "cannot resume " + job.key.file_stem() + ": reply file '" +
                                                    reply_rel + "' is missing from the corpus folder");
    auto reply = corpus::ReplyDocument::parse(*reply_text);
    st.attempts.push_back({reply ? reply->answer : "", r->feedback});
    st.next_turn = turn + 1;
    st.last_correct = r->correct();
    if (st.last_correct) st.correct_kernel(turn, r->speedup().value_or(0.0), peak_fraction_of(r->verdict));
  }
  return st;
}

// A reply of this turn that an earlier session received and saved but never recorded (it was stopped or
// killed while the reply waited for, or went through, judging). Its cost was never counted: the caller
// charges it. nullopt when there is none, when a record already names it, or when it cannot be read.
std::optional<providers::Reply> saved_reply(const UnitJob& job, const std::string& stem, std::string& sent_at,
                                            std::optional<double>& queue_wait_s) {
  const std::string rel = corpus::ReplyDocument::relative_path(stem);
  for (const auto& r : job.prior_records)
    if (r.reply && r.reply->path == rel) return std::nullopt;
  const fs::path path = fs::path(job.corpus->dir()) / rel;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  auto text = read_file(path.string());
  if (!text) return std::nullopt;
  auto doc = corpus::ReplyDocument::parse(*text);
  if (!doc) return std::nullopt;  // a damaged file: the call is made again
  providers::Reply reply;
  reply.answer = doc->answer;
  reply.reasoning = doc->reasoning;
  reply.finish_reason = doc->finish_reason;
  reply.model = doc->model;
  reply.cost_usd = doc->cost_usd;
  reply.attempts = doc->attempts;
  reply.latency_s = doc->latency_s;
  reply.usage.input_tokens = doc->usage.input_tokens;
  reply.usage.cached_input_tokens = doc->usage.cached_input_tokens;
  reply.usage.output_tokens = doc->usage.output_tokens;
  reply.usage.reasoning_tokens = doc->usage.reasoning_tokens;
  const std::string& source = doc->usage.reasoning_tokens_source;
  reply.usage.reasoning_source = source == "reported"    ? providers::Usage::ReasoningSource::reported
                                 : source == "estimated" ? providers::Usage::ReasoningSource::estimated
                                                         : providers::Usage::ReasoningSource::none;
  sent_at = doc->sent_at;
  queue_wait_s = doc->queue_wait_s;
  job.on_spent(reply.cost_usd, usage_of(reply.usage).total());
  return reply;
}

Status append(const UnitJob& job, corpus::Record record) {
  record.recorded_at = corpus::utc_now_iso();
  if (auto st = job.corpus->append(record); !st) return st;  // the writer redacts secrets
  job.on_record(record);
  return ok_status();
}

Status finish(const UnitJob& job, int turn, const std::string& reason, const Resumed& st) {
  auto r = base_record(job, corpus::Kind::unit_done, turn);
  r.reason = reason;
  r.turns_used = turn;
  r.best_turn = st.best_turn;
  return append(job, std::move(r));
}

}  // namespace

std::string to_string(UnitOutcome o) {
  switch (o) {
    case UnitOutcome::done: return "done";
    case UnitOutcome::stopped: return "stopped";
    case UnitOutcome::provider_failed: return "provider_failed";
    case UnitOutcome::harness_failed: return "harness_failed";
  }
  return "?";
}

bool unit_finished(const std::vector<corpus::Record>& prior) {
  return std::any_of(prior.begin(), prior.end(), [](const auto& r) { return r.kind == corpus::Kind::unit_done; });
}

Result<UnitOutcome> run_unit(const UnitJob& job) {
  if (unit_finished(job.prior_records)) return UnitOutcome::done;
  auto resumed = resume_state(job);
  if (!resumed) return resumed.error();
  Resumed st = std::move(*resumed);
  const int turns = std::max(1, job.settings.turns);

  // Killed after the last evaluation was recorded but before the unit was closed.
  if (!st.attempts.empty()) {
    if (st.last_correct && job.settings.stop_at_first_correct) {
      if (auto s = finish(job, st.next_turn - 1, "correct", st); !s) return s.error();
      return UnitOutcome::done;
    }
    if (st.at_peak_target(job.settings)) {
      if (auto s = finish(job, st.next_turn - 1, kPeakFractionReached, st); !s) return s.error();
      return UnitOutcome::done;
    }
    if (st.next_turn > turns) {
      if (auto s = finish(job, st.next_turn - 1, "turns_exhausted", st); !s) return s.error();
      return UnitOutcome::done;
    }
  }

  for (int turn = st.next_turn; turn <= turns; ++turn) {
    if (!job.may_call_model()) return UnitOutcome::stopped;
    auto messages = build_messages(job.system_prompt, job.first_turn, st.attempts, job.settings.keep_last_attempts);
    const std::string stem = turn_stem(job, turn);
    std::string started_at;
    std::optional<double> queue_wait_s;
    std::string reply_rel;
    auto saved = saved_reply(job, stem, started_at, queue_wait_s);
    providers::ProviderResult<providers::Reply> result = providers::Reply{};
    if (saved) {
      log::info(stem + ": judging the reply that arrived before kforge stopped (not asked for again)");
      result = std::move(*saved);
      reply_rel = corpus::ReplyDocument::relative_path(stem);
    } else {
      // started_at is when the call is sent, after its wait for a concurrency slot (queue_wait_s).
      const auto queued = std::chrono::steady_clock::now();
      bool withheld = false;
      providers::CallGate gate;
      gate.may_send = [&] { return !(withheld = !job.may_call_model()); };
      gate.sent = [&] {
        started_at = corpus::utc_now_iso();
        queue_wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count();
      };
      gate.settled = job.on_spent;
      result = job.provider->complete(messages, gate);
      if (withheld) return UnitOutcome::stopped;
    }

    if (auto* err = std::get_if<providers::ProviderError>(&result)) {
      auto r = base_record(job, corpus::Kind::provider_failure, turn);
      r.error = corpus::ProviderErrorInfo{to_string(err->kind), to_string(err->cause), err->message,
                                          err->advice,          err->http_status,      err->attempts};
      r.usage = usage_of(err->usage);
      r.cost_usd = providers::cost_usd(err->usage, job.provider->config().prices);
      r.started_at = started_at;
      r.queue_wait_s = queue_wait_s;
      r.environment = job.run->environment;
      if (auto s = append(job, std::move(r)); !s) return s.error();
      return UnitOutcome::provider_failed;
    }
    const providers::Reply& reply = std::get<providers::Reply>(result);
    if (!saved) {
      const corpus::ReplyDocument reply_doc{reply.answer,  reply.reasoning,    reply.finish_reason,
                                            reply.model,   usage_of(reply.usage), reply.cost_usd,
                                            reply.attempts, reply.latency_s,   started_at,
                                            queue_wait_s};
      auto written = job.corpus->write_companion(corpus::ReplyDocument::kFolder, stem + ".json",
                                                 secrets::redact(reply_doc.to_json().dump(2)));
      if (!written) return written.error();
      reply_rel = *written;
    }

    auto record = base_record(job, corpus::Kind::evaluation, turn);
    record.usage = usage_of(reply.usage);
    record.cost_usd = reply.cost_usd;
    record.reply = corpus::ReplyRef{reply_rel,
                                    reply.finish_reason,
                                    reply.model,
                                    reply.attempts,
                                    reply.latency_s,
                                    static_cast<int64_t>(reply.answer.size()),
                                    static_cast<int64_t>(reply.reasoning.size())};
    record.started_at = started_at;
    record.queue_wait_s = queue_wait_s;
    record.environment = job.run->environment;

    eval::Verdict verdict;
    Extraction ex = extract_candidate(job.candidate.format, reply.answer);
    if (!ex.source) {
      record.extraction = ex.failure;
      verdict = eval::Verdict::no_code(ex.failure, ex.message);
    } else {
      record.extraction = "ok";
      auto src_path = job.corpus->write_companion("sources", stem + job.candidate.source_extension, *ex.source);
      if (!src_path) return src_path.error();
      record.source = corpus::SourceRef{*src_path, sha256_hex(*ex.source)};
      const std::string abs_source = fs::absolute(fs::path(job.corpus->dir()) / *src_path).string();
      Judgment judged = job.judge->judge(*job.problem, abs_source);
      verdict = std::move(judged.verdict);
      verdict.choose_primary_baseline(job.settings.baseline);
      record.evaluator = judged.evaluator;
      if (verdict.kind == eval::VerdictKind::harness_error) {
        auto r = record;
        r.kind = corpus::Kind::harness_failure;
        r.extraction.clear();
        r.verdict = verdict;
        if (auto s = append(job, std::move(r)); !s) return s.error();
        log::error("harness failure judging " + stem + ": " + verdict.to_json().dump());
        return UnitOutcome::harness_failed;
      }
    }
    auto feedback = job.prompt->feedback(verdict);
    if (!feedback) return feedback.error();
    record.verdict = verdict;
    record.feedback = *feedback;
    if (auto s = append(job, std::move(record)); !s) return s.error();

    st.attempts.push_back({reply.answer, *feedback});
    st.next_turn = turn + 1;
    st.last_correct = verdict.correct();
    if (st.last_correct) {
      st.correct_kernel(turn, verdict.speedup.value_or(0.0), peak_fraction_of(verdict));
      if (job.settings.stop_at_first_correct) {
        if (auto s = finish(job, turn, "correct", st); !s) return s.error();
        return UnitOutcome::done;
      }
      if (st.at_peak_target(job.settings)) {
        if (auto s = finish(job, turn, kPeakFractionReached, st); !s) return s.error();
        return UnitOutcome::done;
      }
    }
  }
  if (auto s = finish(job, turns, "turns_exhausted", st); !s) return s.error();
  return UnitOutcome::done;
}

}  // namespace kf::agent
