#include "providers/http_transport.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

#include <curl/curl.h>

namespace kf::providers {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct TransferState {
  CURL* curl = nullptr;
  const BodySink* sink = nullptr;
  HttpExchange* exchange = nullptr;
  double start = 0;
  double last_activity = 0;
  double idle_limit_s = 0;
  bool idle_from_start = true;
  bool idle_expired = false;
  bool sink_aborted = false;
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* st = static_cast<TransferState*>(user);
  const size_t n = size * count;
  std::string_view line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  st->last_activity = now_s();
  if (line.starts_with("HTTP/")) {
    st->exchange->headers.clear();  // a new response (after 100-continue or a redirect)
    const auto sp = line.find(' ');
    if (sp != std::string_view::npos) {
      int status = 0;
      for (size_t i = sp + 1; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i)
        status = status * 10 + (line[i] - '0');
      st->exchange->status = status;
    }
    return n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  st->exchange->headers[lower(std::string(line.substr(0, colon)))] = std::string(value);
  return n;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* st = static_cast<TransferState*>(user);
  const size_t n = size * count;
  st->last_activity = now_s();
  st->exchange->body_started = true;
  if (!(*st->sink)(st->exchange->status, std::string_view(data, n))) {
    st->sink_aborted = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<TransferState*>(user);
  if (st->idle_limit_s <= 0) return 0;
  if (!st->idle_from_start && !st->exchange->body_started) return 0;
  if (now_s() - st->last_activity > st->idle_limit_s) {
    st->idle_expired = true;
    return 1;
  }
  return 0;
}

TransportFailureKind classify(CURLcode code, bool body_started) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION: return TransportFailureKind::connect;
    case CURLE_OPERATION_TIMEDOUT: return TransportFailureKind::total_timeout;
    default: return body_started ? TransportFailureKind::cut : TransportFailureKind::other;
  }
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

long to_ms(double s) { return s > 0 ? static_cast<long>(s * 1000.0 + 0.5) : 0L; }

}  // namespace

HttpExchange http_post(const HttpRequest& request, const BodySink& sink) {
  init_curl_once();
  HttpExchange exchange;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) {
    exchange.failure = TransportFailure{TransportFailureKind::other, "libcurl could not create a handle"};
    return exchange;
  }
  curl_slist* header_list = nullptr;
  for (const auto& [name, value] : request.headers)
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  header_list = curl_slist_append(header_list, "Expect:");  // no 100-continue round trip
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(header_list, &curl_slist_free_all);

  TransferState st;
  st.curl = curl.get();
  st.sink = &sink;
  st.exchange = &exchange;
  st.start = st.last_activity = now_s();
  st.idle_limit_s = request.timeouts.idle_s;
  st.idle_from_start = request.idle_from_start;

  char error_buffer[CURL_ERROR_SIZE] = {0};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, to_ms(request.timeouts.connect_s));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, to_ms(request.timeouts.total_s));
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &st);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &st);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  // Offer every encoding libcurl can decode, and decode what comes: a proxy that gzips a body anyway is
  // then read as text instead of failing as malformed JSON.
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");

  const CURLcode code = curl_easy_perform(h);
  exchange.seconds = now_s() - st.start;
  if (code == CURLE_OK) return exchange;

  const std::string detail = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
  if (st.sink_aborted) {
    exchange.failure = TransportFailure{TransportFailureKind::aborted, "stopped reading the response"};
  } else if (st.idle_expired) {
    exchange.failure =
        TransportFailure{TransportFailureKind::idle_timeout,
                         "no data for " + seconds_text(request.timeouts.idle_s) + " s (timeouts.idle_s)"};
  } else {
    exchange.failure = TransportFailure{classify(code, exchange.body_started), detail};
  }
  return exchange;
}

}  // namespace kf::providers
