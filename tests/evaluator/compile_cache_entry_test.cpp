// The compile cache's entry type: entries written before the type existed read the same, and what it writes
// reads back. Label unit.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/files.h"
#include "evaluator/compile_cache_entry.h"

using namespace kf::eval;
namespace fs = std::filesystem;

namespace {

fs::path old_entry(const std::string& name) {
  return fs::path(KFORGE_TEST_SOURCE_DIR) / "tests/evaluator/fixtures/compile_cache_v1" / name;
}

}  // namespace

TEST(CompileCacheEntry, ReadsACandidateEntryOfTheOldLayout) {
  auto ok = CompileCacheEntry::read(old_entry("candidate_ok"));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->ok());
  EXPECT_EQ(ok->output, "");

  auto failed = CompileCacheEntry::read(old_entry("candidate_compile_error"));
  ASSERT_TRUE(failed);
  ASSERT_FALSE(failed->ok());
  EXPECT_EQ(failed->failure->verdict, VerdictKind::compile_error);
  ASSERT_EQ(failed->failure->reasons.size(), 1u);
  EXPECT_EQ(failed->failure->reasons[0].code, "compile_error");
  EXPECT_NE(failed->failure->reasons[0].detail.find("expected ';'"), std::string::npos);
  EXPECT_NE(failed->output.find("error:"), std::string::npos);
}

TEST(CompileCacheEntry, ReadsAnExtensionEntryOfTheOldLayout) {
  auto ok = CompileCacheEntry::read(old_entry("extension_ok"));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->ok());
  EXPECT_TRUE(ok->used_pch);
  EXPECT_EQ(ok->output, "== main.cpp (g++)\nnote: something\n");

  auto rejected = CompileCacheEntry::read(old_entry("extension_rejected"));
  ASSERT_TRUE(rejected);
  ASSERT_FALSE(rejected->ok());
  EXPECT_EQ(rejected->failure->verdict, VerdictKind::rejected);
  ASSERT_EQ(rejected->failure->reasons.size(), 1u);
  EXPECT_EQ(rejected->failure->reasons[0].code, "rejected.torch_fallback");
  EXPECT_FALSE(rejected->used_pch);
}

TEST(CompileCacheEntry, ReadsASolutionEntryOfTheOldLayout) {
  auto ok = CompileCacheEntry::read(old_entry("solution_ok"));
  ASSERT_TRUE(ok);
  ASSERT_TRUE(ok->ok());
  ASSERT_EQ(ok->extensions.size(), 1u);
  const auto& e = ok->extensions[0];
  EXPECT_EQ(e.name, "relu_ext");
  EXPECT_EQ(e.key, "5f1c");
  EXPECT_EQ(e.library, "/cache/ab/abcd/relu_ext.so");
  EXPECT_FALSE(e.cache_hit);
  EXPECT_TRUE(e.used_pch);
  EXPECT_DOUBLE_EQ(e.seconds, 12.5);
  EXPECT_EQ(ok->static_findings["load_inline"][0]["name"], "relu_ext");
  // checks.build, as reports show it, is the extensions as they were stored.
  EXPECT_EQ(to_json(ok->extensions), nlohmann::json::parse(R"([{"cache_hit":false,"key":"5f1c",
      "library":"/cache/ab/abcd/relu_ext.so","name":"relu_ext","seconds":12.5,"used_pch":true}])"));

  auto rejected = CompileCacheEntry::read(old_entry("solution_static_reject"));
  ASSERT_TRUE(rejected);
  ASSERT_FALSE(rejected->ok());
  EXPECT_EQ(rejected->failure->verdict, VerdictKind::rejected);
  EXPECT_EQ(rejected->failure->reasons.at(0).detail, "forward calls torch.relu");
  EXPECT_TRUE(rejected->static_findings["load_inline"].is_array());
}

TEST(CompileCacheEntry, WritesWhatItReadsBack) {
  const fs::path dir = fs::temp_directory_path() / ("kf-cache-entry-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CompileCacheEntry e;
  e.failure = CompileFailure{VerdictKind::rejected, {{"rejected.vendor_library", "uses cublas"}}};
  e.output = "out";
  e.static_findings = {{"load_inline", nlohmann::json::array()}};
  ASSERT_TRUE(e.write(dir / "ab" / "abcd"));
  auto back = CompileCacheEntry::read(dir / "ab" / "abcd");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), e.to_json());
  // The keys are the old ones: an older kforge sharing the cache reads it too.
  auto raw = nlohmann::json::parse(*kf::read_file((dir / "ab" / "abcd" / "result.json").string()));
  EXPECT_EQ(raw["status"], "rejected");
  EXPECT_EQ(raw["reasons"][0]["code"], "rejected.vendor_library");

  CompileCacheEntry built;
  built.extensions.push_back({"m", "k", "/lib/m.so", true, false, 1.5});
  ASSERT_TRUE(built.write(dir));
  back = CompileCacheEntry::read(dir);
  ASSERT_TRUE(back && back->ok());
  EXPECT_EQ(to_json(back->extensions), to_json(built.extensions));
  fs::remove_all(dir);
}

TEST(CompileCacheEntry, WhatIsNotAnEntryIsCompiledAgain) {
  EXPECT_FALSE(CompileCacheEntry::from_json(nlohmann::json::parse("[1]")));
  EXPECT_FALSE(CompileCacheEntry::from_json(nlohmann::json::parse(R"({"output": "x"})")));
  EXPECT_FALSE(CompileCacheEntry::from_json(nlohmann::json::parse(R"({"status": "ok", "extensions": [3]})")));
  // A status that names no verdict was not written by kforge.
  EXPECT_FALSE(CompileCacheEntry::from_json(nlohmann::json::parse(R"({"status": "exploded"})")));
  EXPECT_FALSE(CompileCacheEntry::read(fs::path("/nonexistent-kforge-cache")));
  // A failure that lost its reasons still fails, saying so.
  auto bare = CompileCacheEntry::from_json(nlohmann::json::parse(R"({"status": "compile_error"})"));
  ASSERT_TRUE(bare && !bare->ok());
  EXPECT_EQ(bare->failure->reasons.size(), 1u);
}
