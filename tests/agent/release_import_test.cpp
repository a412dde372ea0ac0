// `kforge import` of the release formats (agent/claims/release_formats.h) against fixtures/releases (its README.md
// says what each file is): every entry counted, claims with hardware, model and baseline kinds, the
// releases' own references compared with the dataset, solutions classified, the audit joined, and the
// report's tables over the result. No evaluator involved.
#include <filesystem>

#include <gtest/gtest.h>

#include "agent/claims/kernelbench_import.h"
#include "agent/claims/release_formats.h"
#include "agent/report/import_report.h"
#include "core/files.h"
#include "corpus/reader.h"
#include "tests/support/command.h"

namespace kf::agent {
namespace {
namespace fs = std::filesystem;

const std::string kReleases = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/releases";
const std::string kDataset = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/kernelbench_run/kernelbench";

class ReleaseImport : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = kf::testing::make_temp_dir("kforge-release-import-test"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  ImportOptions options(std::vector<std::string> sources) const {
    ImportOptions o;
    o.sources = std::move(sources);
    o.out = dir_ + "/corpus";
    o.kernelbench = kDataset;
    return o;
  }
  std::vector<corpus::Record> records() const {
    auto c = corpus::load(dir_ + "/corpus");
    EXPECT_TRUE(c) << (c ? "" : c.error().message);
    return c ? c->records : std::vector<corpus::Record>{};
  }
  const corpus::Record* find(const std::vector<corpus::Record>& rs, const std::string& run, int problem) const {
    for (const auto& r : rs)
      if (r.imported && r.imported->run == run && r.imported->problem_number == problem) return &r;
    return nullptr;
  }
  std::string dir_;
};

const ImportedRun* run_named(const ImportResult& r, const std::string& name) {
  for (const auto& run : r.runs)
    if (run.name == name) return &run;
  return nullptr;
}

TEST(ReleaseFormats, TellsEachLayoutApart) {
  EXPECT_EQ(release_format(kReleases + "/cuda_l1/h100.json"), "cuda-l1");
  EXPECT_EQ(release_format(kReleases + "/cuda_l1"), "cuda-l1-folder");
  EXPECT_EQ(release_format(kReleases + "/leaderboard"), "kernelbench-leaderboard");
  EXPECT_EQ(release_format(kReleases + "/leaderboard/docs/assets/raw_data.json"), "kernelbench-leaderboard");
  EXPECT_EQ(release_format(kReleases + "/run_v2/toy_level1_run"), "kernelbench-run-v2");
  EXPECT_FALSE(release_format(kReleases + "/audit.json"));
  EXPECT_FALSE(release_format(kDataset));
  EXPECT_EQ(parse_v2_solution_name("problem_12_kernel.py"), 12);
  EXPECT_FALSE(parse_v2_solution_name("problem_x_kernel.py"));
  EXPECT_FALSE(parse_v2_solution_name("level_1_problem_1_sample_0_kernel.py"));
}

TEST_F(ReleaseImport, CudaL1EveryEntryWithEveryBaselineAndItsReference) {
  auto r = import_kernelbench(options({kReleases + "/cuda_l1"}));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->runs.size(), 2u);
  const ImportedRun* h100 = run_named(*r, "cuda-l1-h100");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->format, "cuda-l1");
  EXPECT_EQ(h100->entries, 5);
  EXPECT_EQ(h100->unreadable_entries, 1);
  EXPECT_EQ(h100->entries_without_file, 1);  // task 3 has no custom_code
  EXPECT_EQ(h100->solutions, 3);
  EXPECT_EQ(h100->added, 2);
  EXPECT_EQ(h100->missing_problems, std::set<int>{9});
  EXPECT_EQ(h100->claimed_correct, 3);
  EXPECT_EQ(h100->claimed_faster, 3);
  EXPECT_EQ(h100->hardware, "H100");
  EXPECT_EQ(h100->model, "CUDA-L1");
  EXPECT_EQ(h100->baselines.at("eager"), 2);
  EXPECT_EQ(h100->baselines.at("cudnn"), 2);
  EXPECT_EQ(h100->references_compared, 2);
  EXPECT_EQ(h100->references_differ, 1);
  EXPECT_EQ(h100->kinds.at("cuda_kernel"), 1);
  EXPECT_EQ(h100->kinds.at("no_own_kernel"), 1);
  EXPECT_EQ(h100->kinds.at("torch_compile"), 1);

