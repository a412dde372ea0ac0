#include "agent/loop.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "agent/extract.h"
#include "agent/feedback.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/secrets.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

nlohmann::json usage_json(const Usage& u) {
  return {{"input_tokens", u.input_tokens},
          {"cached_input_tokens", u.cached_input_tokens},
          {"output_tokens", u.output_tokens},
          {"reasoning_tokens", u.reasoning_tokens},
          {"reasoning_tokens_source", to_string(u.reasoning_source)}};
}

nlohmann::json base_record(const UnitJob& job, const char* kind, int turn) {
  const auto& cfg = job.provider->config();
  return {{"schema", kCorpusSchema},
          {"kind", kind},
          {"run_id", job.run->run_id},
          {"session", job.run->session},
          {"config", job.key.config},
          {"provider", to_string(cfg.provider)},
          {"model", cfg.model},
          {"problem", job.problem->to_json()},
          {"sample", job.key.sample},
          {"turn", turn}};
}

std::string turn_stem(const UnitJob& job, int turn) { return job.key.file_stem() + "__t" + std::to_string(turn); }

struct Resumed {
  std::vector<Attempt> attempts;
  int next_turn = 1;
  bool last_correct = false;
  std::optional<int> best_turn;
  double best_speedup = -1;
};

Result<Resumed> resume_state(const UnitJob& job) {
  Resumed st;
  std::vector<const nlohmann::json*> evals;
  for (const auto& r : job.prior_records)
    if (r.value("kind", "") == kKindEvaluation) evals.push_back(&r);
  std::sort(evals.begin(), evals.end(),
            [](const auto* a, const auto* b) { return a->value("turn", 0) < b->value("turn", 0); });
  for (const auto* r : evals) {
    int turn = r->value("turn", 0);
    if (turn < st.next_turn) continue;  // a duplicate would be a bug elsewhere; never replay it twice
    std::string reply_rel = r->contains("reply") ? (*r)["reply"].value("path", "") : "";
    auto reply_text = read_file((fs::path(job.corpus->dir()) / reply_rel).string());
    if (!reply_text)
      return make_error("corpus.reply_missing", "cannot resume " + job.key.file_stem() + ": reply file '" +
                                                    reply_rel + "' is missing from the corpus folder");
    auto reply = nlohmann::json::parse(*reply_text, nullptr, false);
    st.attempts.push_back({reply.is_object() ? reply.value("answer", "") : "", r->value("feedback", "")});
    st.next_turn = turn + 1;
    st.last_correct = record_correct(*r);
    if (st.last_correct) {
      double sp = record_speedup(*r).value_or(0.0);
      if (!st.best_turn || sp > st.best_speedup) {
        st.best_turn = turn;
        st.best_speedup = sp;
      }
    }
  }
  return st;
}

Status append(const UnitJob& job, const nlohmann::json& record) {
  // Model text can quote anything, keys included if a key ever reached a prompt: redact.
  auto line = nlohmann::json::parse(secrets::redact(record.dump()));
  if (auto st = job.corpus->append(line); !st) return st;
  job.on_record(line);
  return ok_status();
}

Status finish(const UnitJob& job, int turn, const std::string& reason, const Resumed& st) {
  auto r = base_record(job, kKindUnitDone, turn);
  r["reason"] = reason;
  r["turns_used"] = turn;
  r["best_turn"] = st.best_turn ? nlohmann::json(*st.best_turn) : nlohmann::json(nullptr);
  r["recorded_at"] = utc_now_iso();
  return append(job, r);
}

}  // namespace

nlohmann::json ProblemInfo::to_json() const {
  return {{"name", name}, {"file_hash", file_hash}, {"category", category}, {"path", path}};
}

std::string to_string(UnitOutcome o) {
  switch (o) {
    case UnitOutcome::done: return "done";
    case UnitOutcome::stopped: return "stopped";
    case UnitOutcome::provider_failed: return "provider_failed";
    case UnitOutcome::harness_failed: return "harness_failed";
  }
  return "?";
}

