#include "mockserver/script.h"

#include <set>
#include <sstream>

#include "core/files.h"

namespace kf::mock {

std::string to_string(Api api) {
  switch (api) {
    case Api::openai_chat: return "openai-chat";
    case Api::openai_responses: return "openai-responses";
    case Api::anthropic: return "anthropic";
    case Api::gemini: return "gemini";
  }
  return "unknown";
}

std::optional<Api> api_from_string(const std::string& text) {
  for (Api a : {Api::openai_chat, Api::openai_responses, Api::anthropic, Api::gemini}) {
    if (to_string(a) == text) return a;
  }
  return std::nullopt;
}

std::string to_string(ReasoningForm form) {
  switch (form) {
    case ReasoningForm::reasoning_content: return "reasoning_content";
    case ReasoningForm::reasoning: return "reasoning";
    case ReasoningForm::think_tags: return "think_tags";
    case ReasoningForm::think_close_only: return "think_close_only";
  }
  return "unknown";
}

std::string to_string(KeyPlace place) {
  switch (place) {
    case KeyPlace::last_user: return "last_user";
    case KeyPlace::last_assistant: return "last_assistant";
    case KeyPlace::system: return "system";
    case KeyPlace::all: return "all";
  }
  return "unknown";
}

namespace {

std::optional<ReasoningForm> reasoning_form_from_string(const std::string& text) {
  for (ReasoningForm f : {ReasoningForm::reasoning_content, ReasoningForm::reasoning, ReasoningForm::think_tags,
                          ReasoningForm::think_close_only}) {
    if (to_string(f) == text) return f;
  }
  return std::nullopt;
}

// Collects problems for one entry instead of stopping at the first.
class EntryReader {
 public:
  // `where` names the object in messages: "entry 3", or "entry 3: choices[1]" for an alternative reply.
  EntryReader(const nlohmann::json& obj, std::string where, std::vector<std::string>& problems)
      : obj_(obj), where_(std::move(where)), problems_(problems) {}

  void problem(const std::string& field, const std::string& reason) {
    problems_.push_back(where_ + ": " + field + ": " + reason);
  }

  bool has(const char* key) const { return obj_.contains(key); }

  std::optional<std::string> string(const char* key) {
    if (!has(key)) return std::nullopt;
    const auto& v = obj_.at(key);
    if (!v.is_string()) {
      problem(key, "must be a string");
      return std::nullopt;
    }
    return v.get<std::string>();
  }

  std::optional<int64_t> integer(const char* key, int64_t min_value) {
    if (!has(key)) return std::nullopt;
    return integer_value(key, obj_.at(key), min_value);
  }

  std::optional<int64_t> integer_value(const std::string& field, const nlohmann::json& v, int64_t min_value) {
    if (!v.is_number_integer()) {
      problem(field, "must be an integer");
      return std::nullopt;
    }
    int64_t x = v.get<int64_t>();
    if (x < min_value) {
      problem(field, "must be >= " + std::to_string(min_value) + " (got " + std::to_string(x) + ")");
      return std::nullopt;
    }
    return x;
  }

  std::optional<double> seconds(const char* key) {
    if (!has(key)) return std::nullopt;
    const auto& v = obj_.at(key);
    if (!v.is_number() || v.get<double>() < 0) {
      problem(key, "must be a non-negative number of seconds");
      return std::nullopt;
    }
    return v.get<double>();
  }

  std::optional<bool> boolean(const char* key) {
    if (!has(key)) return std::nullopt;
    const auto& v = obj_.at(key);
    if (!v.is_boolean()) {
      problem(key, "must be true or false");
      return std::nullopt;
    }
    return v.get<bool>();
  }

