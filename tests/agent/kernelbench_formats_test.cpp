// KernelBench's published formats read liberally (agent/claims/kernelbench_formats.h): both shapes of
// eval_results.json, baseline files, and every oddity as a warning with the value absent, never a made-up
// number.
#include <cmath>

#include <gtest/gtest.h>

#include "agent/claims/kernelbench_formats.h"

namespace kf::agent::kernelbench {
namespace {

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

TEST(KernelBenchNames, SolutionFiles) {
  auto n = parse_solution_name("level_1_problem_19_sample_0_kernel.py");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->level, 1);
  EXPECT_EQ(n->problem, 19);
  EXPECT_EQ(n->sample, 0);
  n = parse_solution_name("level_3_problem_100_sample_12_kernel.py");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->problem, 100);
  EXPECT_EQ(n->sample, 12);
  for (const char* bad : {"level_1_problem_19_sample_0_kernel.cu", "level_1_problem_19_sample_0_prompt.txt",
                          "level_1_problem__sample_0_kernel.py", "level_x_problem_1_sample_0_kernel.py",
                          "level_1_problem_1_sample_0_kernel.py.bak", "eval_results.json",
                          "level_1_problem_12345678901_sample_0_kernel.py"})
    EXPECT_FALSE(parse_solution_name(bad)) << bad;
}

TEST(KernelBenchNames, ProblemNumbers) {
  EXPECT_EQ(problem_number("19_ReLU.py"), 19);
  EXPECT_EQ(problem_number("1_Square_matrix_multiplication_.py"), 1);
  EXPECT_FALSE(problem_number("ReLU.py"));
  EXPECT_FALSE(problem_number("19.py"));
}

TEST(EvalResults, CurrentFormatOneListPerProblem) {
  auto r = parse_eval_results(R"({"19": [
      {"sample_id": 0, "compiled": true, "correctness": true, "metadata": {"hardware": "NVIDIA L40S"},
       "runtime": 0.0215, "runtime_stats": {"mean": 0.0215, "std": 0.001}},
      {"sample_id": 1, "compiled": false, "correctness": false, "metadata": {}, "runtime": -1.0,
       "runtime_stats": {}}]})",
                              "eval_results.json");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->entries.size(), 2u);
  const auto& a = r->entries[0];
  EXPECT_EQ(a.problem, 19);
  EXPECT_EQ(a.sample, 0);
  EXPECT_EQ(a.compiled, true);
  EXPECT_EQ(a.correct, true);
  ASSERT_TRUE(a.runtime_ms);
  EXPECT_DOUBLE_EQ(*a.runtime_ms, 0.0215);
  EXPECT_EQ(a.hardware, "NVIDIA L40S");
  EXPECT_EQ(a.raw["runtime_stats"]["std"], 0.001);
  EXPECT_TRUE(a.warnings.empty());
  const auto& b = r->entries[1];
  EXPECT_EQ(b.sample, 1);
  EXPECT_EQ(b.compiled, false);
  EXPECT_FALSE(b.runtime_ms);  // -1: KernelBench's "not measured", not an oddity
  EXPECT_TRUE(b.warnings.empty());
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->unreadable, 0);
}

TEST(EvalResults, OlderFormatOneObjectPerProblemIsSampleZero) {
  auto r = parse_eval_results(R"({"1": {"compiled": true, "correctness": true, "runtime": 0.5},
                                  "2": {"compiled": true, "correctness": false, "runtime": -1}})",
                              "old.json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries.size(), 2u);
  EXPECT_EQ(r->entries[0].problem, 1);
  EXPECT_EQ(r->entries[0].sample, 0);
  EXPECT_TRUE(r->entries[0].warnings.empty());
  EXPECT_EQ(r->entries[1].correct, false);
}

