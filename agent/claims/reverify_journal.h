#pragma once
// DIR/reverify.journal: the entries of one `kforge reverify` run, each written (and fsynced) the moment it is
// judged, so that a run that stops early (--time-limit, Ctrl-C, SIGTERM, kill -9, a GPU loan that ends)
// loses nothing and `kforge reverify DIR --resume` judges only what is left, with the same seed. The one type
// that reads and writes the file; DIR/reverify.json (reverify_results.h) stays the file reports read.
//
// Layout: JSON lines. The first is the header ({"reverify_journal": 1, "seed", "backend", "started_at"}), then
// one {"entry": ReverifyEntry} per judged kernel, and {"finished_at": …} once every selected kernel was judged.
// A line that does not parse (a torn tail after kill -9) is dropped when the journal is read.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/claims/reverify_results.h"
#include "core/result.h"

namespace kf::agent {

inline constexpr const char* kReverifyJournalFile = "reverify.journal";

struct ReverifyJournalHeader {
  uint64_t seed = 0;
  std::string backend;
  std::string started_at;
};

class ReverifyJournal {
 public:
  struct Contents {
    ReverifyJournalHeader header;
    std::vector<ReverifyEntry> entries;  // in the order they were judged; a kernel judged twice: the last wins
    bool finished = false;
    size_t dropped_lines = 0;  // lines that did not parse
  };

  // DIR/reverify.journal: nullopt when there is none; an error when its header is unreadable.
  static Result<std::optional<Contents>> load(const std::string& dir);
  // A new journal (replacing any) with this header.
  static Result<ReverifyJournal> start(const std::string& dir, const ReverifyJournalHeader& header);
  // Continues `contents`, read from DIR: the file is rewritten without the lines that did not parse, so that
  // appends start on a clean line.
  static Result<ReverifyJournal> resume(const std::string& dir, const Contents& contents);

  Status append(const ReverifyEntry& entry);
  Status finish();
  const std::string& path() const { return path_; }

 private:
  explicit ReverifyJournal(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace kf::agent