 private:
  const nlohmann::json& obj_;
  std::string where_;
  std::vector<std::string>& problems_;
};

const std::set<std::string>& known_fields() {
  // clang-format off
  static const std::set<std::string> fields = {
      "comment", "match", "api", "times", "answer", "reasoning", "reasoning_form", "thinking_signature",
      "redacted_thinking", "usage", "finish_reason", "model", "chunk_chars", "status", "retry_after",
      "retry_after_ms", "x_should_retry", "error_type", "error_code", "error_message", "delay_s",
      "event_delay_s", "stream_cut_after", "malformed_json", "error_event_mid_stream", "sse",
      "report_reasoning_tokens", "error_reason", "quota_id", "retry_delay", "headers", "body_file", "key",
      "choices", "weight"};
  // clang-format on
  return fields;
}

// What selects an entry: an entry with `choices` has these and `comment` only; a choice has none of them.
const std::set<std::string>& selection_fields() {
  static const std::set<std::string> fields = {"match", "api", "times", "key", "choices"};
  return fields;
}

void read_usage(EntryReader& r, const nlohmann::json& usage, ScriptUsage& out) {
  if (!usage.is_object()) {
    r.problem("usage", "must be an object like {\"input\": 100, \"output\": 50, \"reasoning\": 20, \"cached\": 0}");
    return;
  }
  for (const auto& [key, value] : usage.items()) {
    std::optional<int64_t>* slot = key == "input"       ? &out.input
                                   : key == "output"    ? &out.output
                                   : key == "reasoning" ? &out.reasoning
                                   : key == "cached"    ? &out.cached
                                                        : nullptr;
    if (!slot) {
      r.problem("usage." + key, "unknown field (expected input, output, reasoning, cached)");
      continue;
    }
    *slot = r.integer_value("usage." + key, value, 0);
  }
  if (out.input && out.cached && *out.cached > *out.input) {
    r.problem("usage.cached", "cached tokens are part of input tokens and cannot exceed them");
  }
}

void read_stream_cut(EntryReader& r, const nlohmann::json& v, ScriptEntry& e) {
  StreamCut cut;
  if (v.is_number_integer()) {
    auto n = r.integer_value("stream_cut_after", v, 0);
    if (!n) return;
    cut.count = *n;
  } else if (v.is_object()) {
    bool have_count = false;
    for (const auto& [key, value] : v.items()) {
      if (key == "events" || key == "bytes") {
        if (have_count) r.problem("stream_cut_after", "give either \"events\" or \"bytes\", not both");
        auto n = r.integer_value("stream_cut_after." + key, value, 0);
        if (!n) return;
        cut.count = *n;
        cut.unit = key == "bytes" ? StreamCut::Unit::bytes : StreamCut::Unit::events;
        have_count = true;
      } else if (key == "abort") {
        if (!value.is_boolean()) {
          r.problem("stream_cut_after.abort", "must be true or false");
          return;
        }
        cut.abort_connection = value.get<bool>();
      } else {
        r.problem("stream_cut_after." + key, "unknown field (expected events, bytes, abort)");
        return;
      }
    }
    if (!have_count) {
      r.problem("stream_cut_after", "needs \"events\" or \"bytes\"");
      return;
    }
  } else {
    r.problem("stream_cut_after", "must be a number of events or an object {\"bytes\"|\"events\": N, \"abort\": bool}");
    return;
  }
  e.stream_cut = cut;
}

void read_error_event(EntryReader& r, const nlohmann::json& v, ScriptEntry& e) {
  ErrorEvent ev;
  if (v.is_boolean()) {
    if (v.get<bool>()) e.error_event = ev;
    return;
  }
  if (!v.is_object()) {
    r.problem("error_event_mid_stream", "must be true or an object {\"after_events\": N, \"type\": …, \"message\": …}");
    return;
  }
  for (const auto& [key, value] : v.items()) {
    if (key == "after_events") {
      auto n = r.integer_value("error_event_mid_stream.after_events", value, 0);
      if (n) ev.after_events = *n;
    } else if ((key == "type" || key == "message") && value.is_string()) {
      (key == "type" ? ev.type : ev.message) = value.get<std::string>();
    } else {
      r.problem("error_event_mid_stream." + key, key == "type" || key == "message"
                                                     ? "must be a string"
                                                     : "unknown field (expected after_events, type, message)");
    }
  }
  e.error_event = ev;
}

void read_sse(EntryReader& r, const nlohmann::json& v, ScriptEntry& e) {
  if (!v.is_object()) {
    r.problem(
        "sse",
        "must be an object {\"line_ending\": \"lf\"|\"crlf\"|\"cr\", \"comments\": bool, \"multiline_data\": bool}");
    return;
  }
  for (const auto& [key, value] : v.items()) {
    if (key == "line_ending") {
      std::string le = value.is_string() ? value.get<std::string>() : "";
      if (le == "lf")
        e.sse.line_ending = "\n";
      else if (le == "crlf")
        e.sse.line_ending = "\r\n";
      else if (le == "cr")
        e.sse.line_ending = "\r";
      else
        r.problem("sse.line_ending", "must be \"lf\", \"crlf\" or \"cr\"");
    } else if ((key == "comments" || key == "multiline_data") && value.is_boolean()) {
      (key == "comments" ? e.sse.comments : e.sse.multiline_data) = value.get<bool>();
    } else {
      r.problem("sse." + key, key == "comments" || key == "multiline_data"
                                  ? "must be true or false"
                                  : "unknown field (expected line_ending, comments, multiline_data)");
    }
  }
}

void read_headers(EntryReader& r, const nlohmann::json& v, ScriptEntry& e) {
  if (!v.is_object()) {
    r.problem("headers",
              "must be an object of header names to string values, e.g. {\"x-ratelimit-remaining-requests\": \"0\"}");
    return;
  }
  for (const auto& [name, value] : v.items()) {
    const bool bad_name = name.empty() || name.find_first_of(":\r\n ") != std::string::npos;
    if (bad_name || !value.is_string() || value.get<std::string>().find_first_of("\r\n") != std::string::npos) {
      r.problem("headers." + name,
                "needs a header name without ':', spaces or line breaks and a one-line string value");
      continue;
    }
    e.headers.emplace_back(name, value.get<std::string>());
  }
}

void read_body_file(EntryReader& r, const std::string& path, const std::string& base_dir, ScriptEntry& e) {
  const std::string full = path.empty() || path[0] == '/' || base_dir.empty() ? path : base_dir + "/" + path;
  auto text = read_file(full);
  if (!text) {
    r.problem("body_file", "cannot read '" + full + "': " + text.error().message);
    return;
  }
  e.body_file = full;
  e.body = std::move(*text);
}

void read_keys(EntryReader& r, const nlohmann::json& v, ScriptEntry& e) {
  const std::vector<nlohmann::json> names =
      v.is_array() ? std::vector<nlohmann::json>(v.begin(), v.end()) : std::vector<nlohmann::json>{v};
  for (const auto& n : names) {
    if (!n.is_string() || n.get<std::string>().empty()) {
      r.problem("key", "must be a non-empty string or a list of them (the request keys this entry answers)");
      return;
    }
    e.keys.push_back(n.get<std::string>());
  }
  if (e.keys.empty()) r.problem("key", "an empty list would answer no request; give at least one key");
  e.times = -1;  // a keyed entry stays eligible unless "times" says otherwise
}

// An alternative reply: the fields of a reply or fault, and its weight; nothing that selects an entry.
void read_choice(const nlohmann::json& obj, const std::string& where, const std::string& base_dir,
                 std::vector<std::string>& problems, ScriptChoice& c);

void read_choices(EntryReader& r, const nlohmann::json& obj, size_t index, const std::string& base_dir,
                  std::vector<std::string>& problems, ScriptEntry& e) {
  const auto& v = obj.at("choices");
  if (!v.is_array() || v.empty()) {
    r.problem("choices",
              "must be a non-empty list of replies, e.g. [{\"answer\": \"a\", \"weight\": 2}, {\"answer\": \"b\"}]");
    return;
  }
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (key != "comment" && !selection_fields().count(key) && known_fields().count(key)) {
      r.problem(key, "an entry with choices takes its reply from the chosen one; move this field into each choice");
    }
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = "entry " + std::to_string(index) + ": choices[" + std::to_string(i) + "]";
    if (!v[i].is_object()) {
      problems.push_back(where + ": must be an object");
      continue;
    }
    ScriptChoice c;
    read_choice(v[i], where, base_dir, problems, c);
    c.reply.index = index;
    e.choices.push_back(std::move(c));
  }
}

void read_fields(EntryReader& r, const nlohmann::json& obj, const std::string& base_dir, ScriptEntry& e) {
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (!known_fields().count(key)) r.problem(key, "unknown field (see docs/mock-server.md for the script format)");
  }
  if (auto s = r.string("answer")) e.answer = *s;
  if (auto s = r.string("reasoning")) e.reasoning = *s;
  if (auto s = r.string("reasoning_form")) {
    if (auto f = reasoning_form_from_string(*s))
      e.reasoning_form = *f;
    else
      r.problem("reasoning_form", "must be reasoning_content, reasoning, think_tags or think_close_only");
  }
  if (auto s = r.string("thinking_signature")) e.thinking_signature = *s;
  if (auto s = r.string("redacted_thinking")) e.redacted_thinking = *s;
  if (r.has("usage")) read_usage(r, obj.at("usage"), e.usage);
  if (auto s = r.string("finish_reason")) {
    if (*s == "stop" || *s == "length" || *s == "content_filter")
      e.finish_reason = *s;
    else
      r.problem("finish_reason", "must be stop, length or content_filter");
  }
  if (auto s = r.string("model")) e.model = *s;
  if (auto n = r.integer("chunk_chars", 1)) e.chunk_chars = static_cast<size_t>(*n);
  if (auto n = r.integer("status", 100)) {
    if (*n > 599)
      r.problem("status", "must be an HTTP status code (100-599)");
    else
      e.status = static_cast<int>(*n);
  }
  if (r.has("retry_after")) {
    const auto& v = obj.at("retry_after");
    if (v.is_number() && v.get<double>() >= 0) {
      e.retry_after = v.is_number_integer() ? std::to_string(v.get<int64_t>()) : v.dump();
    } else if (v.is_string()) {
      e.retry_after = v.get<std::string>();
    } else {
      r.problem("retry_after", "must be seconds (a number) or an HTTP date (a string)");
    }
  }
  if (auto n = r.integer("retry_after_ms", 0)) e.retry_after_ms = *n;
  e.x_should_retry = r.boolean("x_should_retry");
  if (auto s = r.string("error_type")) e.error_type = *s;
  if (auto s = r.string("error_code")) e.error_code = *s;
  if (auto s = r.string("error_message")) e.error_message = *s;
  if (auto d = r.seconds("delay_s")) e.delay_s = *d;
  if (auto d = r.seconds("event_delay_s")) e.event_delay_s = *d;
  if (r.has("stream_cut_after")) read_stream_cut(r, obj.at("stream_cut_after"), e);
  if (auto b = r.boolean("malformed_json")) e.malformed_json = *b;
  if (r.has("error_event_mid_stream")) read_error_event(r, obj.at("error_event_mid_stream"), e);
  if (r.has("sse")) read_sse(r, obj.at("sse"), e);
  e.report_reasoning_tokens = r.boolean("report_reasoning_tokens");
  if (auto s = r.string("error_reason")) e.error_reason = *s;
  if (auto s = r.string("quota_id")) e.quota_id = *s;
  if (r.has("retry_delay")) {
    const auto& v = obj.at("retry_delay");
    if (v.is_number() && v.get<double>() >= 0)
      e.retry_delay = (v.is_number_integer() ? std::to_string(v.get<int64_t>()) : v.dump()) + "s";
    else if (v.is_string())
      e.retry_delay = v.get<std::string>();
    else
      r.problem("retry_delay", "must be seconds (a number) or a protobuf duration string like \"26s\"");
  }
  if (r.has("headers")) read_headers(r, obj.at("headers"), e);
  if (auto s = r.string("body_file")) read_body_file(r, *s, base_dir, e);
  if (e.body && (r.has("answer") || r.has("reasoning") || e.stream_cut || e.malformed_json || e.error_event)) {
    r.problem("body_file",
              "a recorded body is sent as it is: answer, reasoning, stream_cut_after, malformed_json and "
              "error_event_mid_stream do not apply");
  }

