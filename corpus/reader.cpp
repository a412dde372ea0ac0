#include "corpus/reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/files.h"
#include "core/log.h"
#include "corpus/shard.h"
#include "corpus/summary.h"

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

Record* parse_line(std::string_view line, const std::string& origin, size_t line_no, Record& into, ReadDamage& damage) {
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) {
    damage.add({origin, line_no, "not JSON (a torn write?)"});
    return nullptr;
  }
  auto r = Record::from_json(j);
  if (!r) {
    damage.add({origin, line_no, r.error().message});
    return nullptr;
  }
  into = std::move(*r);
  return &into;
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// Streams the complete, non-blank lines of PATH from byte `offset` on to `each(line, line_no, at)` (`at`: the
// line's offset in the file); returns the
// offset after the last complete line. A last line without its newline is left unread (torn_tails counts it
// when `count_torn`).
Result<uint64_t> stream_lines(const std::string& path, uint64_t offset,
                              const std::function<void(std::string_view, size_t, uint64_t)>& each, ReadDamage& damage,
                              bool count_torn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("corpus.read", "cannot read '" + path + "'");
  in.seekg(static_cast<std::streamoff>(offset));
  // Blocks are read straight into the buffer behind the unfinished line carried over (no second copy); the
  // buffer grows only for a line longer than it.
  constexpr size_t kBlock = 4 << 20;
  std::vector<char> buf(2 * kBlock);
  size_t held = 0;  // bytes in buf: the carried-over start of a line, then the new block
  size_t line_no = 0;
  uint64_t consumed = offset;
  for (;;) {
    if (buf.size() - held < kBlock) buf.resize(held + kBlock);
    in.read(buf.data() + held, static_cast<std::streamsize>(buf.size() - held));
    const auto got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    const size_t searched = held;  // the carried-over bytes hold no newline
    held += got;
    const char* base = buf.data();
    size_t pos = 0;
    for (const char* from = base + searched;;) {
      const auto* eol = static_cast<const char*>(std::memchr(from, '\n', static_cast<size_t>(base + held - from)));
      if (!eol) break;
      const size_t end = static_cast<size_t>(eol - base);
      ++line_no;
      const std::string_view line(base + pos, end - pos);
      if (!blank(line)) each(line, line_no, consumed);
      consumed += end + 1 - pos;
      pos = end + 1;
      from = eol + 1;
    }
    std::memmove(buf.data(), buf.data() + pos, held - pos);
    held -= pos;
  }
  if (count_torn && std::string_view(buf.data(), held).find_first_not_of(" \t\r\n") != std::string_view::npos)
    ++damage.torn_tails;
  return consumed;
}

Result<uint64_t> stream_file(const std::string& path, const std::string& origin, uint64_t offset,
                             const std::function<void(Record&&)>& each, ReadDamage& damage, bool count_torn) {
  Record record;
  return stream_lines(
      path, offset,
      [&](std::string_view line, size_t line_no, uint64_t) {
        if (parse_line(line, origin, line_no, record, damage)) each(std::move(record));
      },
      damage, count_torn);
}

Result<uint64_t> stream_summaries(const std::string& path, uint64_t offset, const SummaryFn& each, ReadDamage& damage,
                                  bool count_torn) {
  Record record;
  return stream_lines(
      path, offset,
      [&](std::string_view line, size_t line_no, uint64_t) {
        if (auto s = summarize_line(line))
          each(*s, line);
        else if (parse_line(line, path, line_no, record, damage))
          each(RecordSummary::of(record), line);
      },
      damage, count_torn);
}

}  // namespace

Status for_each_summary_in_file(const std::string& path, const SummaryFn& each, ReadDamage& damage) {
  auto done = stream_summaries(path, 0, each, damage, true);
  if (!done) return done.error();
  return ok_status();
}

Result<Record> parse_record_line(std::string_view line) {
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) return make_error("corpus.record", "not JSON (a torn write?)");
  return Record::from_json(j);
}

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

namespace {

// A corpus of `dir` with its files listed and nothing read yet; an error where it holds none.
Result<Corpus> open_corpus(const std::string& dir) {
  Corpus c;
  c.dir = dir;
  c.files = corpus_files(dir);
  if (c.files.empty())
    return make_error("corpus.missing", "no corpus in '" + dir +
                                            "' (no evaluations.jsonl): pass the folder a `kforge run --out DIR` wrote");
  return c;
}

// One file's damage into the corpus: its torn tail, its first unreadable lines, and a warning of the rest.
void take_damage(Corpus& c, const std::string& path, ReadDamage damage) {
  c.torn_tails += damage.torn_tails;
  if (damage.lines > static_cast<int64_t>(damage.first.size()))
    log::warn(path + ": " + std::to_string(damage.lines) + " unreadable records in all (`kforge status " + c.dir +
              "` lists them)");
  for (auto& d : damage.first) c.damaged.push_back(std::move(d));
}

}  // namespace

