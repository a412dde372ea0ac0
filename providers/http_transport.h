#pragma once
// The one HTTP transport every API module shares: a libcurl easy handle per call on the calling
// thread, with connect / idle / total timeouts, a streaming body callback and captured headers.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "providers/model_config.h"
#include "providers/retry.h"

namespace kf::providers {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // always POSTed
  Timeouts timeouts;
  // Streaming responses count silence from the moment the request is sent; a non-streaming
  // response may legitimately stay silent while the model works, so its idle clock starts at the
  // first byte.
  bool idle_from_start = true;
};

enum class TransportFailureKind {
  connect,        // refused, DNS, TLS, connect timeout
  idle_timeout,   // no byte for timeouts.idle_s
  total_timeout,  // timeouts.total_s elapsed
  cut,            // the connection failed after the response had started
  aborted,        // the body callback asked to stop
  other,
};

struct TransportFailure {
  TransportFailureKind kind;
  std::string message;  // libcurl's description, key-free (keys only travel in headers)
};

struct HttpExchange {
  int status = 0;     // 0 when no response line arrived
  HeaderMap headers;  // lower-case names; the last response's (after 1xx / redirects)
  std::optional<TransportFailure> failure;
  bool body_started = false;
  double seconds = 0;
};

// Receives the body as it arrives, with the response status. Returning false aborts the transfer.
using BodySink = std::function<bool(int status, std::string_view chunk)>;

HttpExchange http_post(const HttpRequest& request, const BodySink& on_body);

}  // namespace kf::providers