bool unit_finished(const std::vector<nlohmann::json>& prior) {
  return std::any_of(prior.begin(), prior.end(), [](const auto& r) { return r.value("kind", "") == kKindUnitDone; });
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
    if (st.next_turn > turns) {
      if (auto s = finish(job, st.next_turn - 1, "turns_exhausted", st); !s) return s.error();
      return UnitOutcome::done;
    }
  }

  for (int turn = st.next_turn; turn <= turns; ++turn) {
    if (!job.may_call_model()) return UnitOutcome::stopped;
    auto messages = build_messages(job.system_prompt, job.first_turn, st.attempts, job.settings.keep_last_attempts);
    const std::string started_at = utc_now_iso();
    auto result = job.provider->complete(messages);

    if (auto* err = std::get_if<ProviderError>(&result)) {
      auto r = base_record(job, kKindProviderFailure, turn);
      r["error"] = {{"kind", to_string(err->kind)}, {"cause", to_string(err->cause)}, {"message", err->message},
                    {"advice", err->advice}, {"http_status", err->http_status}, {"attempts", err->attempts}};
      r["usage"] = usage_json(err->usage);
      r["cost_usd"] = cost_usd(err->usage, job.provider->config().prices);
      r["started_at"] = started_at;
      r["recorded_at"] = utc_now_iso();
      r["environment"] = job.run->environment;
      if (auto s = append(job, r); !s) return s.error();
      return UnitOutcome::provider_failed;
    }
    const Reply& reply = std::get<Reply>(result);
    const std::string stem = turn_stem(job, turn);
    nlohmann::json reply_doc = {{"answer", reply.answer},       {"reasoning", reply.reasoning},
                                {"finish_reason", reply.finish_reason}, {"model", reply.model},
                                {"usage", usage_json(reply.usage)}, {"cost_usd", reply.cost_usd},
                                {"attempts", reply.attempts},   {"latency_s", reply.latency_s}};
    auto reply_path = job.corpus->write_companion("replies", stem + ".json", secrets::redact(reply_doc.dump(2)));
    if (!reply_path) return reply_path.error();

    auto record = base_record(job, kKindEvaluation, turn);
    record["usage"] = usage_json(reply.usage);
    record["cost_usd"] = reply.cost_usd;
    record["reply"] = {{"path", *reply_path},
                       {"finish_reason", reply.finish_reason},
                       {"model_reported", reply.model},
                       {"attempts", reply.attempts},
                       {"latency_s", reply.latency_s},
                       {"answer_chars", reply.answer.size()},
                       {"reasoning_chars", reply.reasoning.size()}};
    record["started_at"] = started_at;
    record["environment"] = job.run->environment;

    nlohmann::json verdict;
    Extraction ex = extract_source(reply.answer);
    if (!ex.source) {
      record["extraction"] = ex.failure;
      record["source"] = nullptr;
      verdict = no_code_verdict(ex.failure, ex.message);
    } else {
      record["extraction"] = "ok";
      auto src_path = job.corpus->write_companion("sources", stem + job.run->source_extension, *ex.source);
      if (!src_path) return src_path.error();
      record["source"] = {{"path", *src_path}, {"sha256", sha256_hex(*ex.source)}};
      const std::string abs_source = fs::absolute(fs::path(job.corpus->dir()) / *src_path).string();
      verdict = job.judge->judge(*job.problem, abs_source);
      if (verdict.value("verdict", "") == "harness_error") {
        auto r = base_record(job, kKindHarnessFailure, turn);
        r["usage"] = record["usage"];
        r["cost_usd"] = record["cost_usd"];
        r["reply"] = record["reply"];
        r["source"] = record["source"];
        r["verdict"] = verdict;
        r["started_at"] = started_at;
        r["recorded_at"] = utc_now_iso();
        r["environment"] = job.run->environment;
        if (auto s = append(job, r); !s) return s.error();
        log::error("harness failure judging " + stem + ": " + verdict.dump());
        return UnitOutcome::harness_failed;
      }
    }
    auto feedback = render_feedback(*job.templates, verdict, job.run->code_label);
    if (!feedback) return feedback.error();
    record["verdict"] = verdict;
    record["feedback"] = *feedback;
    record["recorded_at"] = utc_now_iso();
    if (auto s = append(job, record); !s) return s.error();

    st.attempts.push_back({reply.answer, *feedback});
    st.next_turn = turn + 1;
    st.last_correct = verdict.value("correct", false);
    if (st.last_correct) {
      double sp = verdict.value("speedup", nlohmann::json()).is_number() ? verdict["speedup"].get<double>() : 0.0;
      if (!st.best_turn || sp > st.best_speedup) {
        st.best_turn = turn;
        st.best_speedup = sp;
      }
      if (job.settings.stop_at_first_correct) {
        if (auto s = finish(job, turn, "correct", st); !s) return s.error();
        return UnitOutcome::done;
      }
    }
  }
  if (auto s = finish(job, turns, "turns_exhausted", st); !s) return s.error();
  return UnitOutcome::done;
}

}  // namespace kf::agent