  const auto rs = records();
  const corpus::Record* relu = find(rs, "cuda-l1-h100", 1);
  ASSERT_TRUE(relu && relu->claim && relu->imported);
  EXPECT_EQ(relu->provider, "cuda-l1");
  EXPECT_EQ(relu->model, "CUDA-L1");
  EXPECT_EQ(relu->imported->format, "cuda-l1");
  EXPECT_EQ(relu->imported->kinds, std::vector<std::string>{"cuda_kernel"});
  EXPECT_EQ(relu->claim->baseline_kind, "eager");
  EXPECT_DOUBLE_EQ(*relu->claim->speedup, 2.5);
  ASSERT_EQ(relu->claim->speedups.size(), 5u);
  EXPECT_DOUBLE_EQ(*relu->claim->speedup_over("cuda_graph"), 0.9);
  ASSERT_TRUE(relu->claim->reference);
  EXPECT_EQ(relu->claim->reference->differs, false);
  // The reference is stored once, next to the sources.
  auto stored = read_file(dir_ + "/corpus/" + relu->claim->reference->path);
  ASSERT_TRUE(stored);
  EXPECT_EQ(*stored, *read_file(kDataset + "/level1/1_ReLU_Squared.py"));

  const corpus::Record* sum = find(rs, "cuda-l1-h100", 2);
  ASSERT_TRUE(sum && sum->claim && sum->claim->reference);
  EXPECT_EQ(sum->claim->reference->differs, true);
  EXPECT_NE(sum->claim->reference->summary.find("constants: cols 4096 -> 128"), std::string::npos)
      << sum->claim->reference->summary;
  EXPECT_NE(sum->claim->reference->summary.find("forward: `return x.sum(1)` -> `return torch.sum(x, dim=1)`"),
            std::string::npos)
      << sum->claim->reference->summary;

  const corpus::Record* graph = find(rs, "cuda-l1-a100", 1);
  ASSERT_TRUE(graph && graph->claim);
  EXPECT_EQ(graph->imported->kinds, (std::vector<std::string>{"no_own_kernel", "cuda_graph"}));
  EXPECT_DOUBLE_EQ(*graph->claim->speedup_over("torch_compile"), 1.2);  // a string in the file, with a warning
  EXPECT_FALSE(graph->claim->speedup_over("torch_compile_reduce_overhead"));
  // A scored entry whose code is the text None is a claim without a solution, not a solution that fails.
  const ImportedRun* a100 = run_named(*r, "cuda-l1-a100");
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->entries, 2);
  EXPECT_EQ(a100->entries_without_file, 1);
  EXPECT_EQ(a100->solutions, 1);
  EXPECT_FALSE(find(rs, "cuda-l1-a100", 2));

  const std::string text = format_import_result(*r);
  EXPECT_NE(text.find("| cuda-l1-h100 | cuda-l1 | 1 | 5 | 3 | 2 | 0 | 3 | 3 | 3 | 1 | 1 (9) | 1 | 1 | 0 |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 1 | 2 | computation, sizes | cuda-l1-h100 | computation, sizes: 4 lines differ; "),
            std::string::npos)
      << text;
  EXPECT_EQ(sum->claim->reference->changes, (std::vector<std::string>{"computation", "sizes"}));

  // Again: nothing new.
  auto again = import_kernelbench(options({kReleases + "/cuda_l1/h100.json"}));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->runs.at(0).added, 0);
  EXPECT_EQ(again->runs.at(0).already, 2);
}

