#include "mockserver/request.h"

namespace kf::mock {
namespace {

// Content may be a string or a list of typed parts; only text parts matter to the server.
std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  auto append = [&](const std::string& s) {
    if (!out.empty()) out += "\n";
    out += s;
  };
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_string())
        append(part.get<std::string>());
      else if (part.is_object() && part.contains("text") && part["text"].is_string())
        append(part["text"].get<std::string>());
    }
  } else if (content.is_object() && content.contains("text") && content["text"].is_string()) {
    append(content["text"].get<std::string>());
  }
  return out;
}

std::string string_field(const nlohmann::json& body, const char* key) {
  auto it = body.find(key);
  return it != body.end() && it->is_string() ? it->get<std::string>() : "";
}

bool bool_field(const nlohmann::json& body, const char* key) {
  auto it = body.find(key);
  return it != body.end() && it->is_boolean() && it->get<bool>();
}

Result<std::vector<MockMessage>> role_messages(const nlohmann::json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || !it->is_array()) {
    return make_error("mock.request", std::string("request body has no \"") + key + "\" list");
  }
  std::vector<MockMessage> out;
  for (const auto& m : *it) {
    if (!m.is_object())
      return make_error("mock.request", std::string("an element of \"") + key + "\" is not an object");
    std::string role = string_field(m, "role");
    if (role.empty()) {
      // Responses API input items without a role (e.g. function_call_output) carry no chat text.
      continue;
    }
    if (role == "developer") role = "system";
    out.push_back({role, text_of(m.contains("content") ? m["content"] : nlohmann::json())});
  }
  return out;
}

}  // namespace

std::string MockRequest::last_user_message() const {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->role == "user") return it->content;
  }
  return "";
}

int64_t MockRequest::estimated_input_tokens() const {
  size_t chars = 0;
  for (const auto& m : messages) chars += m.content.size() + 4;
  return static_cast<int64_t>(chars / 4 + 1);
}

Result<MockRequest> parse_request(Api api, const std::string& body_text, const std::string& gemini_model,
                                  bool gemini_stream) {
  MockRequest req;
  req.api = api;
  try {
    req.body = nlohmann::json::parse(body_text);
  } catch (const nlohmann::json::parse_error& e) {
    return make_error("mock.request", std::string("request body is not valid JSON: ") + e.what());
  }
  if (!req.body.is_object()) return make_error("mock.request", "request body must be a JSON object");
  const auto& b = req.body;

  switch (api) {
    case Api::openai_chat: {
      req.model = string_field(b, "model");
      req.stream = bool_field(b, "stream");
      if (b.contains("stream_options") && b["stream_options"].is_object()) {
        req.include_usage = bool_field(b["stream_options"], "include_usage");
      }
      auto msgs = role_messages(b, "messages");
      if (!msgs) return msgs.error();
      req.messages = std::move(*msgs);
      break;
    }
    case Api::openai_responses: {
      req.model = string_field(b, "model");
      req.stream = bool_field(b, "stream");
      if (auto instructions = string_field(b, "instructions"); !instructions.empty()) {
        req.messages.push_back({"system", instructions});
      }
      if (b.contains("input") && b["input"].is_string()) {
        req.messages.push_back({"user", b["input"].get<std::string>()});
      } else {
        auto msgs = role_messages(b, "input");
        if (!msgs) return msgs.error();
        req.messages.insert(req.messages.end(), msgs->begin(), msgs->end());
      }
      break;
    }
    case Api::anthropic: {
      req.model = string_field(b, "model");
      req.stream = bool_field(b, "stream");
      if (b.contains("system")) req.messages.push_back({"system", text_of(b["system"])});
      auto msgs = role_messages(b, "messages");
      if (!msgs) return msgs.error();
      req.messages.insert(req.messages.end(), msgs->begin(), msgs->end());
      break;
    }
    case Api::gemini: {
      req.model = gemini_model;
      req.stream = gemini_stream;
      if (b.contains("systemInstruction") || b.contains("system_instruction")) {
        const auto& si = b.contains("systemInstruction") ? b["systemInstruction"] : b["system_instruction"];
        req.messages.push_back({"system", si.is_object() && si.contains("parts") ? text_of(si["parts"]) : text_of(si)});
      }
      auto it = b.find("contents");
      if (it == b.end() || !it->is_array()) return make_error("mock.request", "request body has no \"contents\" list");
      for (const auto& c : *it) {
        if (!c.is_object()) return make_error("mock.request", "an element of \"contents\" is not an object");
        std::string role = string_field(c, "role");
        if (role == "model") role = "assistant";
        if (role.empty()) role = "user";
        req.messages.push_back({role, c.contains("parts") ? text_of(c["parts"]) : ""});
      }
      break;
    }
  }
  return req;
}

}  // namespace kf::mock
