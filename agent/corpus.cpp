#include "agent/corpus.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/files.h"
#include "core/log.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}

}  // namespace

std::string UnitKey::file_stem() const {
  return safe_name(config) + "__" + safe_name(problem) + "__s" + std::to_string(sample);
}

UnitKey unit_key_of(const nlohmann::json& r) {
  UnitKey k;
  k.config = r.value("config", "");
  if (r.contains("problem") && r["problem"].is_object()) k.problem = r["problem"].value("name", "");
  k.sample = r.value("sample", 0);
  return k;
}

std::string utc_now_iso() {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[80];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

Result<std::unique_ptr<CorpusWriter>> CorpusWriter::open(const std::string& dir) {
  std::error_code ec;
  for (const char* sub : {"", "replies", "sources"}) {
    fs::create_directories(fs::path(dir) / sub, ec);
    if (ec)
      return make_error("corpus.mkdir", "cannot create '" + (fs::path(dir) / sub).string() + "': " + ec.message());
  }
  // A kill -9 during an append can leave a torn last line; end it so the next record starts on a
  // line of its own (the reader skips the torn one).
  const std::string file = (fs::path(dir) / kCorpusFile).string();
  if (fs::exists(file) && fs::file_size(file) > 0) {
    std::ifstream in(file, std::ios::binary);
    in.seekg(-1, std::ios::end);
    char last = 0;
    in.get(last);
    if (last != '\n') {
      log::warn("corpus " + file + " ends with a torn record (interrupted write); it is ignored");
      if (auto st = append_line_durable(file, ""); !st) return st.error();
    }
  }
  return std::unique_ptr<CorpusWriter>(new CorpusWriter(dir));
}

Status CorpusWriter::append(const nlohmann::json& record) {
  std::lock_guard<std::mutex> lock(mu_);
  return append_line_durable((fs::path(dir_) / kCorpusFile).string(), record.dump());
}

Result<std::string> CorpusWriter::write_companion(const std::string& subdir, const std::string& name,
                                                  const std::string& text) {
  const std::string rel = subdir + "/" + name;
  if (auto st = write_file_atomic((fs::path(dir_) / rel).string(), text); !st) return st.error();
  return rel;
}

std::string record_verdict(const nlohmann::json& r) {
  if (!r.contains("verdict") || !r["verdict"].is_object()) return "";
  return r["verdict"].value("verdict", "");
}

bool record_correct(const nlohmann::json& r) {
  return r.value("kind", "") == kKindEvaluation && r.contains("verdict") && r["verdict"].is_object() &&
         r["verdict"].value("correct", false);
}

std::optional<double> record_speedup(const nlohmann::json& r) {
  if (!r.contains("verdict") || !r["verdict"].is_object()) return std::nullopt;
  const auto& v = r["verdict"];
  if (!v.contains("speedup") || !v["speedup"].is_number()) return std::nullopt;
  return v["speedup"].get<double>();
}

Result<Corpus> load_corpus(const std::string& dir) {
  const std::string file = (fs::path(dir) / kCorpusFile).string();
  std::ifstream in(file);
  if (!in)
    return make_error("corpus.missing", "no corpus at '" + file +
                                            "': pass the folder a `kforge run --out DIR` wrote");
  Corpus c;
  c.dir = dir;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      ++c.skipped_lines;
      log::warn(file + ":" + std::to_string(line_no) + ": unreadable record skipped (torn write?)");
      continue;
    }
    c.records.push_back(std::move(j));
  }
  // Best per unit: highest speedup, earliest turn on ties; untimed correct kernels rank last.
  std::map<UnitKey, size_t> best;
  for (size_t i = 0; i < c.records.size(); ++i) {
    auto& r = c.records[i];
    if (r.value("kind", "") != kKindEvaluation) continue;
    r["best"] = false;
    if (!record_correct(r)) continue;
    UnitKey k = unit_key_of(r);
    auto it = best.find(k);
    if (it == best.end()) {
      best[k] = i;
      continue;
    }
    const auto& cur = c.records[it->second];
    auto s_new = record_speedup(r), s_cur = record_speedup(cur);
    bool better = false;
    if (s_new && !s_cur) better = true;
    else if (s_new && s_cur && *s_new > *s_cur) better = true;
    else if ((s_new && s_cur && *s_new == *s_cur) || (!s_new && !s_cur))
      better = r.value("turn", 0) < cur.value("turn", 0);
    if (better) it->second = i;
  }
  for (const auto& [k, i] : best) c.records[i]["best"] = true;
  return c;
}

}  // namespace kf::agent
