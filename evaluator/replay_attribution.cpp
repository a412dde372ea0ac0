// Attribution of a kernelbench solution by trusted replay (docs/candidates.md, "Attribution"): one more checked
// trial in which the runner records every call into a kforge-built extension; then, with the runner gone, a fresh
// sandboxed replayer (evaluator/kernelbench/replay.py) that loaded only those extensions from kforge's build cache
// re-runs the recorded calls without the solution's Python, and the oracle judges the record against the replay.
// The replayer is started beside the runner, so that its start-up (python, torch) overlaps the evaluation's.
// Nothing here can fail the evaluation: whatever goes wrong leaves the attribution in_process and says why.
#include <algorithm>
#include <filesystem>

#include "core/data_dir.h"
#include "core/files.h"
#include "core/time.h"
#include "evaluator/evaluation_context.h"
#include "sandbox/leftovers.h"

namespace fs = std::filesystem;

namespace kf::eval {

namespace {

// The record's tensors: a few times one call's inputs and outputs (a chain of kernels passes intermediates),
// within what the runner's tmpfs job folder can hold.
constexpr int64_t kRecordFloorBytes = 64ll << 20;
constexpr int64_t kRecordCapBytes = 1ll << 30;
// The replay runs each call once, and once more per tensor argument (is its content used at all?).
constexpr double kReplayLimitCapS = 300;

std::string text_of(const nlohmann::json& j, const char* field) {
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool Evaluator::Impl::statically_attributed(const Compiled& compiled) {
  const nlohmann::json& f = compiled.static_findings;
  const auto a = f.is_object() && f.contains("attribution") ? f["attribution"] : nlohmann::json();
  return a.is_object() && a.contains("trusted") && a["trusted"].is_boolean() && a["trusted"].get<bool>();
}

bool Evaluator::Impl::record_trial(EvaluationContext& s) {
  s.record_bytes = std::clamp<int64_t>(4 * s.trial_bytes + kRecordFloorBytes, kRecordFloorBytes, kRecordCapBytes);
  auto r = one_trial(s, opt.trials + 3, s.seed, kVariants[0],
                     "attribution trial (trial 0's seed, extension calls recorded for the replay)");
  s.record_bytes = 0;
  return r && r->empty();
}

Replayer::~Replayer() {
  session.finish();  // before its folders go
  if (!input_dir.empty()) sandbox::remove_owned_folder(input_dir);
  if (!work_dir.empty()) sandbox::remove_owned_folder(work_dir);
}

std::unique_ptr<Replayer> Evaluator::Impl::start_replayer(const Compiled& compiled, const RunnerLaunch& launch) {
  auto r = std::make_unique<Replayer>();
  auto fail = [&](const std::string& why) {
    r->setup_error = why;
    return std::move(r);
  };
  auto work = sandbox::make_owned_folder(opt.work_root, "kforge-replay");
  if (!work) return fail("the replay could not be set up: " + work.error().message);
  r->work_dir = *work;
  // The replayer's inputs, written by the oracle later, in a folder the replayer sees read-only: the
  // extensions run in the replayer from its start, and its own folder is theirs to fill with links.
  auto input = sandbox::make_owned_folder(opt.work_root, "kforge-replay-in");
  if (!input) return fail("the replay could not be set up: " + input.error().message);
  r->input_dir = *input;
  std::error_code ec;
  fs::permissions(r->input_dir,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  ec);
  if (ec) return fail("the replay could not be set up: " + ec.message());

  nlohmann::json extensions = nlohmann::json::array();
  for (size_t i = 0; i < compiled.extensions.size(); ++i) {
    const auto& e = compiled.extensions[i];
    // Copies from kforge's own build cache: the runner's copies were the candidate's to overwrite.
    const std::string library = r->work_dir + "/ext" + std::to_string(i) + "_" + e.name + ".so";
    fs::copy_file(e.library, library, fs::copy_options::overwrite_existing, ec);
    if (ec) return fail("the replay could not copy extension " + e.name + " from the build cache: " + ec.message());
    r->keys.push_back(e.key);
    extensions.push_back({{"name", e.name}, {"key", e.key}, {"library", library}});
  }
  fs::copy_file(data_path("evaluator/kernelbench/replay.py"), r->work_dir + "/replay.py",
                fs::copy_options::overwrite_existing, ec);
  if (ec) return fail("kforge's replay.py is missing (set KFORGE_DATA_DIR): " + ec.message());
  fs::copy_file(runner_seccomp_library(opt.runner_path), r->work_dir + "/libkforge-seccomp.so",
                fs::copy_options::overwrite_existing, ec);
  if (ec) return fail("the runner's seccomp library is missing: " + ec.message());
  nlohmann::json job{{"backend", to_string(opt.backend)},
                     {"device", 0},
                     {"extensions", extensions},
                     {"input", r->input_dir},
                     {"seccomp_library", r->work_dir + "/libkforge-seccomp.so"}};
  if (auto st = write_file_atomic(r->work_dir + "/job.json", job.dump()); !st.ok())
    return fail("the replay could not be set up: " + st.error().message);

  std::vector<std::string> command(launch.command.begin(), launch.command.end() - 1);  // interpreter and flags
  command.push_back(r->work_dir + "/replay.py");
  auto env = launch.env;
  env["HOME"] = r->work_dir;
  auto confinement = launch.confinement;
  confinement.readonly_paths.push_back(r->input_dir);
  // Its lifetime: start-up, then the replay's own limit (replay_attribution) within the runner's lifetime.
  const double lifetime = kKernelbenchStartupLimitS + opt.runner_timeout_s + kReplayLimitCapS;
  if (auto st = r->session.start(command, r->work_dir, env, now_s() + lifetime, confinement); !st.ok())
    return fail("the replayer could not be started: " + st.error().message);
  r->started = true;
  return r;
}

ReplayOutcome Evaluator::Impl::replay_attribution(Replayer& r, const std::string& job_dir, double call_limit_s) {
  const double t0 = now_s();
  ReplayOutcome out;
  auto refuse = [&](const std::string& why) {
    out.trusted = false;
    out.why = why;
    out.seconds = now_s() - t0;
    return out;
  };
  if (!r.started) return refuse(r.setup_error);
  const int64_t max_bytes = kRecordCapBytes;
  auto prep = ask({{"op", "replay_prepare"},
                   {"record", job_dir + "/record"},
                   {"out", r.input_dir},
                   {"extensions", r.keys},
                   {"max_bytes", max_bytes}});
  if (!prep.ok()) return refuse("the oracle could not read the record: " + prep.error().message);
  if (!prep->value("replayable", false)) return refuse("no replay: " + text_of(*prep, "why"));
  const int calls = prep->value("calls", 0);

  auto said = [](const RunnerEnd& e) -> std::string {
    if (e.kind == RunnerEnd::Kind::timeout) return "it ran past its time limit";
    if (e.kind == RunnerEnd::Kind::crashed)
      return "it ended (signal " + std::to_string(e.signal) + ", exit " + std::to_string(e.exit_code) + ")";
    if (e.kind == RunnerEnd::Kind::protocol) return e.protocol_error;
    const auto& j = e.reply;
    auto ok = j.find("ok");
    if (ok != j.end() && ok->is_boolean() && ok->get<bool>()) return "";
    return text_of(j, "code") + ": " + text_of(j, "detail");
  };
  auto ready = r.session.exchange(nullptr, now_s() + kKernelbenchStartupLimitS);
  if (auto why = said(ready); !why.empty()) return refuse("the replayer did not start: " + why.substr(0, 600));
  const double limit = std::min(kReplayLimitCapS, 10 + 4 * call_limit_s * calls);
  auto done = r.session.exchange(nlohmann::json{{"op", "replay"}}, now_s() + limit);
  if (auto why = said(done); !why.empty())
    return refuse("the recorded calls did not replay without the solution's Python: " + why.substr(0, 600));
  r.session.finish();
  auto judged =
      ask({{"op", "replay_judge"}, {"dir", r.work_dir}, {"tolerances", tolerances_json()}, {"max_bytes", max_bytes}});
  if (!judged.ok()) return refuse("the oracle could not judge the replay: " + judged.error().message);
  out.calls = calls;
  out.trusted = judged->value("trusted", false);
  out.why = out.trusted ? "" : text_of(*judged, "why");
  out.mismatch = judged->value("mismatch", false);
  out.seconds = now_s() - t0;
  return out;
}

}  // namespace kf::eval
