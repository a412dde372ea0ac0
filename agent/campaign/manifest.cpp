#include "agent/campaign/manifest.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>

#include "core/files.h"
#include "core/version.h"
#include "corpus/record.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::string random_hex(int n) {
  std::random_device rd;
  std::string s;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < n; ++i) s += hex[rd() % 16];
  return s;
}

// Runs `body` holding an exclusive lock on DIR/run.lock (flock: NFS v4 and Lustre with -o flock honour it).
template <class T>
Result<T> with_lock(const std::string& dir, const std::function<Result<T>()>& body) {
  const std::string path = (fs::path(dir) / "run.lock").string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("manifest.lock", "cannot open '" + path + "': " + std::strerror(errno));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    ::close(fd);
    return make_error("manifest.lock",
                      "cannot lock '" + path + "': " + std::strerror(e) + " (on Lustre, mount with -o flock)");
  }
  auto result = body();
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return result;
}

Result<nlohmann::json> read_manifest(const std::string& path) {
  if (!fs::exists(path)) return nlohmann::json();
  auto text = read_file(path);
  auto m = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!m.is_object())
    return make_error("manifest.unreadable",
                      "'" + path + "' is unreadable; it is not a kforge run folder, or it was damaged");
  return m;
}

// Differences between the inputs a folder was started with and `new_in`, as sentences (empty: none). Manifests
// of older kforge versions lack some keys: those are compared only when present.
std::vector<std::string> manifest_changes(const nlohmann::json& old_in, const nlohmann::json& new_in) {
  std::vector<std::string> changes;
  if (old_in.value("backend", "") != new_in.value("backend", ""))
    changes.push_back("backend was " + old_in.value("backend", "") + ", now " + new_in.value("backend", ""));
  // Prompt templates are compared per configuration, and only for configurations both runs have (adding one
  // grows the run). A manifest from before per-configuration hashes has one hash over all configurations:
  // it is compared only when the configurations are the same ones.
  const auto old_configs = old_in.value("configs", nlohmann::json::object());
  const auto new_configs = new_in.value("configs", nlohmann::json::object());
  bool per_config = true;
  for (const auto& [name, was] : old_configs.items())
    per_config = per_config && was.is_object() && was.contains("prompts_sha256");
  if (per_config) {
    for (const auto& [name, now] : new_configs.items())
      if (old_configs.contains(name) &&
          old_configs[name].value("prompts_sha256", "") != now.value("prompts_sha256", ""))
        changes.push_back("the prompt templates of configuration '" + name + "' changed");
  } else {
    bool same_names = old_configs.size() == new_configs.size();
    for (const auto& [name, now] : new_configs.items()) same_names = same_names && old_configs.contains(name);
    if (same_names && old_in.value("prompts_sha256", "") != new_in.value("prompts_sha256", ""))
      changes.push_back("the prompt templates changed");
  }
  for (const char* group : {"configs", "problems"}) {
    if (!old_in.contains(group) || !new_in.contains(group)) continue;
    for (const auto& [name, now] : new_in[group].items()) {
      if (!old_in[group].contains(name)) continue;
      const auto& was = old_in[group][name];
      if (was.value("sha256", "") != now.value("sha256", ""))
        changes.push_back(std::string(group == std::string("configs") ? "configuration" : "problem") + " '" + name +
                          "' changed (" + now.value("path", "") + ")");
      for (const char* key : {"samples", "turns", "stop_at_first_correct", "keep_last_attempts"})
        if (was.contains(key) && was[key] != now.value(key, nlohmann::json()))
          changes.push_back("configuration '" + name + "': " + key + " was " + was[key].dump() + ", now " +
                            now.value(key, nlohmann::json()).dump());
      // Recorded only when set (absent: unset, eager).
      for (const char* key : {"stop_at_peak_fraction", "baseline", "search"})
        if (was.value(key, nlohmann::json()) != now.value(key, nlohmann::json()))
          changes.push_back("configuration '" + name + "': " + key + " was " + was.value(key, nlohmann::json()).dump() +
                            ", now " + now.value(key, nlohmann::json()).dump());
    }
  }
  return changes;
}

nlohmann::json to_json(const CampaignInputs& in) {
  nlohmann::json configs = nlohmann::json::object(), problems = nlohmann::json::object();
  for (const auto& [name, c] : in.configs) {
    nlohmann::json& j = configs[name];
    j = {{"path", c.path},
         {"sha256", c.sha256},
         {"candidate_format", c.candidate_format},
         {"samples", c.samples},
         {"prompts_sha256", c.prompts_sha256},
         {"turns", c.turns},
         {"stop_at_first_correct", c.stop_at_first_correct},
         {"keep_last_attempts", c.keep_last_attempts}};
    // Recorded only when set, so that folders started before these keys existed resume without a change.
    if (c.stop_at_peak_fraction) j["stop_at_peak_fraction"] = *c.stop_at_peak_fraction;
    if (c.baseline != "eager") j["baseline"] = c.baseline;
    if (!c.search.is_null()) j["search"] = c.search;
  }
  for (const auto& [name, p] : in.problems) problems[name] = {{"path", p.path}, {"sha256", p.sha256}};
  return {{"backend", in.backend}, {"configs", configs}, {"problems", problems}, {"prompts_sha256", in.prompts_sha256}};
}

nlohmann::json to_json(const ImportEntry& e) {
  return {{"at", corpus::utc_now_iso()},
          {"sources", e.sources},
          {"kernelbench", e.kernelbench},
          {"baseline", e.baseline},
          {"audit", e.audit},
          {"level", e.level ? nlohmann::json(*e.level) : nlohmann::json()}};
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json none;
  return j.is_object() && j.contains(key) ? j[key] : none;
}

}  // namespace

