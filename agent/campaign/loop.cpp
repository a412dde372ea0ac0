#include "agent/campaign/loop.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "agent/prompt/extract.h"
#include "agent/search/ask_messages.h"
#include "agent/search/history.h"
#include "agent/search/stop_rule.h"
#include "agent/search/strategy.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/secrets.h"
#include "corpus/reply_document.h"
#include "verdict/verdict.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

using search::Ask;
using search::History;
using search::Judged;

// One ask of a round with its place in the unit: the turn its records carry and its lineage.
struct Planned {
  Ask ask;
  int turn = 0;
  std::optional<corpus::Lineage> lineage;  // none for refine
  int round() const { return lineage ? lineage->round : turn; }
};

// How one ask ended.
enum class AskEnd { judged, stopped, held_back, provider_failed, harness_failed };

// A unit while it runs: the job, its strategy and rules, what it has judged. A round's asks run on threads of
// their own; `mu` guards the history and what the unit has spent.
struct Unit {
  const UnitJob& job;
  std::unique_ptr<search::Strategy> strategy;
  search::StopRules stops;
  search::Opening opening;
  History history;
  search::Spend live;                    // the history's spending plus calls of the running round that ended
  std::optional<std::string> held_back;  // the stop rule that refused a call of the running round
  std::mutex mu;
};

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

// The unit's records of earlier sessions as a history: evaluations with their answers, failures with their cost.
Result<History> load_history(const UnitJob& job) {
  History h;
  for (const auto& r : job.prior_records) {
    if (r.kind == corpus::Kind::provider_failure || r.kind == corpus::Kind::harness_failure)
      h.add_failure(r.lineage ? r.lineage->round : r.turn, r.usage.total(), r.cost_usd);
    if (r.kind != corpus::Kind::evaluation || h.has_turn(r.turn)) continue;  // a duplicate is never replayed
    const std::string reply_rel = r.reply ? r.reply->path : "";
    auto reply_text = read_file((fs::path(job.corpus->dir()) / reply_rel).string());
    if (!reply_text)
      return make_error("corpus.reply_missing", "cannot resume " + job.key.file_stem() + ": reply file '" + reply_rel +
                                                    "' is missing from the corpus folder");
    auto reply = corpus::ReplyDocument::parse(*reply_text);
    h.add(search::Judged::from(r, reply ? reply->answer : ""));
  }
  return h;
}

// A reply of this turn that an earlier session received and saved but never recorded (it was stopped or
// killed while the reply waited for, or went through, judging). Its cost was never counted: the caller
// charges it. nullopt when there is none, when a record already names it, or when it cannot be read.
std::optional<corpus::ReplyDocument> saved_reply(const UnitJob& job, const std::string& stem) {
  const std::string rel = corpus::ReplyDocument::relative_path(stem);
  for (const auto& r : job.prior_records)
    if (r.reply && r.reply->path == rel) return std::nullopt;
  const fs::path path = fs::path(job.corpus->dir()) / rel;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  auto text = read_file(path.string());
  if (!text) return std::nullopt;
  return corpus::ReplyDocument::parse(*text);  // a damaged file: the call is made again
}

Status append(const UnitJob& job, corpus::Record record) {
  record.recorded_at = corpus::utc_now_iso();
  if (auto st = job.corpus->append(record); !st) return st;  // the writer redacts secrets
  job.on_record(record);
  return ok_status();
}

void charge(Unit& u, double usd, int64_t tokens) {
  {
    std::lock_guard lock(u.mu);
    u.live.usd += usd;
    u.live.tokens += tokens;
  }
  u.job.on_spent(usd, tokens);
}

// Whether a call may be sent now: the campaign's stop and caps first (nullopt: stop the unit), then the unit's
// own budgets (false: held back, the unit ends with that rule).
std::optional<bool> may_send(Unit& u) {
  if (!u.job.may_call_model()) return std::nullopt;
  std::lock_guard lock(u.mu);
  if (auto refused = u.stops.refuses_call(u.live)) {
    u.held_back = refused;
    return false;
  }
  return true;
}

struct Asked {
  providers::ProviderResult<providers::Reply> result = providers::Reply{};
  std::string sent_at;
  std::optional<double> queue_wait_s;
  bool saved = false;
  std::optional<AskEnd> withheld;
};

