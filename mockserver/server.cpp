#include "mockserver/server.h"

#include <sys/socket.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/time.h"
#include "mockserver/request.h"
#include "mockserver/selection.h"
#include "mockserver/wire.h"

namespace kf::mock {
namespace {

// The Debian build of cpp-httplib listens with a backlog of 5; hundreds of clients connecting at once
// would see dropped SYNs and one-second reconnect stalls, so the backlog is raised after binding.
constexpr int kListenBacklog = 1024;

const std::set<std::string>& auth_headers() {
  static const std::set<std::string> names = {"authorization", "x-api-key",           "x-goog-api-key",
                                              "api-key",       "proxy-authorization", "cookie"};
  return names;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct Timestamp {
  std::string iso;  // 2026-12-02T13:45:01.123Z
  int64_t epoch_ms;
};

Timestamp now_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return {utc_timestamp(UtcFormat::iso_ms, now), ms};
}

int64_t estimate_tokens(const std::string& text) {
  return text.empty() ? 0 : static_cast<int64_t>((text.size() + 3) / 4);
}

ResolvedReply resolve(const ScriptEntry& e, const MockRequest& req, int64_t seq) {
  ResolvedReply r;
  r.id = "mock" + std::to_string(seq);
  r.model = !e.model.empty() ? e.model : !req.model.empty() ? req.model : "mock-model";
  r.answer = e.answer;
  r.reasoning = e.reasoning;
  r.reasoning_form = e.reasoning_form;
  r.thinking_signature = e.thinking_signature;
  r.redacted_thinking = e.redacted_thinking;
  r.finish_reason = e.finish_reason;
  r.chunk_chars = e.chunk_chars;
  r.created = static_cast<int64_t>(std::time(nullptr));
  r.input_tokens = e.usage.input.value_or(req.estimated_input_tokens());
  r.cached_tokens = std::min(e.usage.cached.value_or(0), r.input_tokens);
  r.output_tokens = e.usage.output.value_or(estimate_tokens(e.answer));
  r.reasoning_tokens = e.usage.reasoning.value_or(estimate_tokens(e.reasoning));
  r.report_reasoning_tokens = e.report_reasoning_tokens.value_or(req.api != Api::anthropic);
  return r;
}

// Cuts a sequence of byte chunks after `limit` bytes in total.
std::vector<std::string> cut_bytes(std::vector<std::string> chunks, int64_t limit) {
  std::vector<std::string> out;
  int64_t left = limit;
  for (auto& c : chunks) {
    if (left <= 0) break;
    if (static_cast<int64_t>(c.size()) > left) c.resize(static_cast<size_t>(left));
    left -= static_cast<int64_t>(c.size());
    out.push_back(std::move(c));
  }
  return out;
}

std::string json_error(const std::string& type, const std::string& message) {
  return nlohmann::json{{"error", {{"type", type}, {"code", type}, {"message", message}}}}.dump();
}

}  // namespace

// The entry that answers a request, and the reply it gives (the entry itself, or its drawn choice).
struct Pick {
  const ScriptEntry* entry = nullptr;
  const ScriptEntry* reply = nullptr;
  std::optional<size_t> choice;
};

struct MockServer::Impl {
  Script script;
  ServerOptions options;
  httplib::Server http;
  std::vector<int64_t> remaining;
  std::map<std::pair<size_t, std::string>, int64_t> draws;  // choices drawn so far per (entry, request key)
  std::mutex match_mutex;
  std::mutex log_mutex;
  std::ofstream log;
  std::atomic<int64_t> seq{0};
  std::atomic<int> listen_fd{-1};
  int port = -1;
  std::thread background;
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;