Result<ManifestSession> begin_session(const std::string& dir, const CampaignInputs& campaign_inputs, bool allow_changed,
                                      const std::string& shard) {
  const std::string path = (fs::path(dir) / "run.json").string();
  const nlohmann::json inputs = to_json(campaign_inputs);
  return with_lock<ManifestSession>(dir, [&]() -> Result<ManifestSession> {
    auto read = read_manifest(path);
    if (!read) return read.error();
    ManifestSession s;
    nlohmann::json m = *read;
    if (m.is_object()) {
      s.changes = manifest_changes(m.value("inputs", nlohmann::json::object()), inputs);
      if (!s.changes.empty()) {
        std::string msg = "the campaign in '" + dir + "' was started with different inputs:";
        for (const auto& c : s.changes) msg += "\n  - " + c;
        if (!allow_changed)
          return make_error("manifest.changed",
                            msg +
                                "\nRecords made before and after a change are not comparable. Use a new --out "
                                "folder, or pass --allow-changed to continue anyway (the change is logged in "
                                "run.json).");
        m["changes"].push_back({{"at", corpus::utc_now_iso()}, {"changes", s.changes}});
      }
      // Keep names that earlier invocations (or other shards) added, add new ones.
      for (const char* group : {"configs", "problems"})
        for (const auto& [k, v] : inputs[group].items()) m["inputs"][group][k] = v;
      m["inputs"]["backend"] = inputs["backend"];
      m["inputs"]["prompts_sha256"] = inputs["prompts_sha256"];
      m["sessions"] = m.value("sessions", 0) + 1;
    } else {
      std::string id = "run-" + corpus::utc_now_iso().substr(0, 19) + "-" + random_hex(6);
      for (char& c : id)
        if (c == ':') c = '-';
      m = {{"schema", corpus::kSchema},  {"run_id", id},     {"created_at", corpus::utc_now_iso()},
           {"kforge_version", kVersion}, {"inputs", inputs}, {"sessions", 1}};
    }
    if (!shard.empty()) m["shards"][shard] = m["sessions"];  // the last session of each shard
    if (auto st = write_file_atomic(path, m.dump(2) + "\n"); !st) return st.error();
    s.run_id = m.value("run_id", "");
    s.session = m.value("sessions", 1);
    return s;
  });
}

Result<ImportSession> record_import(const std::string& dir, const ImportEntry& entry) {
  const std::string path = (fs::path(dir) / "run.json").string();
  return with_lock<ImportSession>(dir, [&]() -> Result<ImportSession> {
    auto read = read_manifest(path);
    if (!read) return read.error();
    nlohmann::json m = *read;
    if (!m.is_object()) {
      std::string id = "import-" + corpus::utc_now_iso().substr(0, 19) + "-" + random_hex(6);
      for (char& c : id)
        if (c == ':') c = '-';
      m = {{"schema", corpus::kSchema},
           {"run_id", id},
           {"created_at", corpus::utc_now_iso()},
           {"kforge_version", kVersion},
           {"inputs",
            {{"backend", ""},
             {"prompts_sha256", ""},
             {"configs", nlohmann::json::object()},
             {"problems", nlohmann::json::object()}}},
           {"sessions", 0},
           {"imports", nlohmann::json::array()}};
    } else if (!m.value("inputs", nlohmann::json::object()).value("configs", nlohmann::json::object()).empty()) {
      return make_error("import.campaign_folder",
                        "'" + dir +
                            "' holds a campaign (`kforge run`): import into a folder of "
                            "its own (--out NEW_DIR); `kforge compare` puts both side by side");
    }
    if (!m.contains("imports") || !m["imports"].is_array()) m["imports"] = nlohmann::json::array();
    m["imports"].push_back(to_json(entry));
    if (auto st = write_file_atomic(path, m.dump(2) + "\n"); !st) return st.error();
    return ImportSession{m.value("run_id", ""), static_cast<int>(m["imports"].size())};
  });
}

Status record_environment(const std::string& dir, const corpus::Environment& environment,
                          const std::vector<corpus::EvaluatorRef>& evaluators) {
  const std::string path = (fs::path(dir) / "run.json").string();
  nlohmann::json last = environment.to_json();
  last["evaluators"] = nlohmann::json::array();
  for (const auto& e : evaluators) last["evaluators"].push_back(e.to_json());
  return with_lock<Ok>(dir, [&]() -> Status {
    auto m = read_manifest(path);
    if (!m) return m.error();
    if (!m->is_object()) return make_error("manifest.missing", "'" + path + "' disappeared during the run");
    (*m)["environment_last"] = last;
    return write_file_atomic(path, m->dump(2) + "\n");
  });
}

Result<RunManifest> RunManifest::read(const std::string& dir) {
  const std::string path = (fs::path(dir) / "run.json").string();
  auto m = read_manifest(path);
  if (!m) return m.error();
  if (!m->is_object()) return make_error("manifest.missing", "'" + dir + "' holds no run.json");
  RunManifest r;
  r.run_id = m->value("run_id", "");
  const nlohmann::json& inputs = member(*m, "inputs");
  if (const nlohmann::json& configs = member(inputs, "configs"); configs.is_object())
    for (const auto& [name, config] : configs.items()) {
      const nlohmann::json& samples = member(config, "samples");
      r.config_samples[name] = samples.is_number() ? samples.get<int>() : 1;
    }
  if (const nlohmann::json& problems = member(inputs, "problems"); problems.is_object())
    for (const auto& [name, problem] : problems.items()) r.problems.push_back(name);
  return r;
}

}  // namespace kf::agent