  if (e.is_fault()) {
    if (!e.body && (r.has("answer") || r.has("reasoning"))) {
      r.problem("answer",
                "an entry with a non-200 status sends an error body only; remove answer/reasoning or the status");
    }
    if (e.stream_cut || e.malformed_json || e.error_event) {
      r.problem("status", "stream_cut_after, malformed_json and error_event_mid_stream apply to 200 replies only");
    }
  } else if (e.retry_after || e.retry_after_ms || e.x_should_retry) {
    // Real servers send these on successful replies too, so this is allowed; nothing to check.
  }
}

void read_choice(const nlohmann::json& obj, const std::string& where, const std::string& base_dir,
                 std::vector<std::string>& problems, ScriptChoice& c) {
  EntryReader r(obj, where, problems);
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (selection_fields().count(key))
      r.problem(key, "selects an entry; it belongs to the entry, not to one of its choices");
  }
  if (r.has("weight")) {
    const auto& w = obj.at("weight");
    if (!w.is_number() || !(w.get<double>() > 0) || w.get<double>() > 1e12) {
      r.problem("weight", "must be a positive number (a choice is drawn with probability weight / sum of weights)");
    } else {
      c.weight = w.get<double>();
    }
  }
  read_fields(r, obj, base_dir, c.reply);
}

