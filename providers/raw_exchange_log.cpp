#include "providers/raw_exchange_log.h"

#include <unistd.h>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>

#include "core/files.h"
#include "core/log.h"
#include "core/secrets.h"
#include "core/time.h"

namespace kf::providers {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string safe_file_part(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_');
  return out.empty() ? "call" : out;
}

// The body as JSON when it is JSON (easier to read), else as a redacted string.
nlohmann::json body_value(const std::string& body) {
  const std::string redacted = secrets::redact(body);
  auto j = nlohmann::json::parse(redacted, nullptr, false);
  return j.is_discarded() ? nlohmann::json(redacted) : j;
}

}  // namespace

bool is_credential_header(const std::string& name) {
  const std::string n = lower(name);
  return n == "authorization" || n == "x-api-key" || n == "x-goog-api-key" || n == "api-key" ||
         n == "proxy-authorization" || n == "cookie" || n == "set-cookie";
}

RawExchangeLog::RawExchangeLog(std::string dir, std::string config_name, const HttpRequest& request)
    : dir_(std::move(dir)), config_name_(std::move(config_name)) {
  nlohmann::json headers = nlohmann::json::object();
  for (const auto& [name, value] : request.headers)
    headers[name] = is_credential_header(name) ? "[REDACTED]" : secrets::redact(value);
  doc_ = {
      {"config", config_name_},
      {"started_utc", utc_timestamp(UtcFormat::compact_ms)},
      {"request", {{"url", secrets::redact(request.url)}, {"headers", headers}, {"body", body_value(request.body)}}},
      {"attempts", nlohmann::json::array()}};
}

void RawExchangeLog::add_attempt(const HttpExchange& exchange, const std::string& body, const std::string& outcome) {
  nlohmann::json headers = nlohmann::json::object();
  for (const auto& [name, value] : exchange.headers)
    headers[name] = is_credential_header(name) ? "[REDACTED]" : secrets::redact(value);
  nlohmann::json attempt = {{"status", exchange.status},
                            {"seconds", exchange.seconds},
                            {"headers", headers},
                            {"outcome", secrets::redact(outcome)}};
  // Streams are kept verbatim (SSE text), other bodies as JSON when they parse.
  const auto ct = exchange.headers.find("content-type");
  const bool sse = ct != exchange.headers.end() && ct->second.find("event-stream") != std::string::npos;
  attempt["body"] = sse ? nlohmann::json(secrets::redact(body)) : body_value(body);
  if (exchange.failure) attempt["transport_error"] = secrets::redact(exchange.failure->message);
  doc_["attempts"].push_back(std::move(attempt));
}

void RawExchangeLog::write(const std::string& outcome) {
  static std::atomic<uint64_t> sequence{0};
  doc_["outcome"] = secrets::redact(outcome);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::string path = dir_ + "/" + utc_timestamp(UtcFormat::compact_ms) + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(sequence.fetch_add(1)) + "-" + safe_file_part(config_name_) + ".json";
  // dump() with replacement: provider bodies are not guaranteed to be valid UTF-8.
  const std::string text = secrets::redact(doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  if (auto st = write_file_atomic(path, text + "\n"); !st) {
    log::warn("could not write the raw exchange log " + path + ": " + st.error().message);
  }
}

}  // namespace kf::providers