// The model's reply to the ask: a saved one of an earlier session, or a call through the gate.
Asked ask_model(Unit& u, const Planned& p, const History& before, const std::string& stem) {
  Asked a;
  if (auto saved = saved_reply(u.job, stem)) {
    log::info(stem + ": judging the reply that arrived before kforge stopped (not asked for again)");
    a.result = saved->to_reply();
    a.sent_at = saved->sent_at;
    a.queue_wait_s = saved->queue_wait_s;
    a.saved = true;
    charge(u, saved->cost_usd, saved->usage.total());
    return a;
  }
  // sent_at is when the call is sent, after its wait for a concurrency slot (queue_wait_s).
  const auto queued = std::chrono::steady_clock::now();
  providers::CallGate gate;
  gate.may_send = [&] {
    const auto allowed = may_send(u);
    if (!allowed || !*allowed) a.withheld = allowed ? AskEnd::held_back : AskEnd::stopped;
    return allowed && *allowed;
  };
  gate.sent = [&] {
    a.sent_at = corpus::utc_now_iso();
    a.queue_wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count();
  };
  gate.settled = [&u](double usd, int64_t tokens) { charge(u, usd, tokens); };
  a.result = u.job.provider->complete(search::messages_for(p.ask, before, u.opening), gate);
  return a;
}

Status record_provider_failure(Unit& u, const Planned& p, const providers::ProviderError& err, const Asked& a) {
  auto r = base_record(u.job, corpus::Kind::provider_failure, p.turn);
  r.lineage = p.lineage;
  r.error = corpus::ProviderErrorInfo{to_string(err.kind), to_string(err.cause), err.message,
                                      err.advice,          err.http_status,      err.attempts};
  r.usage = corpus::token_usage(err.usage);
  r.cost_usd = providers::cost_usd(err.usage, u.job.provider->config().prices);
  r.started_at = a.sent_at;
  r.queue_wait_s = a.queue_wait_s;
  r.environment = u.job.run->environment;
  {
    std::lock_guard lock(u.mu);
    u.history.add_failure(p.round(), r.usage.total(), r.cost_usd);
  }
  return append(u.job, std::move(r));
}

// Extracts the candidate, judges it and fills the record's verdict; harness_failed when kforge could not judge.
Result<AskEnd> judge_reply(Unit& u, const std::string& answer, const std::string& stem, corpus::Record& record) {
  const UnitJob& job = u.job;
  eval::Verdict verdict;
  Extraction ex = extract_candidate(job.candidate.format, answer);
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
      record.kind = corpus::Kind::harness_failure;
      record.extraction.clear();
      record.verdict = verdict;
      log::error("harness failure judging " + stem + ": " + verdict.to_json().dump());
      return AskEnd::harness_failed;
    }
  }
  auto feedback = job.prompt->feedback(verdict);
  if (!feedback) return feedback.error();
  record.verdict = verdict;
  record.feedback = *feedback;
  return AskEnd::judged;
}

// One ask of a round, from the call to its record.
Result<AskEnd> run_ask(Unit& u, const Planned& p, const History& before) {
  const std::string stem = turn_stem(u.job, p.turn);
  Asked a = ask_model(u, p, before, stem);
  if (a.withheld) return *a.withheld;
  if (auto* err = std::get_if<providers::ProviderError>(&a.result)) {
    if (auto s = record_provider_failure(u, p, *err, a); !s) return s.error();
    return AskEnd::provider_failed;
  }
  const auto doc = corpus::ReplyDocument::from_reply(std::get<providers::Reply>(a.result), a.sent_at, a.queue_wait_s);
  std::string reply_rel = corpus::ReplyDocument::relative_path(stem);
  if (!a.saved) {
    auto written = u.job.corpus->write_companion(corpus::ReplyDocument::kFolder, stem + ".json",
                                                 secrets::redact(doc.to_json().dump(2)));
    if (!written) return written.error();
    reply_rel = *written;
  }
  auto record = base_record(u.job, corpus::Kind::evaluation, p.turn);
  record.lineage = p.lineage;
  record.usage = doc.usage;
  record.cost_usd = doc.cost_usd;
  record.reply = doc.ref(reply_rel);
  record.started_at = a.sent_at;
  record.queue_wait_s = a.queue_wait_s;
  record.environment = u.job.run->environment;
  auto end = judge_reply(u, doc.answer, stem, record);
  if (!end) return end.error();
  {
    std::lock_guard lock(u.mu);
    if (*end == AskEnd::judged)
      u.history.add(search::Judged::from(record, doc.answer));
    else
      u.history.add_failure(p.round(), record.usage.total(), record.cost_usd);
  }
  if (auto s = append(u.job, std::move(record)); !s) return s.error();
  return *end;
}

