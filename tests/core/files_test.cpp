#include "core/files.h"

#include <gtest/gtest.h>

#include <filesystem>

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
