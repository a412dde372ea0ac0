#include "core/hash.h"

#include <gtest/gtest.h>

TEST(Hash, Sha256OfKnownString) {
  EXPECT_EQ(kf::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Hash, MissingFileIsAnError) {
  auto r = kf::sha256_file("/nonexistent/kforge-test");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent/kforge-test"), std::string::npos);
}
