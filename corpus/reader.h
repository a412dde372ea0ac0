#pragma once
// The one corpus reader. A run folder holds evaluations.jsonl and, for sharded campaigns, one
// evaluations.shard-I-of-N.jsonl per shard; every reader sees the union of them.
//
// Torn-line policy: a record is written with one write() + fsync, so the only partial record a reader can
// meet is the last line of a file without its newline (a writer killed mid-append, or one appending right
// now on another node). That line is ignored without a warning; the next writer of that file cuts it off
// (keeping its bytes aside, writer.h) before it appends. A complete line that is not a valid record is
// reported as damaged (the loader also warns about it) and skipped.
//
// Every reader streams: files are read in blocks and each record is handed on as it is parsed, so what a
// caller keeps decides the memory (load() keeps every record; status, report and resume keep per-unit state).
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "corpus/record.h"
#include "corpus/summary.h"

namespace kf::corpus {

struct DamagedLine {
  std::string file;
  size_t line = 0;
  std::string reason;
  std::string where() const { return file + " line " + std::to_string(line); }
};

struct Corpus {
  std::string dir;
  std::vector<Record> records;       // file by file (evaluations.jsonl, then shards in order), in file order
  std::vector<std::string> files;    // the corpus files read, relative to dir
  std::vector<DamagedLine> damaged;  // complete lines that are not records (skipped)
  int torn_tails = 0;                // files whose last line had no newline yet (ignored)
};

// The corpus files of a run folder (names relative to it), evaluations.jsonl first, then shards.
std::vector<std::string> corpus_files(const std::string& dir);
bool has_corpus(const std::string& dir);

// Lines that could not be read while streaming: how many, and the first few by place.
struct ReadDamage {
  static constexpr size_t kNamed = 5;
  int64_t lines = 0;               // complete lines that are not records
  std::vector<DamagedLine> first;  // the first kNamed of them
  int torn_tails = 0;              // files whose last line had no newline yet (not counted in `lines`)
  void add(DamagedLine d) {
    ++lines;
    if (first.size() < kNamed) first.push_back(std::move(d));
  }
};

// Streams each readable record of one corpus file as its summary (summary.h) with its line, for readers that
// need only counts and keys (status) or decide which records to parse fully (resume: parse_record_line).
using SummaryFn = std::function<void(const RecordSummary&, std::string_view line)>;
Status for_each_summary_in_file(const std::string& path, const SummaryFn& each, ReadDamage& damage);
// One corpus line as a record.
Result<Record> parse_record_line(std::string_view line);

// Reads every corpus file of DIR and marks each unit's best correct kernel (mark_best). An error when DIR
// holds no corpus file or one cannot be read.
Result<Corpus> load(const std::string& dir);

// Where a record's line lies in a corpus: the file (its index in Corpus::files), the line's offset and length.
// A streaming reader keeps places instead of records and reads back the few it needs (RecordReader).
struct RecordPlace {
  uint32_t file = 0;
  uint64_t offset = 0;
  uint32_t length = 0;
};

// Streams every record of DIR's corpus (the files and order of load()) to `each` as its summary, with its line
// and place, keeping nothing: the Corpus returned lists the files, the damage (warned about as load() does)
// and the torn tails, and holds no records. An error as load().
using PlacedSummaryFn = std::function<void(const RecordSummary&, std::string_view line, const RecordPlace&)>;
Result<Corpus> stream(const std::string& dir, const PlacedSummaryFn& each);

// Reads records of a streamed corpus again by their places (sequential places read fastest).
class RecordReader {
 public:
  explicit RecordReader(const Corpus& corpus);
  Result<Record> at(const RecordPlace& place);
  // Only what judging its kernel reads (summary.h, verdict_of_line): the rest of the line is scanned, not parsed.
  Result<Record> verdict_at(const RecordPlace& place);

 private:
  std::string dir_;
  std::vector<std::string> files_;
  std::vector<std::ifstream> streams_;
  std::string line_;
  Status read_line(const RecordPlace& place);
  Error failure(const RecordPlace& place, const std::string& why) const;
};

// Parses JSONL text (one file's content) into `into`, `origin` naming it in DamagedLine::file.
void parse_text(const std::string& text, const std::string& origin, Corpus& into);

// Sets `best` on exactly one evaluation record per unit that has a correct kernel: the highest speedup,
// the earliest turn on ties; a correct kernel without a timing ranks below any timed one (ranks_above).
void mark_best(std::vector<Record>& records);
// The rule of mark_best for readers that stream: whether a correct kernel (its speedup and turn) ranks above
// the best one so far of its unit (on a full tie the one read first stays best).
bool ranks_above(std::optional<double> speedup, int turn, std::optional<double> best_speedup, int best_turn);

// Follows a run folder as it grows: each poll() returns the records completed since the last one, from
// every corpus file (new shard files included). For accounting that must see other shards' spending.
class Follower {
 public:
  explicit Follower(std::string dir) : dir_(std::move(dir)) {}
  std::vector<Record> poll();
  // Streams the records completed since the last poll to `each` (damaged lines into `damage`, if given).
  Status poll(const std::function<void(Record&&)>& each, ReadDamage* damage = nullptr);
  // The same as summaries with their lines (cheaper: most lines are never fully parsed).
  Status poll_summaries(const SummaryFn& each, ReadDamage* damage = nullptr);
  // Stops reading FILE's growth (a file whose new records the caller learns of otherwise: its own).
  void stop_following(const std::string& file_name) { ignored_.insert(file_name); }

 private:
  std::string dir_;
  std::map<std::string, uint64_t> offsets_;  // file -> bytes consumed (up to the last complete line)
  std::set<std::string> ignored_;
};

}  // namespace kf::corpus
