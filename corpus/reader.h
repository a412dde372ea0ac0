#pragma once
// The one corpus reader. A run folder holds evaluations.jsonl and, for sharded campaigns, one
// evaluations.shard-I-of-N.jsonl per shard; every reader sees the union of them.
//
// Torn-line policy: a record is written with one write() + fsync, so the only partial record a reader can
// meet is the last line of a file without its newline (a writer killed mid-append, or one appending right
// now on another node). That line is ignored without a warning. A complete line that is not a valid record
// is reported in `damaged` (the loader also warns about it) and skipped.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "corpus/record.h"

namespace kf::corpus {

struct DamagedLine {
  std::string file;
  size_t line = 0;
  std::string reason;
  std::string where() const { return file + " line " + std::to_string(line); }
};

struct Corpus {
  std::string dir;
  std::vector<Record> records;        // file by file (evaluations.jsonl, then shards in order), in file order
  std::vector<std::string> files;     // the corpus files read, relative to dir
  std::vector<DamagedLine> damaged;   // complete lines that are not records (skipped)
  int torn_tails = 0;                 // files whose last line had no newline yet (ignored)
};

// The corpus files of a run folder (names relative to it), evaluations.jsonl first, then shards.
std::vector<std::string> corpus_files(const std::string& dir);
bool has_corpus(const std::string& dir);

// Reads every corpus file of DIR and marks each unit's best correct kernel (mark_best). An error when DIR
// holds no corpus file or one cannot be read.
Result<Corpus> load(const std::string& dir);

// Parses JSONL text (one file's content) into `into`, `origin` naming it in DamagedLine::file.
void parse_text(const std::string& text, const std::string& origin, Corpus& into);

// Sets `best` on exactly one evaluation record per unit that has a correct kernel: the highest speedup,
// the earliest turn on ties; a correct kernel without a timing ranks below any timed one.
void mark_best(std::vector<Record>& records);

// Follows a run folder as it grows: each poll() returns the records completed since the last one, from
// every corpus file (new shard files included). For accounting that must see other shards' spending.
class Follower {
 public:
  explicit Follower(std::string dir) : dir_(std::move(dir)) {}
  std::vector<Record> poll();

 private:
  std::string dir_;
  std::map<std::string, uint64_t> offsets_;  // file -> bytes consumed (up to the last complete line)
};

}  // namespace kf::corpus