// A turn judged in an earlier session must have been asked as the search plans it now: otherwise what plans it
// (the configuration, its seed, kforge) changed, and the rounds after it would not be the search's own.
Status check_recorded(const Unit& u, const Planned& p) {
  const Judged* recorded = u.history.find({u.job.key.sample, p.turn});
  if (!recorded || recorded->lineage == p.lineage) return ok_status();
  auto shown = [](const std::optional<corpus::Lineage>& l) { return l ? l->to_json().dump() : std::string("none"); };
  return make_error("corpus.lineage_mismatch",
                    turn_stem(u.job, p.turn) + " was recorded with lineage " + shown(recorded->lineage) +
                        " but the search now plans " + shown(p.lineage) +
                        ": the configuration (loop.*) or kforge changed since it ran; resume with what started it "
                        "or start a new run folder");
}

// The round's asks not yet judged, in parallel; the worst of their ends (an error before all).
Result<AskEnd> run_round(Unit& u, const std::vector<Planned>& round, const History& before) {
  std::vector<Result<AskEnd>> ends(round.size(), AskEnd::judged);
  std::vector<std::thread> threads;
  for (const auto& planned : round)
    if (auto st = check_recorded(u, planned); !st) return st.error();
  for (size_t i = 0; i < round.size(); ++i) {
    if (u.history.has_turn(round[i].turn)) continue;
    if (!u.job.may_call_model()) {
      ends[i] = AskEnd::stopped;
      continue;
    }
    threads.emplace_back([&, i] { ends[i] = run_ask(u, round[i], before); });
  }
  for (auto& t : threads) t.join();
  AskEnd worst = AskEnd::judged;
  for (const auto& end : ends) {
    if (!end) return end.error();
    worst = std::max(worst, *end);
  }
  return worst;
}

// The asks of round `round`, planned from what rounds before it judged, numbered from `first_turn`.
std::vector<Planned> plan_round(const Unit& u, const History& before, int round, int first_turn) {
  std::vector<Planned> planned;
  for (const Ask& ask : u.strategy->next_round(before, round, u.stops.evaluations_left(before))) {
    Planned p{ask, first_turn + static_cast<int>(planned.size()), std::nullopt};
    if (u.strategy->records_lineage())
      p.lineage = corpus::Lineage{u.strategy->name(), round, ask.island, ask.parents, ask.inspirations};
    planned.push_back(std::move(p));
  }
  return planned;
}

Status finish(const Unit& u, int last_turn, const std::string& reason) {
  auto r = base_record(u.job, corpus::Kind::unit_done, last_turn);
  r.reason = reason;
  r.turns_used = last_turn;
  r.best_turn = u.history.best_turn();
  return append(u.job, std::move(r));
}

UnitOutcome outcome_of(AskEnd end) {
  switch (end) {
    case AskEnd::stopped: return UnitOutcome::stopped;
    case AskEnd::provider_failed: return UnitOutcome::provider_failed;
    case AskEnd::harness_failed: return UnitOutcome::harness_failed;
    default: return UnitOutcome::done;
  }
}

// Round after round, from the first: rounds recorded in full are planned again and passed over, so a resumed
// unit reaches the state it was killed in before it asks anything.
Result<UnitOutcome> search_rounds(Unit& u) {
  int asked = 0;  // turns of the rounds before this one
  for (int round = 1;; ++round) {
    const History before = u.history.before(round);
    if (auto reason = u.stops.reached(before)) {
      if (auto s = finish(u, asked, *reason); !s) return s.error();
      return UnitOutcome::done;
    }
    const auto planned = plan_round(u, before, round, asked + 1);
    if (planned.empty()) {
      if (auto s = finish(u, asked, "rounds_exhausted"); !s) return s.error();
      return UnitOutcome::done;
    }
    auto end = run_round(u, planned, before);
    if (!end) return end.error();
    asked += static_cast<int>(planned.size());
    if (*end == AskEnd::held_back) {
      if (auto s = finish(u, asked, u.held_back.value_or("budget")); !s) return s.error();
      return UnitOutcome::done;
    }
    if (*end != AskEnd::judged) return outcome_of(*end);
    u.history.set_rounds_done(round);
  }
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
  auto strategy = search::make_strategy(job.settings.search);
  if (!strategy) return strategy.error();
  auto history = load_history(job);
  if (!history) return history.error();
  Unit u{job,
         std::move(*strategy),
         search::StopRules::from(job.settings.search),
         {job.system_prompt, job.first_turn, job.settings.search.keep_last_attempts, job.candidate.format},
         std::move(*history),
         {},
         std::nullopt,
         {}};
  u.live = u.history.spend();
  return search_rounds(u);
}

}  // namespace kf::agent
