// The compile cache's layout and protocol (evaluator/compile_cache.h): where a key's folder is, what a lookup
// answers (only entries that can be used as they are), and stores. Label unit.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/files.h"
#include "core/hash.h"
#include "evaluator/compile_cache.h"

using namespace kf::eval;
namespace fs = std::filesystem;

namespace {

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kforge-compile-cache-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

CompileCacheEntry failure_entry() {
  CompileCacheEntry e;
  e.failure = CompileFailure{VerdictKind::compile_error, {{"compile_error", "expected ';'"}}};
  e.output = "error: expected ';'";
  return e;
}

TEST_F(CompileCacheTest, AKeysFolderIsNamedByTheHashOfItsInputsUnderItsFirstTwoCharacters) {
  const std::string key = kf::sha256_hex("inputs");
  const CompileCache cache(root_.string());
  EXPECT_EQ(cache.slot("inputs").dir(), root_ / key.substr(0, 2) / key);
  EXPECT_EQ(cache.slot("inputs").file("candidate.so"), root_ / key.substr(0, 2) / key / "candidate.so");
  EXPECT_EQ(cache.pch_dir("inputs"), root_ / "pch" / key);
}

TEST_F(CompileCacheTest, AnEmptySlotHasNoEntry) {
  EXPECT_FALSE(CompileCache(root_.string()).slot("inputs").lookup({"candidate.so"}));
}

TEST_F(CompileCacheTest, AFailureIsUsedWithoutAnyBuiltFile) {
  const auto slot = CompileCache(root_.string()).slot("inputs");
  ASSERT_TRUE(slot.store_entry(failure_entry()));
  const auto entry = slot.lookup({"candidate.so"});
  ASSERT_TRUE(entry);
  ASSERT_FALSE(entry->ok());
  EXPECT_EQ(entry->failure->reasons.at(0).detail, "expected ';'");
}

TEST_F(CompileCacheTest, ASuccessIsUsedOnlyWhileEveryFileItBuiltIsThere) {
  const auto slot = CompileCache(root_.string()).slot("inputs");
  CompileCacheEntry ok;
  ok.output = "warning: unused";
  ASSERT_TRUE(slot.store_entry(ok));
  EXPECT_FALSE(slot.lookup({"candidate.so"}));  // the entry names a library that is not there

  const fs::path built = root_ / "built.so";
  ASSERT_TRUE(kf::write_file_atomic(built.string(), "ELF").ok());
  EXPECT_FALSE(slot.store_file(built, "candidate.so"));
  EXPECT_EQ(*kf::read_file(slot.file("candidate.so").string()), "ELF");
  const auto entry = slot.lookup({"candidate.so"});
  ASSERT_TRUE(entry);
  EXPECT_TRUE(entry->ok());
  EXPECT_EQ(entry->output, "warning: unused");

  EXPECT_FALSE(slot.lookup({"candidate.so", "solution.py"}));
  EXPECT_FALSE(slot.store_text("solution.py", "class ModelNew: pass\n"));
  EXPECT_TRUE(slot.lookup({"candidate.so", "solution.py"}));
  EXPECT_EQ(*kf::read_file(slot.file("solution.py").string()), "class ModelNew: pass\n");

  fs::remove(slot.file("candidate.so"));
  EXPECT_FALSE(slot.lookup({"candidate.so"}));
}

TEST_F(CompileCacheTest, AStoreThatCannotWriteSaysWhereAndWhatToDo) {
  fs::create_directories(root_);
  ASSERT_TRUE(kf::write_file_atomic((root_ / "not-a-folder").string(), "").ok());
  const auto slot = CompileCache((root_ / "not-a-folder").string()).slot("inputs");
  const fs::path built = root_ / "built.so";
  ASSERT_TRUE(kf::write_file_atomic(built.string(), "ELF").ok());
  for (const auto& reason : {slot.store_file(built, "candidate.so"), slot.store_text("solution.py", "x")}) {
    ASSERT_TRUE(reason);
    EXPECT_EQ(reason->code, "harness.cache");
    EXPECT_EQ(reason->detail,
              "cannot write to the compile cache " + slot.dir().string() + " (set --cache-dir to a writable folder)");
  }
  EXPECT_FALSE(slot.store_entry(failure_entry()));
}

}  // namespace
