// parse_ncu_csv on recorded ncu output (tests/verdict/ncu/README.md names each recording's source) and on the
// ways that output goes wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "verdict/ncu_csv.h"

namespace kf::eval {
namespace {

std::string recording(const std::string& name) {
  std::ifstream in(std::string(KFORGE_TEST_SOURCE_DIR) + "/tests/verdict/ncu/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcuCsv, Ncu2025SectionsOnOneLaunch) {
  // ncu 2025 on a B200 (sm_100): the program's output and ==PROF== lines first, rule rows among the metric
  // rows, a trailing comma on every metric row, a Memory Throughput in % of peak.
  const std::string text = recording("superbench_cublaslt_sm100.csv.log");
  ASSERT_FALSE(text.empty());
  auto p = parse_ncu_csv(text);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->launches, 1);
  EXPECT_EQ(p->kernel.rfind("cutlass3x_sm100_tensorop_s64x256x32gemm", 0), 0u) << p->kernel;
  EXPECT_DOUBLE_EQ(*p->memory_throughput_pct, 21.68);
  EXPECT_DOUBLE_EQ(*p->compute_throughput_pct, 23.59);
  EXPECT_DOUBLE_EQ(*p->achieved_occupancy_pct, 15.53);
  EXPECT_DOUBLE_EQ(*p->duration_ns, 406240);
  EXPECT_TRUE(p->top_stalls.empty());  // the default sections report no stall reasons
}

TEST(NcuCsv, Ncu2020ColumnsSeveralLaunchesTheLongestIsChosen) {
  // Nsight Compute 2020 on a V100: a "Kernel Time" column and no launch geometry, "Memory [%]" and "SM [%]",
  // a Memory Throughput in byte/second (Memory Workload Analysis) that is no percentage, three launches.
  auto p = parse_ncu_csv(recording("xplacer_gaussian_matrix4_v100.csv.log"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->launches, 3);
  EXPECT_EQ(p->kernel, "Fan2(float*,float*,float*,int,int,int)");
  EXPECT_DOUBLE_EQ(*p->duration_ns, 3328);  // launch 2, the longest of 3296, 3040 and 3328 ns
  EXPECT_DOUBLE_EQ(*p->memory_throughput_pct, 0.11);
  EXPECT_DOUBLE_EQ(*p->compute_throughput_pct, 0.0);
  EXPECT_DOUBLE_EQ(*p->achieved_occupancy_pct, 1.56);
}

// A row in the 2025 recording's layout, for the raw metrics kforge asks for besides the sections.
std::string raw_row(const std::string& id, const std::string& metric, const std::string& unit,
                    const std::string& value) {
  return "\"" + id +
         "\",\"371693\",\"cublaslt_gemm\",\"127.0.0.1\",\"k\",\"1\",\"7\",\"(384, 1, 1)\",\"(9, 32, 1)\","
         "\"0\",\"10.0\",\"Command line profiler metrics\",\"" +
         metric + "\",\"" + unit + "\",\"" + value + "\",\n";
}

TEST(NcuCsv, StallReasonsAreSharesOfTheirFamilyLargestFirst) {
  // Constructed rows (no public recording carries these metrics) in the recording's layout, appended to it.
  std::string text = recording("superbench_cublaslt_sm100.csv.log");
  const std::string pre = "smsp__average_warps_issue_stalled_", post = "_per_issue_active.ratio";
  text += raw_row("0", pre + "long_scoreboard" + post, "", "6");
  text += raw_row("0", pre + "barrier" + post, "", "1");
  text += raw_row("0", pre + "mio_throttle" + post, "", "2");
  text += raw_row("0", pre + "wait" + post, "", "1");
  text += raw_row("0", pre + "selected" + post, "", "0");
  text += raw_row("0", "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued", "", "1,000");
  auto p = parse_ncu_csv(text);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->top_stalls.size(), 3u);
  EXPECT_EQ(p->top_stalls[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(p->top_stalls[0].share, 0.6);
  EXPECT_EQ(p->top_stalls[1].reason, "mio_throttle");
  EXPECT_EQ(p->top_stalls[2].reason, "barrier");       // ties keep ncu's order (by name here)
  EXPECT_DOUBLE_EQ(*p->memory_throughput_pct, 21.68);  // the sections' figures are still read
  const std::string said = p->describe();
  EXPECT_NE(said.find("memory throughput 21.7% of peak"), std::string::npos) << said;
  EXPECT_NE(said.find("long_scoreboard (60% of stalls)"), std::string::npos) << said;
}

TEST(NcuCsv, NothingUsableIsNoProfile) {
  EXPECT_FALSE(parse_ncu_csv(""));
  EXPECT_FALSE(
      parse_ncu_csv("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                    "Performance Counters on the target device 0.\n"));
  EXPECT_FALSE(parse_ncu_csv("==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n"));
  // A header alone; rows before any header.
  const std::string text = recording("superbench_cublaslt_sm100.csv.log");
  const size_t header = text.find("\"ID\",");
  const size_t first_row = text.find('\n', header) + 1;
  EXPECT_FALSE(parse_ncu_csv(text.substr(0, first_row)));
  EXPECT_FALSE(parse_ncu_csv(text.substr(first_row)));
}

TEST(NcuCsv, DamagedOutputKeepsOnlyWhatReadsCleanly) {
  std::string text = recording("superbench_cublaslt_sm100.csv.log");
  // Cut in the middle of the Memory Throughput row: the rows before it still count, that one does not.
  const size_t cut = text.find("\"Memory Throughput\",\"%\",\"2");
  ASSERT_NE(cut, std::string::npos);
  auto p = parse_ncu_csv(text.substr(0, cut + 25));
  EXPECT_FALSE(p);  // no figure was complete before the cut
  // Values that are not ncu's numbers: a locale's decimal comma, n/a, a percentage beyond 100, text.
  for (const char* bad : {"21,68", "n/a", "2168", "lots", "-3", "1,2345.0", ""}) {
    std::string t = text;
    t.replace(t.find("\"21.68\""), 7, std::string("\"") + bad + "\"");
    auto q = parse_ncu_csv(t);
    ASSERT_TRUE(q) << bad;
    EXPECT_FALSE(q->memory_throughput_pct) << bad;
    EXPECT_DOUBLE_EQ(*q->compute_throughput_pct, 23.59) << bad;
  }
  // Thousands separators are read (ncu writes "1,215,000,000.00").
  std::string big = text;
  big.replace(big.find("\"406240\""), 8, "\"406,240\"");
  EXPECT_DOUBLE_EQ(*parse_ncu_csv(big)->duration_ns, 406240);
}

TEST(NcuCsv, HostileKernelNamesAndBytesDoNotReachTheText) {
  std::string row =
      "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"1\",\"evil\x1b[2J\nname\",\"s\",\"Achieved Occupancy\",\"%\",\"50\"\n"
      "\"0\",\"1\",\"" +
      std::string(5000, 'k') + "\",\"s\",\"Achieved Occupancy\",\"%\",\"50\"\n";
  auto p = parse_ncu_csv(row);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kernel.size(), 163u);  // 160 printable characters and "..."
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 131 + 7) % 256);
  EXPECT_FALSE(parse_ncu_csv(garbage));
  EXPECT_FALSE(parse_ncu_csv(std::string(1 << 16, '"')));
}

TEST(KernelProfile, JsonRoundTripAndWrongTypesReadAsAbsent) {
  KernelProfile p;
  p.kernel = "k";
  p.launches = 2;
  p.memory_throughput_pct = 80;
  p.top_stalls = {{"long_scoreboard", 0.5}};
  auto back = KernelProfile::from_json(p.to_json());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), p.to_json());
  EXPECT_FALSE(KernelProfile::from_json({{"memory_throughput_pct", "80"}, {"top_stalls", 3}}));
  EXPECT_FALSE(KernelProfile::from_json(nlohmann::json::array()));
  EXPECT_EQ(KernelProfile{}.describe(), "");
}

}  // namespace
}  // namespace kf::eval
