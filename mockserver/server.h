#pragma once
// The scripted model server: answers model API requests from a script and logs each request.
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "mockserver/script.h"

namespace kf::mock {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;          // 0 = pick a free port
  std::string log_path;  // "" = no request log; else one JSON line per request (docs/mock-server.md)
  int threads = 256;     // worker threads = connections served at once (keep-alive holds one each)
  uint64_t seed = 0;     // draws among an entry's choices (docs/mock-server.md, "Seeded choices")
};

class MockServer {
 public:
  MockServer(Script script, ServerOptions options);
  ~MockServer();
  MockServer(const MockServer&) = delete;
  MockServer& operator=(const MockServer&) = delete;

  // Binds the listening socket; port() is valid afterwards.
  Status bind();
  int port() const;
  // Serves until stop(); call after bind().
  void serve();
  // bind() + serve() on a background thread (tests, the benchmark); returns once requests are accepted.
  Status start_in_background();
  // Stops serving and interrupts scripted delays; safe to call from any thread, more than once.
  void stop();
  // Requests received so far.
  int64_t request_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kf::mock