TEST(EvalResults, OdditiesAreWarningsAndAbsentValues) {
  auto r = parse_eval_results(R"({
      "3": [{"sample_id": "2", "compiled": "True", "correctness": 1, "runtime": "0.25"},
            {"compiled": true, "correctness": true, "runtime": NaN},
            {"sample_id": 4, "compiled": "maybe", "runtime": Infinity},
            {"sample_id": 5, "compiled": true, "correctness": true, "runtime": 0},
            "not an entry", {"sample_id": -3}],
      "x7": [{"sample_id": 0}],
      "8": 42})",
                              "odd.json");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->entries.size(), 4u);
  const auto& a = r->entries[0];
  EXPECT_EQ(a.sample, 2);
  EXPECT_EQ(a.compiled, true);
  EXPECT_EQ(a.correct, true);
  ASSERT_TRUE(a.runtime_ms);
  EXPECT_DOUBLE_EQ(*a.runtime_ms, 0.25);
  EXPECT_TRUE(any_contains(a.warnings, "sample_id"));
  EXPECT_TRUE(any_contains(a.warnings, "\"compiled\""));
  EXPECT_TRUE(any_contains(a.warnings, "\"correctness\""));
  EXPECT_TRUE(any_contains(a.warnings, "runtime"));
  const auto& b = r->entries[1];  // no sample_id in a list: its place
  EXPECT_EQ(b.sample, 1);
  EXPECT_FALSE(b.runtime_ms);
  EXPECT_TRUE(any_contains(b.warnings, "no sample_id"));
  EXPECT_TRUE(any_contains(b.warnings, "NaN"));
  const auto& c = r->entries[2];
  EXPECT_FALSE(c.compiled);
  EXPECT_FALSE(c.correct);
  EXPECT_FALSE(c.runtime_ms);
  EXPECT_TRUE(any_contains(c.warnings, "\"maybe\""));
  EXPECT_TRUE(any_contains(c.warnings, "no \"correctness\""));
  EXPECT_TRUE(any_contains(c.warnings, "Infinity"));
  const auto& d = r->entries[3];
  EXPECT_FALSE(d.runtime_ms);
  EXPECT_TRUE(any_contains(d.warnings, "not positive"));
  // "not an entry", sample_id -3, the key "x7" and the bare 42.
  EXPECT_EQ(r->unreadable, 4);
  EXPECT_TRUE(any_contains(r->warnings, "not an object"));
  EXPECT_TRUE(any_contains(r->warnings, "\"x7\""));
  EXPECT_TRUE(any_contains(r->warnings, "2 bare NaN/Infinity"));
}

TEST(EvalResults, ARepeatedSampleKeepsItsLastEntry) {
  auto r = parse_eval_results(R"({"5": [{"sample_id": 0, "compiled": false, "correctness": false},
                                        {"sample_id": 0, "compiled": true, "correctness": true, "runtime": 1.5}]})",
                              "again.json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries.size(), 1u);
  EXPECT_EQ(r->entries[0].correct, true);
  EXPECT_TRUE(any_contains(r->entries[0].warnings, "recorded 2 times"));
}

TEST(EvalResults, NotAnObjectIsAnError) {
  EXPECT_FALSE(parse_eval_results("[1, 2]", "list.json"));
  EXPECT_FALSE(parse_eval_results("{\"1\": ", "torn.json"));
  auto e = parse_eval_results("", "empty.json");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("empty.json"), std::string::npos);
}

TEST(PythonJson, BareNonFiniteWordsBecomeStringsOutsideStringsOnly) {
  int n = 0;
  EXPECT_EQ(python_json_to_json(R"({"a": NaN, "b": [Infinity, -Infinity], "c": "NaN, Infinity"})", &n),
            R"({"a": "NaN", "b": ["Infinity", "-Infinity"], "c": "NaN, Infinity"})");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(python_json_to_json(R"({"q": "say \"NaN\"", "x": 1})", &n), R"({"q": "say \"NaN\"", "x": 1})");
  EXPECT_EQ(n, 0);
}

