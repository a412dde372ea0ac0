#include "core/files.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

TEST(Files, AtomicWriteThenRead) {
  auto dir = std::filesystem::temp_directory_path() / ("kf-files-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string p = (dir / "a.txt").string();
  ASSERT_TRUE(kf::write_file_atomic(p, "hello").ok());
  EXPECT_EQ(kf::read_file(p).value(), "hello");
  ASSERT_TRUE(kf::append_line_durable(p, "x").ok());
  EXPECT_EQ(kf::read_file(p).value(), "hellox\n");
  std::filesystem::remove_all(dir);
}

// A campaign's compile pool writes the same cache entry from several threads at once: every writer must
// succeed (each through its own temporary file) and the file must end whole.
TEST(Files, ConcurrentAtomicWritesOfOnePathAllSucceed) {
  auto dir = std::filesystem::temp_directory_path() / ("kf-files-concurrent-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string p = (dir / "entry.json").string();
  const std::string contents(1 << 16, 'x');
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (!kf::write_file_atomic(p, contents).ok()) ++failures;
    });
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(kf::read_file(p).value(), contents);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}
