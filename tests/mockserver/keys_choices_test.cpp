// Integration tests: keyed entries and seeded choices over loopback, as the search landscape uses them
// (a parent kernel's marker in the prompt picks the entry; the server's seed draws the child).
#include <map>

#include "mock_test_util.h"

namespace kf::mock::testing {
namespace {

using nlohmann::json;

constexpr const char* kLandscape = R"js({
  "key": {"regex": "// landscape: (\\S+)", "in": ["last_user", "last_assistant"]},
  "entries": [
    {"key": "p/a", "choices": [{"answer": "// landscape: p/b", "weight": 1}, {"answer": "// landscape: p/c", "weight": 1},
                               {"status": 503, "weight": 1}]},
    {"key": ["p/b", "p/c"], "answer": "// landscape: p/d"},
    {"match": "Problem: p\\b", "choices": [{"answer": "// landscape: p/a"}]}
  ]})js";

json conversation(std::vector<std::pair<std::string, std::string>> turns) {
  json messages = json::array({{{"role", "system"}, {"content", "be a kernel engineer"}}});
  for (auto& [role, content] : turns) messages.push_back({{"role", role}, {"content", content}});
  return {{"model", "m"}, {"messages", messages}, {"stream", false}};
}

std::string reply_of(const httplib::Result& res) {
  if (!res) return "<no response>";
  if (res->status != 200) return "HTTP " + std::to_string(res->status);
  return json::parse(res->body)["choices"][0]["message"]["content"].get<std::string>();
}

TEST(MockServerKeys, TheParentMarkerPicksTheEntryInTheUserMessageOrThePreviousAnswer) {
  ScriptedServer server(kLandscape);
  EXPECT_EQ(reply_of(server.post("/v1/chat/completions", conversation({{"user", "Problem: p"}}))), "// landscape: p/a");
  // A search prompt showing the parent (and an inspiration after it): the first marker is the key.
  EXPECT_EQ(reply_of(server.post(
                "/v1/chat/completions",
                conversation({{"user", "Improve:\n// landscape: p/b\nFor inspiration:\n// landscape: p/a"}}))),
            "// landscape: p/d");
  // A refinement turn: the feedback has no marker, the previous answer (the parent) has.
  EXPECT_EQ(reply_of(server.post("/v1/chat/completions",
                                 conversation({{"user", "Problem: p"},
                                               {"assistant", "// landscape: p/c"},
                                               {"user", "Your kernel is correct. Make it faster."}}))),
            "// landscape: p/d");
  // A key no entry names falls through to the other entries: here nothing else matches.
  EXPECT_EQ(reply_of(server.post("/v1/chat/completions", conversation({{"user", "// landscape: p/zz"}}))), "HTTP 500");
  auto log = server.log();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_TRUE(log[0]["key"].is_null());
  EXPECT_EQ(log[0]["entry"], 2);
  EXPECT_EQ(log[0]["choice"], 0);
  EXPECT_EQ(log[1]["key"], "p/b");
  EXPECT_EQ(log[1]["entry"], 1);
  EXPECT_TRUE(log[1]["choice"].is_null());
  EXPECT_EQ(log[2]["key"], "p/c");
  EXPECT_EQ(log[3]["key"], "p/zz");
  EXPECT_EQ(log[3]["outcome"], "exhausted");
}

// Answers to `n` requests showing parent p/a, in order.
std::vector<std::string> children_of_a(uint64_t seed, int n) {
  ScriptedServer server(kLandscape, seed);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(reply_of(server.post("/v1/chat/completions", conversation({{"user", "// landscape: p/a"}}))));
  }
  return out;
}

TEST(MockServerChoices, SeededDrawsRepeatWithTheSeedAndCoverEveryChoice) {
  const auto first = children_of_a(11, 30);
  EXPECT_EQ(children_of_a(11, 30), first);
  EXPECT_NE(children_of_a(12, 30), first);
  std::map<std::string, int> seen;
  for (const auto& r : first) ++seen[r];
  EXPECT_GT(seen["// landscape: p/b"], 0);
  EXPECT_GT(seen["// landscape: p/c"], 0);
  EXPECT_GT(seen["HTTP 503"], 0);  // a choice may be a fault too
  EXPECT_EQ(seen.size(), 3u);
}

TEST(MockServerChoices, DrawsOfOneParentDoNotDependOnRequestsForOthers) {
  ScriptedServer server(kLandscape, 11);
  std::vector<std::string> interleaved;
  for (int i = 0; i < 30; ++i) {
    server.post("/v1/chat/completions", conversation({{"user", "Problem: p"}}));
    interleaved.push_back(reply_of(server.post("/v1/chat/completions", conversation({{"user", "// landscape: p/a"}}))));
  }
  EXPECT_EQ(interleaved, children_of_a(11, 30));
  for (const auto& record : server.log()) {
    if (record["key"] == "p/a") {
      EXPECT_TRUE(record["choice"].is_number_integer());
    }
  }
}

}  // namespace
}  // namespace kf::mock::testing