void read_entry(const nlohmann::json& obj, size_t index, const std::string& base_dir,
                std::vector<std::string>& problems, ScriptEntry& e) {
  EntryReader r(obj, "entry " + std::to_string(index), problems);
  e.index = index;
  if (r.has("weight")) r.problem("weight", "belongs to one of an entry's choices");
  if (auto m = r.string("match")) {
    try {
      e.match = std::make_shared<const std::regex>(*m, std::regex::ECMAScript);
      e.match_source = *m;
      e.times = -1;  // a matched entry stays eligible unless "times" says otherwise
    } catch (const std::regex_error& err) {
      r.problem("match", std::string("invalid regular expression: ") + err.what());
    }
  }
  if (r.has("api")) {
    const auto& v = obj.at("api");
    std::vector<nlohmann::json> names =
        v.is_array() ? std::vector<nlohmann::json>(v.begin(), v.end()) : std::vector<nlohmann::json>{v};
    for (const auto& n : names) {
      auto api = n.is_string() ? api_from_string(n.get<std::string>()) : std::nullopt;
      if (!api) {
        r.problem("api", "must be one of openai-chat, openai-responses, anthropic, gemini (or a list of them)");
        break;
      }
      e.apis.push_back(*api);
    }
  }
  if (r.has("key")) read_keys(r, obj.at("key"), e);
  if (r.has("times")) {
    const auto& v = obj.at("times");
    if (v.is_string() && v.get<std::string>() == "unlimited")
      e.times = -1;
    else if (auto n = r.integer_value("times", v, 1))
      e.times = *n;
  }
  if (r.has("choices")) {
    read_choices(r, obj, index, base_dir, problems, e);
    return;
  }
  read_fields(r, obj, base_dir, e);
}

