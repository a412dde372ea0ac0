#pragma once
// A request as the scripted server understands it, whatever API it arrived through.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "mockserver/script.h"

namespace kf::mock {

struct MockMessage {
  std::string role;     // "system" | "user" | "assistant" (Gemini's "model" becomes "assistant")
  std::string content;  // text parts joined with "\n"
};

struct MockRequest {
  Api api = Api::openai_chat;
  std::string model;
  bool stream = false;
  bool include_usage = false;  // Chat Completions: stream_options.include_usage
  bool gemini_sse = false;     // Gemini streamGenerateContent?alt=sse (else a streamed JSON array)
  std::vector<MockMessage> messages;
  nlohmann::json body;

  // Text of the last message whose role is "user" ("" when there is none).
  std::string last_user_message() const;
  // Rough prompt size in tokens (about 4 characters per token), for unscripted usage.
  int64_t estimated_input_tokens() const;
};

// Reads the API-specific body into a MockRequest. `gemini_model` and `gemini_stream` come from the URL
// for Gemini. Fails with a message naming what is wrong with the body.
Result<MockRequest> parse_request(Api api, const std::string& body, const std::string& gemini_model = "",
                                  bool gemini_stream = false);

}  // namespace kf::mock
