#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "core/files.h"
#include "mockserver/script.h"
#include "mockserver/server.h"

namespace kf::cli {
namespace {

struct MockServerArgs {
  std::string script_path;
  std::string host = "127.0.0.1";
  int port = 0;
  std::string log_path;
  std::string port_file;
  int threads = 256;
  uint64_t seed = 0;
  bool check_only = false;
};

int run_mock_server(const MockServerArgs& args) {
  auto script =
      args.script_path.empty() ? Result<mock::Script>(mock::default_script()) : mock::load_script(args.script_path);
  if (!script) {
    std::cerr << "kforge mock-server: " << script.error().message << "\n";
    return kExitUsage;
  }
  const std::string script_name = args.script_path.empty() ? "built-in demo script" : args.script_path;
  if (args.check_only) {
    std::cout << script_name << ": valid, " << script->entries.size() << " entries\n";
    return kExitOk;
  }

  // SIGINT/SIGTERM are taken by one thread with sigwait, so that stopping happens outside a signal
  // handler; the mask is set before any server thread exists so every thread inherits it.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  mock::MockServer server(std::move(*script), {args.host, args.port, args.log_path, args.threads, args.seed});
  if (auto bound = server.bind(); !bound) {
    std::cerr << "kforge mock-server: " << bound.error().message << "\n";
    return kExitUsage;
  }
  if (!args.port_file.empty()) {
    if (auto w = write_file_atomic(args.port_file, std::to_string(server.port()) + "\n"); !w) {
      std::cerr << "kforge mock-server: " << w.error().message << "\n";
      return kExitUsage;
    }
  }
  std::thread signal_waiter([&server, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.stop();
  });
  std::cout << "kforge mock-server listening on http://" << args.host << ":" << server.port() << " (" << script_name
            << ")" << std::endl;
  server.serve();
  pthread_kill(signal_waiter.native_handle(), SIGTERM);  // wakes the waiter if serve() ended on its own
  signal_waiter.join();
  std::cout << "kforge mock-server stopped after " << server.request_count() << " requests" << std::endl;
  return kExitOk;
}

}  // namespace

void add_mockserver_commands(CLI::App& app, Registry& registry) {
  auto args = std::make_shared<MockServerArgs>();
  auto* cmd = app.add_subcommand("mock-server",
                                 "Run the scripted model server (OpenAI, Anthropic, Gemini APIs) for tests and demos");
  cmd->add_option("--script", args->script_path,
                  "Script file (JSON list of entries, or an object with a key rule and entries); default: the built-in "
                  "demo script")
      ->check(CLI::ExistingFile);
  cmd->add_option("--port", args->port, "Port to listen on; 0 picks a free one (printed, and written to --port-file)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", args->host, "Address to listen on")->capture_default_str();
  cmd->add_option("--log", args->log_path, "Append one JSON line per request received to this file");
  cmd->add_option("--port-file", args->port_file, "Write the port number to this file once listening");
  cmd->add_option("--threads", args->threads, "Worker threads (connections served at once)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed,
                  "Seed of the draws among an entry's choices (same seed, same order of requests: same answers)")
      ->capture_default_str();
  cmd->add_flag("--check", args->check_only, "Only validate the script and exit (0 valid, 2 invalid)");
  registry.on_run(cmd, [args] { return run_mock_server(*args); });
}

}  // namespace kf::cli