std::optional<KeyPlace> key_place_from_string(const std::string& text) {
  for (KeyPlace p : {KeyPlace::last_user, KeyPlace::last_assistant, KeyPlace::system, KeyPlace::all}) {
    if (to_string(p) == text) return p;
  }
  return std::nullopt;
}

void read_key_rule(const nlohmann::json& v, std::vector<std::string>& problems, Script& script) {
  auto problem = [&](const std::string& field, const std::string& reason) {
    problems.push_back(field + ": " + reason);
  };
  if (!v.is_object() || !v.contains("regex")) {
    problem("key",
            "must be an object {\"regex\": \"// landscape: (\\\\S+)\", \"in\": [\"last_user\", \"last_assistant\"], "
            "\"occurrence\": \"first\"}");
    return;
  }
  KeyRule rule;
  for (const auto& [field, value] : v.items()) {
    if (field == "regex") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        problem("key.regex", "must be a non-empty string");
        continue;
      }
      try {
        rule.regex = std::make_shared<const std::regex>(value.get<std::string>(), std::regex::ECMAScript);
        rule.regex_source = value.get<std::string>();
      } catch (const std::regex_error& err) {
        problem("key.regex", std::string("invalid regular expression: ") + err.what());
      }
    } else if (field == "in") {
      const std::vector<nlohmann::json> names = value.is_array()
                                                    ? std::vector<nlohmann::json>(value.begin(), value.end())
                                                    : std::vector<nlohmann::json>{value};
      rule.places.clear();
      for (const auto& n : names) {
        auto place = n.is_string() ? key_place_from_string(n.get<std::string>()) : std::nullopt;
        if (!place) {
          problem("key.in", "must be last_user, last_assistant, system or all (or a list of them, tried in order)");
          break;
        }
        rule.places.push_back(*place);
      }
      if (rule.places.empty()) problem("key.in", "an empty list finds no key; name at least one place");
    } else if (field == "occurrence") {
      const std::string o = value.is_string() ? value.get<std::string>() : "";
      if (o == "first" || o == "last")
        rule.last_occurrence = o == "last";
      else
        problem("key.occurrence", "must be \"first\" or \"last\"");
    } else if (field != "comment") {
      problem("key." + field, "unknown field (expected regex, in, occurrence, comment)");
    }
  }
  if (rule.regex) script.key = std::move(rule);
}

}  // namespace

