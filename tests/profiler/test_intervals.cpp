#include <gtest/gtest.h>

#include <numeric>

#include "profiler/intervals.h"

using kf::profiler::clip_to_regions;
using kf::profiler::Interval;
using kf::profiler::merge_intervals;
using kf::profiler::share_overlaps;

TEST(ProfilerIntervals, DisjointIntervalsKeepTheirOwnTimeAndGapsAreNotBusy) {
  const auto r = share_overlaps({{0, 10}, {20, 25}});
  EXPECT_EQ(r.busy_ns, 15u);
  EXPECT_DOUBLE_EQ(r.shared_ns[0], 10.0);
  EXPECT_DOUBLE_EQ(r.shared_ns[1], 5.0);
}

TEST(ProfilerIntervals, TwoOverlappingIntervalsShareTheOverlapEqually) {
  const auto r = share_overlaps({{0, 10}, {5, 15}});
  EXPECT_EQ(r.busy_ns, 15u);
  EXPECT_DOUBLE_EQ(r.shared_ns[0], 7.5);
  EXPECT_DOUBLE_EQ(r.shared_ns[1], 7.5);
}

TEST(ProfilerIntervals, ThreeWayOverlapSplitsEachSegmentByItsOwnCount) {
  // [0,3) A alone; [3,6) A,B; [6,9) A,B,C; [9,12) A alone.
  const auto r = share_overlaps({{0, 12}, {3, 9}, {6, 9}});
  EXPECT_EQ(r.busy_ns, 12u);
  EXPECT_DOUBLE_EQ(r.shared_ns[0], 3 + 1.5 + 1 + 3);
  EXPECT_DOUBLE_EQ(r.shared_ns[1], 1.5 + 1);
  EXPECT_DOUBLE_EQ(r.shared_ns[2], 1.0);
  EXPECT_DOUBLE_EQ(std::accumulate(r.shared_ns.begin(), r.shared_ns.end(), 0.0), 12.0);
}

TEST(ProfilerIntervals, TouchingIntervalsDoNotOverlap) {
  const auto r = share_overlaps({{5, 10}, {0, 5}});
  EXPECT_EQ(r.busy_ns, 10u);
  EXPECT_DOUBLE_EQ(r.shared_ns[0], 5.0);
  EXPECT_DOUBLE_EQ(r.shared_ns[1], 5.0);
}

TEST(ProfilerIntervals, IdenticalAndNestedIntervals) {
  const auto same = share_overlaps({{0, 8}, {0, 8}});
  EXPECT_EQ(same.busy_ns, 8u);
  EXPECT_DOUBLE_EQ(same.shared_ns[0], 4.0);
  EXPECT_DOUBLE_EQ(same.shared_ns[1], 4.0);
  const auto nested = share_overlaps({{0, 10}, {2, 4}});
  EXPECT_EQ(nested.busy_ns, 10u);
  EXPECT_DOUBLE_EQ(nested.shared_ns[0], 9.0);
  EXPECT_DOUBLE_EQ(nested.shared_ns[1], 1.0);
}

TEST(ProfilerIntervals, EmptyAndInvertedIntervalsGetNothing) {
  const auto r = share_overlaps({{5, 5}, {9, 3}, {0, 4}});
  EXPECT_EQ(r.busy_ns, 4u);
  EXPECT_DOUBLE_EQ(r.shared_ns[0], 0.0);
  EXPECT_DOUBLE_EQ(r.shared_ns[1], 0.0);
  EXPECT_DOUBLE_EQ(r.shared_ns[2], 4.0);
  EXPECT_EQ(share_overlaps({}).busy_ns, 0u);
}

TEST(ProfilerIntervals, MergeProducesSortedDisjointUnion) {
  const auto m = merge_intervals({{10, 20}, {0, 5}, {4, 8}, {20, 22}, {30, 30}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].start, 0u);
  EXPECT_EQ(m[0].end, 8u);
  EXPECT_EQ(m[1].start, 10u);
  EXPECT_EQ(m[1].end, 22u);
}

TEST(ProfilerIntervals, ClipKeepsOnlyThePartsInsideRegions) {
  const std::vector<Interval> regions{{10, 20}, {30, 40}};
  const auto pieces = clip_to_regions({15, 35}, regions);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].start, 15u);
  EXPECT_EQ(pieces[0].end, 20u);
  EXPECT_EQ(pieces[1].start, 30u);
  EXPECT_EQ(pieces[1].end, 35u);
  EXPECT_TRUE(clip_to_regions({0, 10}, regions).empty());
  EXPECT_TRUE(clip_to_regions({20, 30}, regions).empty());
}
