#pragma once
// The few fields of a record that progress, accounting and resume planning need (kind, unit, turn, cost,
// tokens, whether it is a correct kernel or an import claimed correct, when it was written), read from a
// corpus line without building the record: a single pass over the bytes that checks the whole line is JSON
// and that every field it reads, and every top-level field the record type knows, has the right type. A
// line it cannot vouch for is left to the full parser (reader.h), which names what is wrong. This is what
// lets `kforge status` and a resumed `kforge run` read a million records in seconds (docs/corpus.md).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "corpus/record.h"

namespace kf::corpus {

struct RecordSummary {
  Kind kind = Kind::evaluation;
  UnitKey key;
  int turn = 0;
  double cost_usd = 0;
  int64_t tokens = 0;            // input + output + reasoning
  bool correct = false;          // an evaluation whose verdict is correct (Record::correct)
  bool claimed_correct = false;  // an imported record its run called correct (Record::claimed_correct)
  std::string recorded_at;
  // What reports count besides: names, the verdict's kind and speedup, a failure's kind.
  std::string provider, model, candidate_format, category, error_kind;
  std::optional<eval::VerdictKind> verdict;  // absent: the record holds no verdict
  std::optional<double> speedup;
  static RecordSummary of(const Record& r);
};

// The summary of one corpus line (without its newline); nullopt when the scanner cannot vouch for it (not
// JSON, a field of the wrong type, or anything unusual): parse it fully then.
std::optional<RecordSummary> summarize_line(std::string_view line);

// What judging a kernel reads of a corpus line, without parsing the rest: a record holding only its kind,
// config, problem name and file hash, sample, turn and verdict (the bulk of a line, parsed whole). nullopt
// when the scanner cannot vouch for the line: parse it fully then.
std::optional<Record> verdict_of_line(std::string_view line);

}  // namespace kf::corpus
