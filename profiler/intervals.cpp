#include "profiler/intervals.h"

#include <algorithm>

namespace kf::profiler {

SharedTime share_overlaps(const std::vector<Interval>& intervals) {
  struct Event {
    uint64_t t;
    bool opens;
    size_t index;
  };
  std::vector<Event> events;
  events.reserve(intervals.size() * 2);
  for (size_t i = 0; i < intervals.size(); ++i) {
    if (intervals[i].end <= intervals[i].start) continue;
    events.push_back({intervals[i].start, true, i});
    events.push_back({intervals[i].end, false, i});
  }
  // Closings before openings at the same instant: [a,b) and [b,c) do not overlap.
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.t != b.t) return a.t < b.t;
    return a.opens < b.opens;
  });

  SharedTime out;
  out.shared_ns.assign(intervals.size(), 0.0);
  std::vector<size_t> active;                         // indices of open intervals
  std::vector<size_t> position(intervals.size(), 0);  // where each open interval sits in `active`
  uint64_t last = 0;
  for (const Event& e : events) {
    if (!active.empty() && e.t > last) {
      const uint64_t len = e.t - last;
      out.busy_ns += len;
      const double each = static_cast<double>(len) / static_cast<double>(active.size());
      for (size_t i : active) out.shared_ns[i] += each;
    }
    last = e.t;
    if (e.opens) {
      position[e.index] = active.size();
      active.push_back(e.index);
    } else {
      const size_t at = position[e.index];
      active[at] = active.back();
      position[active[at]] = at;
      active.pop_back();
    }
  }
  return out;
}

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::erase_if(intervals, [](const Interval& iv) { return iv.end <= iv.start; });
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& iv : intervals) {
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

std::vector<Interval> clip_to_regions(const Interval& iv, const std::vector<Interval>& regions) {
  std::vector<Interval> pieces;
  for (const Interval& r : regions) {
    if (r.start >= iv.end) break;
    const uint64_t s = std::max(iv.start, r.start);
    const uint64_t e = std::min(iv.end, r.end);
    if (e > s) pieces.push_back({s, e});
  }
  return pieces;
}

}  // namespace kf::profiler