Result<Script> parse_script(const nlohmann::json& doc, const std::string& base_dir) {
  Script script;
  std::vector<std::string> problems;
  const nlohmann::json* entries = &doc;
  if (doc.is_object() && doc.contains("entries")) {
    for (const auto& [field, value] : doc.items()) {
      if (field == "key")
        read_key_rule(value, problems, script);
      else if (field != "entries" && field != "comment") {
        problems.push_back(field + ": unknown field of a script object (expected key, entries, comment)");
      }
    }
    entries = &doc.at("entries");
  }
  if (!entries->is_array()) {
    return make_error("mock.script",
                      "a script must be a JSON list of entries, e.g. [{\"answer\": \"hello\"}], or an "
                      "object {\"key\": {…}, \"entries\": [...]}; see docs/mock-server.md");
  }
  for (size_t i = 0; i < entries->size(); ++i) {
    const auto& item = (*entries)[i];
    if (!item.is_object()) {
      problems.push_back("entry " + std::to_string(i) + ": must be an object");
      continue;
    }
    ScriptEntry e;
    read_entry(item, i, base_dir, problems, e);
    if (!e.keys.empty() && !doc.contains("key")) {
      problems.push_back("entry " + std::to_string(i) +
                         ": key: the script has no key rule, so no request has a key; "
                         "write the script as {\"key\": {\"regex\": …}, \"entries\": [...]}");
    }
    script.entries.push_back(std::move(e));
  }
  if (!problems.empty()) {
    std::ostringstream msg;
    msg << "invalid mock-server script (" << problems.size() << " problem" << (problems.size() > 1 ? "s" : "")
        << "; format in docs/mock-server.md):";
    for (const auto& p : problems) msg << "\n  " << p;
    return make_error("mock.script", msg.str());
  }
  return script;
}

Result<Script> load_script(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    return make_error("mock.script", "script '" + path + "' is not valid JSON: " + e.what());
  }
  const auto slash = path.find_last_of('/');
  auto script = parse_script(doc, slash == std::string::npos ? "" : path.substr(0, slash));
  if (!script) return make_error("mock.script", path + ": " + script.error().message);
  return script;
}

const char* default_script_json() {
  return R"json([
  {
    "comment": "Built-in demo script: every request gets this reply.",
    "times": "unlimited",
    "reasoning": "The operation is an elementwise ReLU. One thread per element with a grid-stride loop covers any size; reading and writing each element once is bandwidth-bound, which is optimal here.",
    "answer": "Here is a grid-stride ReLU kernel using the kforge ABI:\n\n```cuda\n#include \"kforge.h\"\n#include <cuda_runtime.h>\n\n__global__ void relu_kernel(const float* x, float* y, long long n) {\n  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n       i += (long long)gridDim.x * blockDim.x) {\n    float v = x[i];\n    y[i] = v > 0.0f ? v : 0.0f;\n  }\n}\n\nextern \"C\" int kf_forward(const kf_tensor* inputs, int32_t num_inputs,\n                          kf_tensor* outputs, int32_t num_outputs, void* stream) {\n  if (num_inputs != 1 || num_outputs != 1) return 1;\n  long long n = 1;\n  for (int d = 0; d < inputs[0].ndim; ++d) n *= inputs[0].shape[d];\n  int threads = 256;\n  int blocks = (int)((n + threads - 1) / threads);\n  if (blocks > 65535) blocks = 65535;\n  relu_kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(\n      (const float*)inputs[0].data, (float*)outputs[0].data, n);\n  return cudaGetLastError() == cudaSuccess ? 0 : 2;\n}\n```\n",
    "usage": {"input": 412, "output": 298, "reasoning": 57, "cached": 128}
  }
])json";
}

Script default_script() {
  auto script = parse_script(nlohmann::json::parse(default_script_json()));
  return std::move(script).value();
}

}  // namespace kf::mock
