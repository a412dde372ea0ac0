// Attribution of a kernelbench solution by trusted replay (docs/candidates.md, "Attribution"): one more checked
// trial in which the runner records every call into a kforge-built extension; then, with the runner gone, a fresh
// sandboxed replayer (evaluator/kernelbench/replay.py) loads only those extensions from kforge's build cache and
// re-runs the recorded calls without the solution's Python, and the oracle judges the record against the replay.
// Nothing here can fail the evaluation: whatever goes wrong leaves the attribution in_process and says why.
#include <algorithm>
#include <filesystem>

#include "core/data_dir.h"
#include "core/files.h"
#include "core/time.h"
#include "evaluator/evaluator_impl.h"
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

bool Evaluator::Impl::record_trial(Verdict& v, Session& s, uint64_t seed) {
  s.record_bytes = std::clamp<int64_t>(4 * trial_bytes + kRecordFloorBytes, kRecordFloorBytes, kRecordCapBytes);
  auto r = one_trial(v, s, opt.trials + 3, seed, kVariants[0],
                     "attribution trial (trial 0's seed, extension calls recorded for the replay)");
  s.record_bytes = 0;
  return r && r->empty();
}

ReplayOutcome Evaluator::Impl::replay_attribution(const Compiled& compiled, const std::string& job_dir,
                                                  const RunnerLaunch& launch, double call_limit_s) {
  const double t0 = now_s();
  ReplayOutcome out;
  auto refuse = [&](const std::string& why) {
    out.trusted = false;
    out.why = why;
    out.seconds = now_s() - t0;
    return out;
  };
  auto folder = sandbox::make_owned_folder(opt.work_root, "kforge-replay");
  if (!folder) return refuse("the replay could not be set up: " + folder.error().message);
  struct Cleanup {
    std::string dir;
    ~Cleanup() { sandbox::remove_owned_folder(dir); }
  } cleanup{*folder};
  const std::string dir = *folder;

  nlohmann::json keys = nlohmann::json::array(), extensions = nlohmann::json::array();
  for (size_t i = 0; i < compiled.extensions.size(); ++i) {
    const auto& e = compiled.extensions[i];
    // Copies from kforge's own build cache: the runner's copies were the candidate's to overwrite.
    const std::string library = dir + "/ext" + std::to_string(i) + "_" + e.name + ".so";
    std::error_code ec;
    fs::copy_file(e.library, library, fs::copy_options::overwrite_existing, ec);
    if (ec) return refuse("the replay could not copy extension " + e.name + " from the build cache: " + ec.message());
    keys.push_back(e.key);
    extensions.push_back({{"name", e.name}, {"key", e.key}, {"library", library}});
  }
  const int64_t max_bytes = kRecordCapBytes;
  auto prep = ask({{"op", "replay_prepare"}, {"record", job_dir + "/record"}, {"out", dir}, {"extensions", keys},
                   {"max_bytes", max_bytes}});
  if (!prep.ok()) return refuse("the oracle could not read the record: " + prep.error().message);
  if (!prep->value("replayable", false)) return refuse("no replay: " + text_of(*prep, "why"));
  const int calls = prep->value("calls", 0);

  std::error_code ec;
  fs::copy_file(data_path("evaluator/kernelbench/replay.py"), dir + "/replay.py", fs::copy_options::overwrite_existing,
                ec);
  if (ec) return refuse("kforge's replay.py is missing (set KFORGE_DATA_DIR): " + ec.message());
  fs::copy_file(runner_seccomp_library(opt.runner_path), dir + "/libkforge-seccomp.so",
                fs::copy_options::overwrite_existing, ec);
  if (ec) return refuse("the runner's seccomp library is missing: " + ec.message());
  nlohmann::json job{{"backend", to_string(opt.backend)}, {"device", 0}, {"extensions", extensions},
                     {"seccomp_library", dir + "/libkforge-seccomp.so"}};
  if (auto st = write_file_atomic(dir + "/job.json", job.dump()); !st.ok())
    return refuse("the replay could not be set up: " + st.error().message);

  std::vector<std::string> command(launch.command.begin(), launch.command.end() - 1);  // interpreter and flags
  command.push_back(dir + "/replay.py");
  auto env = launch.env;
  env["HOME"] = dir;
  const double limit = std::min(kReplayLimitCapS, 10 + 4 * call_limit_s * calls);
  RunnerSession replayer;
  if (auto st = replayer.start(command, dir, env, now_s() + kKernelbenchStartupLimitS + limit, launch.confinement);
      !st.ok())
    return refuse("the replayer could not be started: " + st.error().message);
  auto said = [](const RunnerEnd& e) -> std::string {
    if (e.kind == RunnerEnd::Kind::timeout) return "it ran past its time limit";
    if (e.kind == RunnerEnd::Kind::crashed)
      return "it ended (signal " + std::to_string(e.signal) + ", exit " + std::to_string(e.exit_code) + ")";
    if (e.kind == RunnerEnd::Kind::protocol) return e.protocol_error;
    const auto& r = e.reply;
    auto ok = r.find("ok");
    if (ok != r.end() && ok->is_boolean() && ok->get<bool>()) return "";
    return text_of(r, "code") + ": " + text_of(r, "detail");
  };
  auto ready = replayer.exchange(nullptr, now_s() + kKernelbenchStartupLimitS);
  if (auto why = said(ready); !why.empty()) return refuse("the replayer did not start: " + why.substr(0, 600));
  auto done = replayer.exchange(nlohmann::json{{"op", "replay"}}, now_s() + limit);
  if (auto why = said(done); !why.empty())
    return refuse("the recorded calls did not replay without the solution's Python: " + why.substr(0, 600));
  replayer.finish();
  auto judged = ask({{"op", "replay_judge"}, {"dir", dir}, {"tolerances", tolerances_json()}, {"max_bytes", max_bytes}});
  if (!judged.ok()) return refuse("the oracle could not judge the replay: " + judged.error().message);
  out.calls = calls;
  out.trusted = judged->value("trusted", false);
  out.why = out.trusted ? "" : text_of(*judged, "why");
  out.mismatch = judged->value("mismatch", false);
  out.seconds = now_s() - t0;
  return out;
}

}  // namespace kf::eval