TEST_F(ReleaseImport, LeaderboardOneRunPerModelWithItsProblems) {
  auto o = options({kReleases + "/leaderboard"});
  o.audit = kReleases + "/audit.json";
  auto r = import_kernelbench(o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->runs.size(), 2u);
  const ImportedRun* a = run_named(*r, "leaderboard-model-a");
  const ImportedRun* b = run_named(*r, "leaderboard-model-b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->entries + b->entries, 4);  // the entry that is no object belongs to no model
  EXPECT_EQ(a->unreadable_entries + b->unreadable_entries, 1);
  EXPECT_EQ(a->solutions, 2);
  EXPECT_EQ(b->solutions, 1);
  EXPECT_EQ(b->entries_without_file, 1);  // no code
  EXPECT_EQ(a->claimed_faster, 1);        // 2.0x; 0.8x is no speedup
  EXPECT_EQ(a->references_differ, 1);
  EXPECT_EQ(a->on_degenerate, 1);
  EXPECT_EQ(a->on_fooled, 1);

  const auto rs = records();
  const corpus::Record* sum = find(rs, "leaderboard-model-a", 2);
  ASSERT_TRUE(sum && sum->claim);
  EXPECT_EQ(sum->claim->hardware, "L40S");
  EXPECT_EQ(sum->claim->model, "model-a");
  EXPECT_DOUBLE_EQ(*sum->claim->speedup, 0.8);
  EXPECT_DOUBLE_EQ(*sum->claim->speedup_over("torch_compile"), 0.5);
  EXPECT_DOUBLE_EQ(*sum->claim->runtime_ms, 0.05);
  EXPECT_DOUBLE_EQ(*sum->claim->baseline_ms, 0.04);
  EXPECT_EQ(sum->claim->task_quality, "degenerate");
  EXPECT_EQ(sum->imported->kinds, (std::vector<std::string>{"no_own_kernel", "vendor_library"}));
  EXPECT_EQ(sum->imported->file, "aaaa2222.py");
  ASSERT_TRUE(sum->claim->reference);
  EXPECT_TRUE(sum->claim->reference->differs.value_or(false));
  const corpus::Record* scale = find(rs, "leaderboard-model-b", 3);
  ASSERT_TRUE(scale && scale->claim);
  EXPECT_EQ(scale->imported->kinds, std::vector<std::string>{"triton_kernel"});
  EXPECT_EQ(scale->candidate_format, "kernelbench-triton");
  EXPECT_FALSE(scale->claim->reference);  // the leaderboard ships no l1_p3.py
  EXPECT_TRUE(scale->claim->task_quality.empty());

  // The report over the corpus: claims by baseline kind and hardware, kinds, drift, task quality.
  auto corpus = corpus::load(dir_ + "/corpus");
  ASSERT_TRUE(corpus);
  const ImportReport report = summarize_imports(*corpus, std::nullopt);
  const auto tables = import_tables(report);
  std::vector<std::string> headings;
  for (const auto& t : tables) headings.push_back(t.heading);
  ASSERT_EQ(tables.size(), 6u);
  EXPECT_EQ(tables[1].heading, "Imported claims by baseline kind and hardware");
  ASSERT_EQ(tables[1].rows.size(), 2u);  // eager on L40S, torch.compile on L40S
  EXPECT_EQ(tables[1].rows[0][0], "eager");
  EXPECT_EQ(tables[1].rows[0][1], "L40S");
  EXPECT_EQ(tables[1].rows[0][3], "3");
  EXPECT_EQ(tables[1].rows[0][4], "2");
  EXPECT_EQ(tables[1].rows[1][0], "torch.compile");
  EXPECT_EQ(tables[1].rows[1][6], "not measured by kforge");
  EXPECT_EQ(tables[2].heading, "What the imported solutions are (static, from their text)");
  EXPECT_EQ(tables[3].rows.size(), 1u);  // drift: level 1 problem 2
  EXPECT_EQ(tables[3].rows[0][1], "2_Row_Sum");
  EXPECT_EQ(tables[3].rows[0][2], "computation, sizes");
  EXPECT_EQ(tables[4].rows.size(), 2u);  // claims on the degenerate 2_Row_Sum and the fooled 1_ReLU_Squared
  const std::string md = format_with_imports({}, report, ReportFormat::md, "t");
  EXPECT_NE(md.find("reference_differs"), std::string::npos);
  const auto json = import_json(report);
  EXPECT_EQ(json["runs"][0]["kinds"]["cuda_kernel"], 1);
  EXPECT_EQ(json["solutions"][1]["claimed"]["speedups"]["torch_compile"], 0.5);
}

TEST_F(ReleaseImport, RunV2WithDetailedResults) {
  auto r = import_kernelbench(options({kReleases + "/run_v2"}));  // a folder of runs
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->runs.size(), 1u);
  const auto& run = r->runs[0];
  EXPECT_EQ(run.name, "toy_level1_run");
  EXPECT_EQ(run.format, "kernelbench-run-v2");
  EXPECT_EQ(run.level, 1);
  EXPECT_EQ(run.entries, 3);
  EXPECT_EQ(run.solutions, 3);
  EXPECT_EQ(run.added, 3);
  EXPECT_EQ(run.without_entry, 1);         // problem 3's file
  EXPECT_EQ(run.entries_without_file, 1);  // problem 4's entry
  EXPECT_EQ(run.claimed_correct, 1);
  EXPECT_EQ(run.model, "toy-model-1");
  EXPECT_EQ(run.hardware, "NVIDIA Toy GPU-40GB");
  const auto rs = records();
  const corpus::Record* relu = find(rs, "toy_level1_run", 1);
  ASSERT_TRUE(relu && relu->claim);
  EXPECT_DOUBLE_EQ(*relu->claim->runtime_ms, 0.0125);
  EXPECT_FALSE(relu->claim->speedup);  // no --baseline
  const corpus::Record* sum = find(rs, "toy_level1_run", 2);
  ASSERT_TRUE(sum && sum->claim);
  EXPECT_EQ(sum->claim->correct, false);
  EXPECT_FALSE(sum->claim->runtime_ms);  // -1: not measured

  // With KernelBench's baseline file the runtime becomes an eager speedup: 0.025 / 0.0125.
  auto o = options({kReleases + "/run_v2/toy_level1_run"});
  o.out = dir_ + "/with_baseline";
  o.baseline = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/kernelbench_run/timing/toy_hw/baseline_time_torch.json";
  auto b = import_kernelbench(o);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->runs.at(0).claimed_faster, 1);
  EXPECT_EQ(b->runs.at(0).baselines.at("eager"), 1);
}

TEST_F(ReleaseImport, BadReleaseFilesAreErrorsOrWarningsNeverCrashes) {
  const std::string bad = dir_ + "/bad";
  fs::create_directories(bad + "/docs/assets");
  ASSERT_TRUE(write_file_atomic(bad + "/docs/assets/raw_data.json", "{\"not\": \"a list\"}"));
  auto r = import_kernelbench(options({bad}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "import.format");
  // A v2 run that names no level anywhere needs --level.
  const std::string run = dir_ + "/some_run";
  fs::create_directories(run);
  ASSERT_TRUE(write_file_atomic(run + "/problem_1_kernel.py", "x = 1\n"));
  r = import_kernelbench(options({run}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "import.levels");
  auto o = options({run});
  o.level = 1;
  r = import_kernelbench(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->runs.at(0).added, 1);
  // An audit file that is no audit is a usage error.
  o = options({kReleases + "/cuda_l1/a100.json"});
  o.audit = kReleases + "/cuda_l1/a100.json";
  r = import_kernelbench(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "import.audit");
}

}  // namespace
}  // namespace kf::agent
