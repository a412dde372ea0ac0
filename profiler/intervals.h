#pragma once
// GPU time accounting over possibly overlapping activity intervals.
#include <cstdint>
#include <vector>

namespace kf::profiler {

struct Interval {
  uint64_t start = 0;  // ns, inclusive
  uint64_t end = 0;    // ns, exclusive; end <= start means empty
};

struct SharedTime {
  uint64_t busy_ns = 0;           // length of the union of all intervals
  std::vector<double> shared_ns;  // per input interval: its time, where k intervals overlap each gets 1/k
};

// Sweep line: every instant covered by k > 0 intervals is split equally among those k, so the shares sum to
// busy_ns (up to rounding) and no instant is counted twice.
SharedTime share_overlaps(const std::vector<Interval>& intervals);

// Sorted, disjoint union of the given intervals (empty ones dropped).
std::vector<Interval> merge_intervals(std::vector<Interval> intervals);

// Length of the part of `iv` inside the sorted, disjoint `regions`, as the clipped pieces.
std::vector<Interval> clip_to_regions(const Interval& iv, const std::vector<Interval>& regions);

}  // namespace kf::profiler
