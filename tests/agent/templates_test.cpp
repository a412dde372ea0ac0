#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "agent/prompt/feedback.h"
#include "agent/prompt/prompt_templates.h"

namespace kf::agent {
namespace {

TEST(RenderTemplate, ReplacesNamedPlaceholders) {
  auto r = render_template("a {{x}} b {{y}}{{x}}", {{"x", "1"}, {"y", "two"}}, "t");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "a 1 b two1");
}

TEST(RenderTemplate, ValuesAreNotRescanned) {
  auto r = render_template("{{code}}", {{"code", "int a[2] = {{1},{2}};"}}, "t");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "int a[2] = {{1},{2}};");
}

TEST(RenderTemplate, MissingPlaceholderIsAnErrorNamingIt) {
  auto r = render_template("hello {{nme}}", {{"name", "x"}}, "first_turn");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("{{nme}}"), std::string::npos);
  EXPECT_NE(r.error().message.find("first_turn"), std::string::npos);
  EXPECT_NE(r.error().message.find("name"), std::string::npos);
}

TEST(RenderTemplate, UnclosedPlaceholderIsAnError) {
  EXPECT_FALSE(render_template("x {{name", {{"name", "v"}}, "t").ok());
}

TEST(PromptTemplates, ShippedTemplatesRenderWithTheDocumentedVariables) {
  auto t = PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts");
  ASSERT_TRUE(t.ok()) << t.error().message;
  TemplateVars first = {
      {"language", "CUDA"},    {"problem_name", "19_ReLU"},           {"problem_source", "class Model: pass"},
      {"signature", "// sig"}, {"kforge_h", "/* header */"},          {"code_label", "cuda"},
      {"file_kind", ".cu"},    {"allowed_libraries", "CUDA runtime"}, {"target", "NVIDIA H200 (sm_90a)"}};
  auto r = t->render("first_turn", first);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(r->find("class Model: pass"), std::string::npos);
  EXPECT_NE(r->find("NVIDIA H200 (sm_90a)"), std::string::npos);
  EXPECT_TRUE(t->render("system", {{"language", "CUDA"}}).ok());
  EXPECT_TRUE(t->render("compile_error", {{"compiler_errors", "e"}}).ok());
  EXPECT_TRUE(t->render("incorrect", {{"failed_check", "c"}, {"details", "d"}}).ok());
  EXPECT_TRUE(t->render("runtime_error", {{"error", "e"}}).ok());
  EXPECT_TRUE(t->render("timeout", {{"error", "e"}}).ok());
  EXPECT_TRUE(t->render("rejected", {{"reason", "r"}}).ok());
  // Every variable the documentation lists for `correct` (docs/campaigns.md), as the feedback fills them.
  const TemplateVars correct = correct_feedback_vars(eval::Verdict::from_json(
      {{"verdict", "correct"}, {"correct", true}, {"time_ms", 1.0}, {"ref_time_ms", 2.0}, {"speedup", 2.0}}));
  for (const char* name : {"time_ms", "ref_time_ms", "speedup", "baseline", "eager_time_ms", "eager_speedup",
                           "compile_time_ms", "compile_speedup", "speedups", "roofline", "peak_fraction", "bound_by"})
    EXPECT_TRUE(correct.count(name)) << name;
  auto c = t->render("correct", correct);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_NE(c->find("2.000x over eager PyTorch"), std::string::npos) << *c;
  // The old variables alone no longer fill the shipped template: it names the new ones.
  EXPECT_FALSE(t->render("correct", {{"time_ms", "1"}, {"ref_time_ms", "2"}, {"speedup", "2"}}).ok());
  EXPECT_TRUE(t->render("no_code", {{"reason", "r"}, {"code_label", "cuda"}}).ok());
}

TEST(PromptTemplates, OverrideReplacesOneTemplate) {
  auto dir = std::filesystem::temp_directory_path() / "kforge_agent_templates_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mine.txt") << "Speed: {{speedup}}\n";
  auto t = PromptTemplates::load({{"correct", "mine.txt"}}, dir.string(), KFORGE_TEST_SOURCE_DIR "/prompts");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto r = t->render("correct", {{"speedup", "3.0"}, {"time_ms", "1"}, {"ref_time_ms", "3"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "Speed: 3.0");
  std::filesystem::remove_all(dir);
}

TEST(PromptTemplates, UnknownOverrideNameIsAnError) {
  auto t = PromptTemplates::load({{"corect", "x.txt"}}, ".", KFORGE_TEST_SOURCE_DIR "/prompts");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("corect"), std::string::npos);
}

TEST(PromptTemplates, LayersTakeEachTemplateFromTheMostSpecificFolder) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("kforge_agent_layers_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "set" / "variant");
  for (const auto& name : template_names()) std::ofstream(root / "set" / (name + ".txt")) << "shared " << name;
  std::ofstream(root / "set" / "variant" / "first_turn.txt") << "variant first turn";
  auto t = PromptTemplates::load(nlohmann::json::object(), ".", root.string(), {"set/variant", "set"});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(*t->render("first_turn", {}), "variant first turn");
  EXPECT_EQ(*t->render("correct", {}), "shared correct");

  fs::remove(root / "set" / "timeout.txt");
  auto missing = PromptTemplates::load(nlohmann::json::object(), ".", root.string(), {"set/variant", "set"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'timeout'"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find((root / "set" / "variant").string()), std::string::npos)
      << missing.error().message;
  fs::remove_all(root);
}

}  // namespace
}  // namespace kf::agent
