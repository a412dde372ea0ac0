#include "corpus/reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/files.h"
#include "core/log.h"
#include "corpus/shard.h"

namespace kf::corpus {
namespace fs = std::filesystem;
namespace {

bool is_corpus_name(const std::string& n) { return n == Shard{}.file_name() || Shard::of_file(n).has_value(); }

// evaluations.jsonl first, then shards by (N, I) numerically.
bool file_order(const std::string& a, const std::string& b) {
  auto key = [](const std::string& n) {
    auto s = Shard::of_file(n);
    return std::make_tuple(s ? s->count : 0, s ? s->index : 0, n);
  };
  return key(a) < key(b);
}

// Parses complete lines of `text` (up to its last '\n'); returns the bytes consumed.
size_t parse_complete_lines(const std::string& text, const std::string& origin, size_t first_line_no,
                            std::vector<Record>& out, std::vector<DamagedLine>& damaged) {
  size_t pos = 0, line_no = first_line_no;
  while (true) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    ++line_no;
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      damaged.push_back({origin, line_no, "not JSON (a torn write?)"});
      continue;
    }
    auto r = Record::from_json(j);
    if (!r) {
      damaged.push_back({origin, line_no, r.error().message});
      continue;
    }
    out.push_back(std::move(*r));
  }
  return pos;
}

}  // namespace

std::vector<std::string> corpus_files(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (is_corpus_name(n) && e.is_regular_file(ec)) names.push_back(n);
  }
  std::sort(names.begin(), names.end(), file_order);
  return names;
}

bool has_corpus(const std::string& dir) { return !corpus_files(dir).empty(); }

void parse_text(const std::string& text, const std::string& origin, Corpus& into) {
  size_t used = parse_complete_lines(text, origin, 0, into.records, into.damaged);
  if (text.find_first_not_of(" \t\r\n", used) != std::string::npos) ++into.torn_tails;
}

Result<Corpus> load(const std::string& dir) {
  Corpus c;
  c.dir = dir;
  c.files = corpus_files(dir);
  if (c.files.empty())
    return make_error("corpus.missing", "no corpus in '" + dir +
                                            "' (no evaluations.jsonl): pass the folder a `kforge run --out DIR` wrote");
  for (const auto& name : c.files) {
    auto text = read_file((fs::path(dir) / name).string());
    if (!text) return text.error();
    parse_text(*text, (fs::path(dir) / name).string(), c);
  }
  for (const auto& d : c.damaged) log::warn(d.where() + ": unreadable record skipped: " + d.reason);
  mark_best(c.records);
  return c;
}

void mark_best(std::vector<Record>& records) {
  std::map<UnitKey, size_t> best;
  for (size_t i = 0; i < records.size(); ++i) {
    auto& r = records[i];
    r.best = false;
    if (!r.correct()) continue;
    auto [it, inserted] = best.emplace(r.key(), i);
    if (inserted) continue;
    const auto& cur = records[it->second];
    auto s_new = r.speedup(), s_cur = cur.speedup();
    bool better = false;
    if (s_new && !s_cur) better = true;
    else if (s_new && s_cur && *s_new > *s_cur) better = true;
    else if ((s_new && s_cur && *s_new == *s_cur) || (!s_new && !s_cur)) better = r.turn < cur.turn;
    if (better) it->second = i;
  }
  for (const auto& [k, i] : best) records[i].best = true;
}

std::vector<Record> Follower::poll() {
  std::vector<Record> out;
  for (const auto& name : corpus_files(dir_)) {
    const std::string path = (fs::path(dir_) / name).string();
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    uint64_t& offset = offsets_[name];
    in.seekg(static_cast<std::streamoff>(offset));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<DamagedLine> damaged;  // the loader reports these; a follower only counts what it can read
    offset += parse_complete_lines(text, path, 0, out, damaged);
  }
  return out;
}

}  // namespace kf::corpus