TEST(Lenient, NumbersAndBooleans) {
  bool flag = false;
  EXPECT_EQ(lenient_number(nlohmann::json(2.5), &flag), 2.5);
  EXPECT_FALSE(flag);
  EXPECT_EQ(lenient_number(nlohmann::json("2.5"), &flag), 2.5);
  EXPECT_TRUE(flag);
  EXPECT_TRUE(std::isnan(*lenient_number(nlohmann::json("NaN"))));
  EXPECT_FALSE(lenient_number(nlohmann::json("2.5ms")));
  EXPECT_FALSE(lenient_number(nlohmann::json::array()));
  EXPECT_EQ(lenient_bool(nlohmann::json(true), &flag), true);
  EXPECT_FALSE(flag);
  EXPECT_EQ(lenient_bool(nlohmann::json("False"), &flag), false);
  EXPECT_TRUE(flag);
  EXPECT_EQ(lenient_bool(nlohmann::json(1)), true);
  EXPECT_FALSE(lenient_bool(nlohmann::json(2)));
  EXPECT_FALSE(lenient_bool(nlohmann::json("yes")));
}

TEST(Baseline, ByFileNameThenByNumber) {
  auto b = Baseline::parse(R"({"level1": {"19_ReLU.py": {"mean": 0.05, "hardware": "NVIDIA L40S"},
                                          "20_LeakyReLU.py": {"mean": "0.07"},
                                          "21_Sigmoid.py": {"mean": NaN},
                                          "22_Tanh.py": 0.09},
                               "level2": {"1_Conv2D_ReLU_BiasAdd.py": {"mean": 1.25}},
                               "notes": "hand-made"})",
                           "baseline.json");
  ASSERT_TRUE(b) << b.error().message;
  std::string note;
  auto relu = b->find(1, "19_ReLU.py", &note);
  ASSERT_TRUE(relu);
  EXPECT_DOUBLE_EQ(relu->mean_ms, 0.05);
  EXPECT_EQ(relu->hardware, "NVIDIA L40S");
  EXPECT_TRUE(note.empty());
  auto renamed = b->find(1, "19_ReLU_renamed.py", &note);
  ASSERT_TRUE(renamed);
  EXPECT_NE(note.find("by its number"), std::string::npos);
  EXPECT_DOUBLE_EQ(b->find(1, "20_LeakyReLU.py", nullptr)->mean_ms, 0.07);
  EXPECT_DOUBLE_EQ(b->find(1, "22_Tanh.py", nullptr)->mean_ms, 0.09);
  EXPECT_FALSE(b->find(1, "21_Sigmoid.py", nullptr));  // NaN: no usable mean
  EXPECT_DOUBLE_EQ(b->find(2, "1_Conv2D_ReLU_BiasAdd.py", nullptr)->mean_ms, 1.25);
  EXPECT_FALSE(b->find(3, "1_MLP.py", nullptr));
  EXPECT_TRUE(any_contains(b->warnings(), "21_Sigmoid.py"));
  EXPECT_TRUE(any_contains(b->warnings(), "\"notes\""));
  EXPECT_TRUE(any_contains(b->warnings(), "20_LeakyReLU.py: mean \"0.07\""));
}

TEST(Baseline, WithoutUsableLevelsIsAnError) {
  EXPECT_FALSE(Baseline::parse("[]", "b.json"));
  EXPECT_FALSE(Baseline::parse(R"({"level1": {"1_A.py": {"mean": -1}}})", "b.json"));
}

TEST(BoundedJson, CutsLongStringsAndLists) {
  nlohmann::json big = {{"log", std::string(5000, 'x')}, {"list", nlohmann::json::array()}};
  for (int i = 0; i < 100; ++i) big["list"].push_back(i);
  auto b = bounded_json(big, 100, 10);
  EXPECT_LT(b["log"].get<std::string>().size(), 150u);
  EXPECT_NE(b["log"].get<std::string>().find("4900 more characters"), std::string::npos);
  ASSERT_EQ(b["list"].size(), 11u);
  EXPECT_EQ(b["list"][10], "... (90 more items)");
  nlohmann::json deep = 1;
  for (int i = 0; i < 20; ++i) deep = nlohmann::json::array({deep});
  EXPECT_LT(bounded_json(deep).dump().size(), 40u);
}

}  // namespace
}  // namespace kf::agent::kernelbench
