// The JSON-lines channel, the timing policy, text hygiene and the maps scan on hostile input: label unit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "core/time.h"
#include "evaluator/compile.h"
#include "evaluator/json_lines.h"
#include "evaluator/text_hygiene.h"
#include "evaluator/timing_policy.h"

using namespace kf::eval;

namespace {

// A channel reading what `feed` writes (from a thread, so that large writes do not block the test).
struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    signal(SIGPIPE, SIG_IGN);  // as the supervisor does: a writer to a closed channel gets EPIPE
    int fds[2];
    EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
    r = fds[0];
    w = fds[1];
  }
};

std::string receive_error(const std::string& bytes, ChannelLimits limits = {1024, 8}, bool close_after = true) {
  Pipe p;
  std::thread feeder([&] {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = write(p.w, bytes.data() + off, bytes.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    if (close_after) close(p.w);
  });
  JsonLinesChannel ch(p.r, -1, limits);
  auto j = ch.receive(kf::now_s() + 5);
  ch.close();  // unblocks the feeder on EPIPE
  feeder.join();
  if (!close_after) close(p.w);
  return j.ok() ? "ok:" + j->dump() : j.error().code;
}

TEST(Channel, ReadsObjectsLineByLine) {
  Pipe p;
  std::string two = "{\"a\":1}\n{\"b\":[1,2]}\n";
  ASSERT_EQ(write(p.w, two.data(), two.size()), static_cast<ssize_t>(two.size()));
  JsonLinesChannel ch(p.r, p.w, {});
  auto a = ch.receive(kf::now_s() + 1);
  auto b = ch.receive(kf::now_s() + 1);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*a)["a"], 1);
  EXPECT_EQ((*b)["b"].size(), 2u);
}

TEST(Channel, EveryMalformedInputIsATypedError) {
  EXPECT_EQ(receive_error("garbage\n"), "protocol.malformed");
  EXPECT_EQ(receive_error("[1,2]\n"), "protocol.not_object");
  EXPECT_EQ(receive_error(std::string(20, '[') + std::string(20, ']') + "\n"), "protocol.too_deep");
  EXPECT_EQ(receive_error("{\"a\":\"" + std::string(4000, 'x') + "\"}\n"), "protocol.line_too_long");
  EXPECT_EQ(receive_error("{\"a\":1}"), "protocol.malformed");  // no newline before end of file
  EXPECT_EQ(receive_error(""), "channel.closed");
  // Brackets inside strings do not count as depth.
  EXPECT_EQ(receive_error("{\"s\":\"[[[[[[[[[[[[[[[[[[[[\"}\n"), "ok:{\"s\":\"[[[[[[[[[[[[[[[[[[[[\"}");
}

TEST(Channel, AnEndlessLineEndsAtTheLimitNotAtEndOfFile) {
  // 64 MiB without a newline against a 1 MiB limit: the error comes long before the writer is done.
  std::string big(64u << 20, 'x');
  EXPECT_EQ(receive_error(big, {1u << 20, 8}, false), "protocol.line_too_long");
}

TEST(Channel, ADeadlinePasses) {
  Pipe p;
  JsonLinesChannel ch(p.r, -1, {});
  auto j = ch.receive(kf::now_s() + 0.05);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().code, "channel.timeout");
  close(p.w);
}

TEST(Channel, SpinningStillReadsAndStillTimesOut) {
  Pipe p;
  JsonLinesChannel ch(p.r, -1, {});
  ch.set_spin(0.02);
  // A deadline inside the spin window ends the wait as it does without spinning.
  auto none = ch.receive(kf::now_s() + 0.005);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "channel.timeout");
  // A line written during the spin, and one written after it (the wait then sleeps), both arrive.
  std::thread writer([&] {
    usleep(5000);
    EXPECT_EQ(write(p.w, "{\"a\":1}\n", 8), 8);
    usleep(60000);
    EXPECT_EQ(write(p.w, "{\"b\":2}\n", 8), 8);
  });
  auto a = ch.receive(kf::now_s() + 5);
  auto b = ch.receive(kf::now_s() + 5);
  writer.join();
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*a)["a"], 1);
  EXPECT_EQ((*b)["b"], 2);
  close(p.w);
}

TEST(JsonDepth, CountsNestingOutsideStrings) {
  EXPECT_EQ(json_depth("{}"), 1);
  EXPECT_EQ(json_depth("{\"a\":[{\"b\":[]}]}"), 4);
  EXPECT_EQ(json_depth("\"[[[\\\"[[\""), 0);
}

TEST(TimingPolicy, StopsOnLowNoiseAfterTheMinimum) {
  TimingPolicy p({1, 5, 100, 1e9, 0.01, 1e9});
  p.add(100, 10);  // warm-up, discarded
  EXPECT_EQ(p.rounds(), 0);
  for (int i = 0; i < 4; ++i) p.add(10, 10);
  EXPECT_FALSE(p.done());
  p.add(10, 10);
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.stop_reason(), "noise");
  EXPECT_DOUBLE_EQ(p.median_ms(), 1.0);
  EXPECT_EQ(p.calls(), 50);
}

// One disturbed round among steady ones barely moves the median, so it does not keep timing going.
TEST(TimingPolicy, AnOutlierRoundDoesNotHoldTimingUp) {
  TimingPolicy p({0, 10, 1000, 1e9, 0.004, 1e9});
  for (int i = 0; i < 9; ++i) p.add(13.30 + 0.01 * (i % 3), 1);
  p.add(16.91, 1);
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.stop_reason(), "noise");
  EXPECT_NEAR(p.median_ms(), 13.31, 1e-9);
}

TEST(TimingPolicy, NoisyRoundsRunToTheBudget) {
  TimingPolicy p({0, 3, 1000, 50, 0.001, 1e9});
  for (int i = 0; !p.done(); ++i) p.add(i % 2 ? 1 : 9, 1);
  EXPECT_EQ(p.stop_reason(), "budget");
  EXPECT_GE(p.measured_ms(), 50);
  EXPECT_GT(p.noise(), 0.001);
}

TEST(TextHygiene, RemovesEscapesAndControls) {
  std::string hostile =
      "ok\x1b]0;title\x07 \x1b[2J\x1b[31mred\x1b[0m\rline\x01\x7f\n\ttab \xc2\x9b c1 \xff bad \xc3\xa9";
  EXPECT_EQ(clean_text(hostile), "ok redline\n\ttab ?? c1 ? bad \xc3\xa9");
  EXPECT_EQ(clean_text(std::string(100, 'a'), 10), std::string(10, 'a') + "\n[90 more bytes cut]");
  EXPECT_EQ(clean_text("\x1bP dcs payload \x1b\\after"), "after");
}

TEST(VendorMaps, FindsLibrariesHoweverLoaded) {
  std::string maps =
      "7f00-7f10 r-xp 00000000 08:01 1 /usr/local/cuda/lib64/libcublasLt.so.13.0.0\n"
      "7f10-7f20 r-xp 00000000 08:01 2 /usr/local/cuda/lib64/libcudart.so.13\n"
      "7f20-7f30 r--p 00000000 08:01 3 /opt/x/libcublas.so.13\n"
      "7f30-7f40 rw-p 00000000 00:00 0 [heap]\n";
  auto found = vendor_libraries_mapped(maps);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], "cublasLt");
  EXPECT_EQ(found[1], "cublas");
  EXPECT_TRUE(vendor_libraries_mapped("7f-8f r-xp 0 0:0 0 /usr/lib/libcudart.so\n").empty());
}

}  // namespace