  // Waits `seconds` unless the server is stopping; false when interrupted.
  bool pause(double seconds) {
    if (seconds <= 0) return true;
    std::unique_lock lock(stop_mutex);
    return !stop_cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stopping; });
  }

  Pick pick(const MockRequest& req, const std::optional<std::string>& key) {
    const std::string last = req.last_user_message();
    std::lock_guard lock(match_mutex);
    // Keyed entries take precedence, then entries with a regex that matches; entries with neither form a queue.
    enum class Tier { keyed, matched, plain };
    auto tier_of = [](const ScriptEntry& e) {
      return !e.keys.empty() ? Tier::keyed : e.match ? Tier::matched : Tier::plain;
    };
    for (Tier tier : {Tier::keyed, Tier::matched, Tier::plain}) {
      for (size_t i = 0; i < script.entries.size(); ++i) {
        const ScriptEntry& e = script.entries[i];
        if (remaining[i] == 0 || tier_of(e) != tier) continue;
        if (!e.apis.empty() && std::find(e.apis.begin(), e.apis.end(), req.api) == e.apis.end()) continue;
        if (!e.keys.empty() && (!key || std::find(e.keys.begin(), e.keys.end(), *key) == e.keys.end())) continue;
        if (e.match && !std::regex_search(last, *e.match)) continue;
        if (remaining[i] > 0) --remaining[i];
        if (e.choices.empty()) return {&e, &e, std::nullopt};
        const std::string draw_key = key.value_or("");
        const size_t c = draw_choice(e.choices, options.seed, i, draw_key, draws[{i, draw_key}]++);
        return {&e, &e.choices[c].reply, c};
      }
    }
    return {};
  }

  void write_log(const nlohmann::json& record) {
    if (!log.is_open()) return;
    std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::lock_guard lock(log_mutex);
    log << line << '\n';
    log.flush();
  }

  nlohmann::json log_record(int64_t n, const httplib::Request& http_req, Api api, const MockRequest* req) {
    Timestamp ts = now_timestamp();
    nlohmann::json headers = nlohmann::json::object();
    bool auth_present = false;
    for (const auto& [name, value] : http_req.headers) {
      std::string key = lower(name);
      if (auth_headers().count(key)) {
        auth_present = true;
        headers[key] = "[present]";  // never the value: logs are read by tests and people
      } else if (key != "remote_addr" && key != "remote_port" && key != "local_addr" && key != "local_port") {
        headers[key] = value;
      }
    }
    nlohmann::json query = nlohmann::json::object();
    for (const auto& [name, value] : http_req.params) {
      if (name == "key") {
        auth_present = true;
        query[name] = "[present]";
      } else {
        query[name] = value;
      }
    }
    nlohmann::json record = {{"seq", n},
                             {"time", ts.iso},
                             {"t_ms", ts.epoch_ms},
                             {"api", to_string(api)},
                             {"method", http_req.method},
                             {"path", http_req.path},
                             {"query", query},
                             {"headers", headers},
                             {"auth_present", auth_present}};
    if (req) {
      nlohmann::json messages = nlohmann::json::array();
      for (const auto& m : req->messages) messages.push_back({{"role", m.role}, {"content", m.content}});
      record["model"] = req->model;
      record["stream"] = req->stream;
      record["messages"] = messages;
      record["last_user_message"] = req->last_user_message();
      record["body"] = req->body;
    }
    return record;
  }

  void apply_headers(const ScriptEntry& e, httplib::Response& res) {
    if (e.retry_after) res.set_header("retry-after", *e.retry_after);
    if (e.retry_after_ms) res.set_header("retry-after-ms", std::to_string(*e.retry_after_ms));
    if (e.x_should_retry) res.set_header("x-should-retry", *e.x_should_retry ? "true" : "false");
    for (const auto& [name, value] : e.headers) res.set_header(name, value);
  }

  void handle(Api api, const httplib::Request& http_req, httplib::Response& res, const std::string& gemini_model,
              bool gemini_stream) {
    const int64_t n = ++seq;
    res.set_header("x-request-id", "mock-req-" + std::to_string(n));
    auto parsed = parse_request(api, http_req.body, gemini_model, gemini_stream);
    if (!parsed) {
      auto record = log_record(n, http_req, api, nullptr);
      record["outcome"] = "bad_request";
      record["status"] = 400;
      record["error"] = parsed.error().message;
      write_log(record);
      res.status = 400;
      res.set_content(
          render_error_body(api, {.status = 400, .message = "kforge mock-server: " + parsed.error().message}),
          "application/json");
      return;
    }
    MockRequest& req = *parsed;
    if (api == Api::gemini) req.gemini_sse = http_req.get_param_value("alt") == "sse";
    const std::optional<std::string> key = script.key ? find_key(*script.key, req) : std::nullopt;
    const Pick picked = pick(req, key);
    const ScriptEntry* entry = picked.reply;

    auto record = log_record(n, http_req, api, &req);
    record["key"] = key ? nlohmann::json(*key) : nlohmann::json(nullptr);
    record["entry"] = entry ? nlohmann::json(entry->index) : nlohmann::json(nullptr);
    record["choice"] = picked.choice ? nlohmann::json(*picked.choice) : nlohmann::json(nullptr);
    record["outcome"] = !entry ? "exhausted" : entry->is_fault() ? "fault" : "reply";
    record["status"] = !entry ? 500 : entry->status;
    write_log(record);

    if (!entry) {
      std::string message = "kforge mock-server: the script is exhausted: request #" + std::to_string(n) + " (" +
                            to_string(api) + ", model '" + req.model +
                            "') matched no remaining entry. Entries without \"match\" are used once each "
                            "(or \"times\" times); add entries or set \"times\": \"unlimited\".";
      std::cerr << message << std::endl;
      res.status = 500;
      res.set_content(render_error_body(api, {.status = 500,
                                              .type = api == Api::gemini ? "INTERNAL" : "mock_script_exhausted",
                                              .message = message}),
                      "application/json");
      return;
    }
    const ScriptEntry& e = *entry;
    if (!pause(e.delay_s)) {
      res.status = 503;
      return;
    }
    apply_headers(e, res);
    if (e.body) {
      // A recorded body, byte for byte: what a real server sent, not what the renderers would.
      const bool sse = e.body_file.size() >= 4 && e.body_file.compare(e.body_file.size() - 4, 4, ".sse") == 0;
      res.status = e.status;
      res.set_content(*e.body, sse ? "text/event-stream" : "application/json");
      return;
    }
    if (e.is_fault()) {
      res.status = e.status;
      res.set_content(render_error_body(api, {e.status, e.error_type, e.error_code, e.error_message, e.error_reason,
                                              e.quota_id, e.retry_delay}),
                      "application/json");
      return;
    }
    ResolvedReply reply = resolve(e, req, n);
    ErrorSpec mid_error{.status = api == Api::gemini      ? 503
                                  : api == Api::anthropic ? 529
                                                          : 500,
                        .type = e.error_event ? e.error_event->type : "",
                        .message = e.error_event ? e.error_event->message : ""};
    const bool sse = req.stream && (api != Api::gemini || req.gemini_sse);
    if (!sse) {
      std::string body = render_body(api, reply, api == Api::gemini && req.stream);
      if (e.error_event) body = render_error_body(api, mid_error);
      if (e.malformed_json) body.resize(body.size() / 2);
      if (e.stream_cut) {
        size_t keep =
            e.stream_cut->unit == StreamCut::Unit::bytes ? static_cast<size_t>(e.stream_cut->count) : body.size() / 2;
        keep = std::min(keep, body.size());
        if (e.stream_cut->abort_connection) {
          send_aborted_body(res, body, keep);
          return;
        }
        body.resize(keep);
      }
      res.set_content(body, "application/json");
      return;
    }

    std::vector<SseEvent> events = render_events(api, reply, req.include_usage);
    if (e.malformed_json && !events.empty()) {
      size_t victim = events.size() > 2 ? 1 : 0;
      events[victim].data.resize(events[victim].data.size() / 2);
    }
    if (e.error_event) {
      auto keep = std::min(events.size(), static_cast<size_t>(e.error_event->after_events));
      events.resize(keep);
      events.push_back(render_error_event(api, mid_error, static_cast<int64_t>(keep)));
    }
    bool abort_connection = false;
    if (e.stream_cut && e.stream_cut->unit == StreamCut::Unit::events) {
      events.resize(std::min(events.size(), static_cast<size_t>(e.stream_cut->count)));
    }
    std::vector<std::string> chunks;
    for (const auto& ev : events) chunks.push_back(serialize(ev, e.sse));
    if (e.stream_cut) {
      if (e.stream_cut->unit == StreamCut::Unit::bytes) chunks = cut_bytes(std::move(chunks), e.stream_cut->count);
      abort_connection = e.stream_cut->abort_connection;
    }
    send_stream(res, std::move(chunks), e.event_delay_s, abort_connection);
  }

  void send_stream(httplib::Response& res, std::vector<std::string> chunks, double event_delay_s,
                   bool abort_connection) {
    struct State {
      std::vector<std::string> chunks;
      size_t next = 0;
    };
    auto state = std::make_shared<State>();
    state->chunks = std::move(chunks);
    res.set_header("cache-control", "no-cache");
    res.set_chunked_content_provider("text/event-stream",
                                     [this, state, event_delay_s, abort_connection](size_t, httplib::DataSink& sink) {
                                       if (state->next < state->chunks.size()) {
                                         if (state->next > 0 && !pause(event_delay_s)) return false;
                                         const std::string& c = state->chunks[state->next++];
                                         return sink.write(c.data(), c.size());
                                       }
                                       if (abort_connection)
                                         return false;  // httplib closes the socket without the final chunk
                                       sink.done();
                                       return true;
                                     });
  }

  void send_aborted_body(httplib::Response& res, std::string body, size_t keep) {
    const size_t full = body.size();
    auto shared = std::make_shared<std::string>(std::move(body));
    res.set_content_provider(full, "application/json", [shared, keep](size_t offset, size_t, httplib::DataSink& sink) {
      if (offset < keep) return sink.write(shared->data() + offset, keep - offset);
      return false;  // fewer bytes than Content-Length, then the connection closes
    });
  }

  void routes() {
    using httplib::Request;
    using httplib::Response;
    auto route = [this](const std::string& pattern, Api api) {
      http.Post(pattern, [this, api](const Request& q, Response& s) { handle(api, q, s, "", false); });
    };
    route("/v1/chat/completions", Api::openai_chat);
    route("/chat/completions", Api::openai_chat);
    route("/v1/responses", Api::openai_responses);
    route("/responses", Api::openai_responses);
    route("/v1/messages", Api::anthropic);
    route("/messages", Api::anthropic);
    http.Post(R"(/(?:v1beta|v1)/models/([^/:]+):(generateContent|streamGenerateContent))",
              [this](const Request& q, Response& s) {
                handle(Api::gemini, q, s, q.matches[1], q.matches[2] == "streamGenerateContent");
              });
    http.Get("/health", [](const Request&, Response& s) { s.set_content("{\"status\":\"ok\"}", "application/json"); });
    http.set_error_handler(httplib::Server::HandlerWithResponse([](const Request& q, Response& s) {
      if (!s.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
      s.set_content(json_error(s.status == 404 ? "not_found" : "mock_error",
                               "kforge mock-server: no handler for " + q.method + " " + q.path + " (HTTP " +
                                   std::to_string(s.status) +
                                   "). It serves POST /v1/chat/completions, /v1/responses, /v1/messages, "
                                   "/v1beta/models/{model}:generateContent and :streamGenerateContent, GET /health."),
                    "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }));
    http.set_exception_handler([](const Request&, Response& s, std::exception_ptr ep) {
      std::string what = "unknown exception";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& ex) {
        what = ex.what();
      } catch (...) {
      }
      s.status = 500;
      s.set_content(json_error("mock_internal_error", "kforge mock-server: internal error: " + what),
                    "application/json");
    });
  }
};

MockServer::MockServer(Script script, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->script = std::move(script);
  impl_->options = std::move(options);
  for (const auto& e : impl_->script.entries) impl_->remaining.push_back(e.times);
  const size_t threads = static_cast<size_t>(std::max(1, impl_->options.threads));
  impl_->http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl_->http.set_keep_alive_max_count(1000);
  impl_->http.set_keep_alive_timeout(10);
  Impl* impl = impl_.get();
  impl_->http.set_socket_options([impl](socket_t sock) {
    httplib::default_socket_options(sock);
    impl->listen_fd = sock;
  });
  impl_->routes();
}

MockServer::~MockServer() {
  stop();
  if (impl_->background.joinable()) impl_->background.join();
}

Status MockServer::bind() {
  if (!impl_->options.log_path.empty()) {
    impl_->log.open(impl_->options.log_path, std::ios::app);
    if (!impl_->log) {
      return make_error("mock.log", "cannot open request log '" + impl_->options.log_path +
                                        "' for appending: check that its folder exists and is writable");
    }
  }
  const auto& o = impl_->options;
  if (o.port < 0 || o.port > 65535) return make_error("mock.port", "port must be 0..65535 (0 picks a free port)");
  if (o.port == 0) {
    impl_->port = impl_->http.bind_to_any_port(o.host);
  } else {
    impl_->port = impl_->http.bind_to_port(o.host, o.port) ? o.port : -1;
  }
  if (impl_->port <= 0) {
    return make_error("mock.bind",
                      "cannot listen on " + o.host + ":" + std::to_string(o.port) +
                          ": the port is in use or the address is not local; use --port 0 for a free port");
  }
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, kListenBacklog);
  return ok_status();
}

int MockServer::port() const { return impl_->port; }

void MockServer::serve() { impl_->http.listen_after_bind(); }

Status MockServer::start_in_background() {
  if (auto s = bind(); !s) return s;
  impl_->background = std::thread([this] { serve(); });
  for (int i = 0; i < 500 && !impl_->http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!impl_->http.is_running()) return make_error("mock.start", "the mock server did not start serving within 5 s");
  return ok_status();
}

void MockServer::stop() {
  {
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  impl_->http.stop();
}

int64_t MockServer::request_count() const { return impl_->seq.load(); }

}  // namespace kf::mock
