#pragma once
// The records libkforge-cupti.so wrote (one cupti-<pid>.jsonl file per process in a folder), read back.
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "profiler/intervals.h"

namespace kf::profiler {

enum class ActivityKind { kernel, memcpy, memset };

struct Activity {
  ActivityKind kind = ActivityKind::kernel;
  uint32_t name_id = 0;  // index into Trace::names; copies are named "[memcpy HtoD]", memsets "[memset]"
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t bytes = 0;
};

// One end of a measured region: an NVTX range start/end, or a kforge_region_begin/end call.
struct RegionMark {
  enum class Source { nvtx, explicit_call };
  Source source = Source::nvtx;
  bool begin = true;
  std::string name;  // NVTX end records carry no name; they pair with their start by id
  uint64_t id = 0;   // NVTX range id (per process)
  uint64_t ts = 0;
  uint32_t process = 0;  // index of the file the mark came from
};

struct Trace {
  std::vector<std::string> names;
  std::vector<Activity> activities;
  std::vector<RegionMark> marks;
  uint32_t processes = 0;           // files read
  uint32_t complete_processes = 0;  // files ending in a summary line (flushed at exit)
  uint64_t dropped = 0;
  uint64_t overhead_ns = 0;
  std::vector<std::string> status_messages;  // what the library reported (e.g. another CUPTI client)
  uint64_t malformed_lines = 0;
};

// Reads every cupti-*.jsonl in `dir`.
Result<Trace> read_trace_dir(const std::string& dir);
// Parses the text of one file, appending to `trace` (exposed for tests).
void parse_trace_text(const std::string& text, Trace& trace);

struct MeasuredRegions {
  std::vector<Interval> regions;  // sorted, disjoint
  std::string source;             // "nvtx", "explicit" or "none" (whole trace)
};

// The measured region(s) named `marker`: NVTX ranges when present, else explicit marks, else the whole trace
// from the first activity's start to the last one's end.
MeasuredRegions find_regions(const Trace& trace, const std::string& marker);

}  // namespace kf::profiler
