// The one reader of /proc/<pid>/stat: fields counted from the last ')' (a command name may hold spaces and
// parentheses), a short or damaged line refused, and this process's own line read as the kernel wrote it.
#include <sys/types.h>
#include <unistd.h>

#include <climits>
#include <string>

#include <gtest/gtest.h>

#include "sandbox/proc_stat.h"

namespace kf::sandbox {
namespace {

// A line as the kernel writes it: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
// utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize ...
std::string line(const std::string& comm, const std::string& state = "S") {
  return "4242 (" + comm + ") " + state + " 17 4240 4200 0 -1 4194560 150 0 0 0 3 1 0 0 20 0 1 0 987654 1234567 89\n";
}

TEST(ProcStat, ReadsTheFieldsAfterTheCommand) {
  const auto s = ProcStat::parse(line("kforge-runner"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, 'S');
  EXPECT_EQ(s->parent, 17);
  EXPECT_EQ(s->process_group, 4240);
  EXPECT_EQ(s->session, 4200);
  EXPECT_EQ(s->start_ticks, 987654u);
  EXPECT_FALSE(s->stopped_or_ended());
  EXPECT_FALSE(s->zombie());
}

TEST(ProcStat, ACommandNameWithSpacesAndParenthesesCannotShiftTheFields) {
  const auto s = ProcStat::parse(line(") Z 1 1 1 (x) ", "T"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, 'T');
  EXPECT_EQ(s->session, 4200);
  EXPECT_EQ(s->start_ticks, 987654u);
  EXPECT_TRUE(s->stopped_or_ended());
}

TEST(ProcStat, StoppedTracedZombieAndDeadCountAsStoppedOrEnded) {
  for (const char* state : {"T", "t", "Z", "X"}) EXPECT_TRUE(ProcStat::parse(line("a", state))->stopped_or_ended());
  EXPECT_TRUE(ProcStat::parse(line("a", "Z"))->zombie());
  EXPECT_FALSE(ProcStat::parse(line("a", "R"))->stopped_or_ended());
}

TEST(ProcStat, ADamagedOrShortLineIsRefused) {
  EXPECT_FALSE(ProcStat::parse(""));
  EXPECT_FALSE(ProcStat::parse("4242 (no closing parenthesis S 1 2 3"));
  EXPECT_FALSE(ProcStat::parse("4242 (a)"));
  EXPECT_FALSE(ProcStat::parse("4242 (a) S 17 4240 4200 0 -1"));  // no start time
  EXPECT_FALSE(ProcStat::parse("4242 (a) S x 4240 4200 0 -1 4194560 150 0 0 0 3 1 0 0 20 0 1 0 987654 1"));
  EXPECT_FALSE(ProcStat::parse("4242 (a) SS 17 4240 4200 0 -1 4194560 150 0 0 0 3 1 0 0 20 0 1 0 987654 1"));
}

TEST(ProcStat, ReadsThisProcess) {
  const auto s = ProcStat::read(::getpid());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->parent, ::getppid());
  EXPECT_EQ(s->process_group, ::getpgrp());
  EXPECT_EQ(s->session, ::getsid(0));
  EXPECT_GT(s->start_ticks, 0u);
}

TEST(ProcStat, AProcessThatIsGoneReadsAsNothing) { EXPECT_FALSE(ProcStat::read(INT_MAX)); }

}  // namespace
}  // namespace kf::sandbox
