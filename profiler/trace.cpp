#include "profiler/trace.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/files.h"

namespace kf::profiler {
namespace {

uint32_t intern(Trace& trace, std::unordered_map<std::string, uint32_t>& index, const std::string& name) {
  auto it = index.find(name);
  if (it != index.end()) return it->second;
  const auto id = static_cast<uint32_t>(trace.names.size());
  trace.names.push_back(name);
  index.emplace(name, id);
  return id;
}

}  // namespace

void parse_trace_text(const std::string& text, Trace& trace) {
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < trace.names.size(); ++i) index.emplace(trace.names[i], i);
  const uint32_t process = trace.processes++;
  bool complete = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.empty()) continue;
    nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.is_object() || !r.contains("type") || !r["type"].is_string()) {
      ++trace.malformed_lines;  // a process killed mid-write leaves a partial last line
      continue;
    }
    const std::string type = r["type"];
    try {
      if (type == "kernel" || type == "memcpy" || type == "memset") {
        Activity a;
        a.start = r.at("start").get<uint64_t>();
        a.end = r.at("end").get<uint64_t>();
        a.device = r.value("device", 0u);
        a.stream = r.value("stream", 0u);
        a.bytes = r.value("bytes", uint64_t{0});
        if (type == "kernel") {
          a.kind = ActivityKind::kernel;
          a.name_id = intern(trace, index, r.at("name").get<std::string>());
        } else if (type == "memcpy") {
          a.kind = ActivityKind::memcpy;
          a.name_id = intern(trace, index, "[memcpy " + r.value("copy_kind", std::string("unknown")) + "]");
        } else {
          a.kind = ActivityKind::memset;
          a.name_id = intern(trace, index, "[memset]");
        }
        trace.activities.push_back(a);
      } else if (type == "marker") {
        const std::string phase = r.value("phase", std::string());
        if (phase != "start" && phase != "end") continue;
        trace.marks.push_back({RegionMark::Source::nvtx, phase == "start", r.value("name", std::string()),
                               r.value("id", uint64_t{0}), r.at("ts").get<uint64_t>(), process});
      } else if (type == "region") {
        const std::string phase = r.value("phase", std::string());
        if (phase != "begin" && phase != "end") continue;
        trace.marks.push_back({RegionMark::Source::explicit_call, phase == "begin", r.value("name", std::string()), 0,
                               r.at("ts").get<uint64_t>(), process});
      } else if (type == "summary") {
        complete = true;
        trace.dropped += r.value("dropped", uint64_t{0});
        trace.overhead_ns += r.value("overhead_ns", uint64_t{0});
      } else if (type == "status") {
        trace.status_messages.push_back(r.value("message", std::string()));
      }
    } catch (const nlohmann::json::exception&) {
      ++trace.malformed_lines;
    }
  }
  if (complete) ++trace.complete_processes;
}

Result<Trace> read_trace_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return make_error("profile.no_records", "the records folder " + dir + " does not exist.");
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("cupti-") && name.ends_with(".jsonl")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  Trace trace;
  for (const auto& f : files) {
    auto text = read_file(f);
    if (!text) return text.error();
    parse_trace_text(*text, trace);
  }
  return trace;
}

MeasuredRegions find_regions(const Trace& trace, const std::string& marker) {
  std::vector<Interval> nvtx, explicit_marks;
  // NVTX: a start record carries the name and an id; its end record carries the same id.
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> open_nvtx;
  // Explicit marks nest per process.
  std::map<uint32_t, std::vector<uint64_t>> open_explicit;
  std::vector<RegionMark> marks = trace.marks;
  std::stable_sort(marks.begin(), marks.end(), [](const RegionMark& a, const RegionMark& b) { return a.ts < b.ts; });
  for (const RegionMark& m : marks) {
    if (m.source == RegionMark::Source::nvtx) {
      const auto key = std::make_pair(m.process, m.id);
      if (m.begin) {
        if (m.name == marker) open_nvtx[key] = m.ts;
      } else if (auto it = open_nvtx.find(key); it != open_nvtx.end()) {
        nvtx.push_back({it->second, m.ts});
        open_nvtx.erase(it);
      }
    } else if (m.name == marker) {
      auto& stack = open_explicit[m.process];
      if (m.begin) {
        stack.push_back(m.ts);
      } else if (!stack.empty()) {
        explicit_marks.push_back({stack.back(), m.ts});
        stack.pop_back();
      }
    }
  }
  if (!nvtx.empty()) return {merge_intervals(std::move(nvtx)), "nvtx"};
  if (!explicit_marks.empty()) return {merge_intervals(std::move(explicit_marks)), "explicit"};
  MeasuredRegions whole{{}, "none"};
  if (!trace.activities.empty()) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& a : trace.activities) {
      lo = std::min(lo, a.start);
      hi = std::max(hi, a.end);
    }
    if (hi > lo) whole.regions.push_back({lo, hi});
  }
  return whole;
}

}  // namespace kf::profiler