Result<Corpus> load(const std::string& dir) {
  auto opened = open_corpus(dir);
  if (!opened) return opened.error();
  Corpus c = std::move(*opened);
  for (const auto& name : c.files) {
    const std::string path = (fs::path(dir) / name).string();
    ReadDamage damage;
    auto done = stream_file(
        path, path, 0, [&](Record&& r) { c.records.push_back(std::move(r)); }, damage, true);
    if (!done) return done.error();
    take_damage(c, path, std::move(damage));
  }
  for (const auto& d : c.damaged) log::warn(d.where() + ": unreadable record skipped: " + d.reason);
  mark_best(c.records);
  return c;
}

Result<Corpus> stream(const std::string& dir, const PlacedSummaryFn& each) {
  auto opened = open_corpus(dir);
  if (!opened) return opened.error();
  Corpus c = std::move(*opened);
  for (size_t fi = 0; fi < c.files.size(); ++fi) {
    const std::string path = (fs::path(dir) / c.files[fi]).string();
    ReadDamage damage;
    Record record;
    auto done = stream_lines(
        path, 0,
        [&](std::string_view line, size_t line_no, uint64_t at) {
          const RecordPlace place{static_cast<uint32_t>(fi), at, static_cast<uint32_t>(line.size())};
          if (auto s = summarize_line(line))
            each(*s, line, place);
          else if (parse_line(line, path, line_no, record, damage))
            each(RecordSummary::of(record), line, place);
        },
        damage, true);
    if (!done) return done.error();
    take_damage(c, path, std::move(damage));
  }
  for (const auto& d : c.damaged) log::warn(d.where() + ": unreadable record skipped: " + d.reason);
  return c;
}

RecordReader::RecordReader(const Corpus& corpus) : dir_(corpus.dir), files_(corpus.files) {
  for (const auto& name : files_) streams_.emplace_back((fs::path(dir_) / name).string(), std::ios::binary);
}

Error RecordReader::failure(const RecordPlace& place, const std::string& why) const {
  const std::string file = place.file < files_.size() ? files_[place.file] : "?";
  return make_error("corpus.read", "cannot read a record of '" + (fs::path(dir_) / file).string() +
                                       "' again (at byte " + std::to_string(place.offset) + "): " + why);
}

Status RecordReader::read_line(const RecordPlace& place) {
  if (place.file >= streams_.size()) return failure(place, "no such corpus file");
  auto& in = streams_[place.file];
  in.clear();
  in.seekg(static_cast<std::streamoff>(place.offset));
  line_.resize(place.length);
  in.read(line_.data(), static_cast<std::streamsize>(line_.size()));
  if (static_cast<size_t>(in.gcount()) != line_.size()) return failure(place, "the file is shorter than it was");
  return ok_status();
}

Result<Record> RecordReader::at(const RecordPlace& place) {
  if (auto st = read_line(place); !st) return st.error();
  auto r = parse_record_line(line_);
  if (!r) return failure(place, r.error().message);
  return r;
}

Result<Record> RecordReader::verdict_at(const RecordPlace& place) {
  if (auto st = read_line(place); !st) return st.error();
  if (auto r = verdict_of_line(line_)) return std::move(*r);
  return at(place);
}

bool ranks_above(std::optional<double> speedup, int turn, std::optional<double> best_speedup, int best_turn) {
  if (speedup && !best_speedup) return true;
  if (speedup && best_speedup && *speedup > *best_speedup) return true;
  if ((speedup && best_speedup && *speedup == *best_speedup) || (!speedup && !best_speedup)) return turn < best_turn;
  return false;
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
    if (ranks_above(r.speedup(), r.turn, cur.speedup(), cur.turn)) it->second = i;
  }
  for (const auto& [k, i] : best) records[i].best = true;
}

std::vector<Record> Follower::poll() {
  std::vector<Record> out;
  (void)poll([&](Record&& r) { out.push_back(std::move(r)); });
  return out;
}

Status Follower::poll(const std::function<void(Record&&)>& each, ReadDamage* damage) {
  ReadDamage ignored;  // the loader reports these; a follower only counts what it can read
  for (const auto& name : corpus_files(dir_)) {
    if (ignored_.count(name)) continue;
    const std::string path = (fs::path(dir_) / name).string();
    uint64_t& offset = offsets_[name];
    std::error_code ec;
    if (fs::file_size(path, ec) <= offset && !ec) continue;
    auto done = stream_file(path, path, offset, each, damage ? *damage : ignored, false);
    if (!done) return done.error();
    offset = *done;
  }
  return ok_status();
}

Status Follower::poll_summaries(const SummaryFn& each, ReadDamage* damage) {
  ReadDamage ignored;
  for (const auto& name : corpus_files(dir_)) {
    if (ignored_.count(name)) continue;
    const std::string path = (fs::path(dir_) / name).string();
    uint64_t& offset = offsets_[name];
    std::error_code ec;
    if (fs::file_size(path, ec) <= offset && !ec) continue;
    auto done = stream_summaries(path, offset, each, damage ? *damage : ignored, damage != nullptr);
    if (!done) return done.error();
    offset = *done;
  }
  return ok_status();
}

}  // namespace kf::corpus
