// The request's key and the seeded draw among choices (mockserver/selection.h), without a server.
#include <gtest/gtest.h>

#include <map>

#include "mockserver/selection.h"

namespace kf::mock {
namespace {

KeyRule rule(const std::string& regex, std::vector<KeyPlace> places = {KeyPlace::last_user}, bool last = false) {
  KeyRule r;
  r.regex_source = regex;
  r.regex = std::make_shared<const std::regex>(regex, std::regex::ECMAScript);
  r.places = std::move(places);
  r.last_occurrence = last;
  return r;
}

MockRequest conversation(std::vector<MockMessage> messages) {
  MockRequest req;
  req.messages = std::move(messages);
  return req;
}

TEST(MockKey, FirstMarkerOfTheLastUserMessageIsTheKey) {
  const auto req = conversation({{"system", "// landscape: sys/x"},
                                 {"user", "// landscape: old/turn"},
                                 {"assistant", "```cpp\n// landscape: mm/L1\n```"},
                                 {"user", "Parent:\n// landscape: mm/L2\nInspiration:\n// landscape: mm/L3\n"}});
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)"), req), "mm/L2");
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::last_user}, true), req), "mm/L3");
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::last_assistant}), req), "mm/L1");
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::system}), req), "sys/x");
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::all}), req), "sys/x");
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::all}, true), req), "mm/L3");
  EXPECT_EQ(find_key(rule("landscape: \\S+"), req), "landscape: mm/L2");  // no group: the whole match
}

TEST(MockKey, PlacesAreTriedInOrderUntilOneHoldsAMarker) {
  const auto req = conversation({{"user", "first turn"},
                                 {"assistant", "// landscape: mm/L1_bug"},
                                 {"user", "Your kernel is incorrect. Fix it."}});
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::last_user, KeyPlace::last_assistant}), req), "mm/L1_bug");
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)", {KeyPlace::last_user}), req), std::nullopt);
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)"), conversation({})), std::nullopt);
}

TEST(MockKey, HostileTextIsSearchedLineByLineWithinABound) {
  // A megabyte line of one character class would drive a backtracking regex deep; lines are cut first.
  std::string flood(1 << 20, 'a');
  const auto req = conversation({{"user", flood + "\n// landscape: mm/L0\n" + flood}});
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)"), req), "mm/L0");
  const auto tail = conversation({{"user", std::string(kKeyLineLimit, 'x') + "// landscape: mm/L9"}});
  EXPECT_EQ(find_key(rule("// landscape: (\\S+)"), tail), std::nullopt);  // past the bound on its line
}

TEST(MockChoice, SameArgumentsSameDrawAndWeightsAreRespected) {
  std::vector<ScriptChoice> choices(3);
  choices[0].weight = 6;
  choices[1].weight = 3;
  choices[2].weight = 1;
  EXPECT_EQ(draw_choice(choices, 7, 2, "mm/L1", 5), draw_choice(choices, 7, 2, "mm/L1", 5));
  std::map<size_t, int> counts;
  for (int64_t d = 0; d < 10000; ++d) ++counts[draw_choice(choices, 7, 2, "mm/L1", d)];
  // Expected 6000 / 3000 / 1000; the draws are a fixed function, so these counts never change.
  EXPECT_NEAR(counts[0], 6000, 300);
  EXPECT_NEAR(counts[1], 3000, 300);
  EXPECT_NEAR(counts[2], 1000, 300);
  int differ_by_seed = 0, differ_by_key = 0;
  for (int64_t d = 0; d < 100; ++d) {
    differ_by_seed += draw_choice(choices, 7, 2, "mm/L1", d) != draw_choice(choices, 8, 2, "mm/L1", d);
    differ_by_key += draw_choice(choices, 7, 2, "mm/L1", d) != draw_choice(choices, 7, 2, "mm/L2", d);
  }
  EXPECT_GT(differ_by_seed, 20);
  EXPECT_GT(differ_by_key, 20);
  EXPECT_EQ(draw_choice(std::vector<ScriptChoice>(1), 1, 0, "", 0), 0u);
}

}  // namespace
}  // namespace kf::mock
