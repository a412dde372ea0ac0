// Benchmark (not a test): N requests with C in flight through make_provider (openai-chat, streaming)
// against the scripted model server; prints requests/s, latency percentiles and peak RSS.
//
//   bench_provider_throughput [--requests 1000] [--concurrency 200] [--url http://127.0.0.1:PORT/v1]
//
// Without --url the mock server runs in this process (the RSS then covers client and server); with
// --url it measures the client alone against an external `kforge mock-server`.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mockserver/server.h"
#include "providers/provider.h"

namespace {

constexpr const char* kScript = R"([{"times": "unlimited", "reasoning": "Elementwise, memory-bound: one pass.",
  "answer": "```cuda\n__global__ void relu(const float* x, float* y, long n) {\n  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i] > 0 ? x[i] : 0;\n}\n```\n",
  "usage": {"input": 400, "cached": 100, "output": 120, "reasoning": 40}}])";

struct Args {
  int requests = 1000;
  int concurrency = 200;
  std::string url;
};

bool parse_args(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return false;
    if (a == "--requests")
      args.requests = std::atoi(argv[++i]);
    else if (a == "--concurrency")
      args.concurrency = std::atoi(argv[++i]);
    else if (a == "--url")
      args.url = argv[++i];
    else
      return false;
  }
  return args.requests > 0 && args.concurrency > 0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[idx];
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse_args(argc, argv, args)) {
    std::cerr << "usage: bench_provider_throughput [--requests N] [--concurrency C] [--url BASE_URL]\n";
    return 2;
  }
  std::unique_ptr<kf::mock::MockServer> server;
  std::string base_url = args.url;
  if (base_url.empty()) {
    auto script = kf::mock::parse_script(nlohmann::json::parse(kScript));
    server = std::make_unique<kf::mock::MockServer>(std::move(*script),
                                                    kf::mock::ServerOptions{"127.0.0.1", 0, "", args.concurrency + 56});
    if (auto started = server->start_in_background(); !started) {
      std::cerr << started.error().message << "\n";
      return 3;
    }
    base_url = "http://127.0.0.1:" + std::to_string(server->port()) + "/v1";
  }

  kf::providers::ModelConfig config;
  config.name = "bench";
  config.provider = kf::providers::ProviderKind::openai_chat;
  config.base_url = base_url;
  config.model = "bench-model";
  config.generation.stream = true;
  config.generation.max_output_tokens = 1024;
  config.rate_limits.max_concurrent = args.concurrency;
  config.retry.max_attempts = 1;
  config.timeouts = {10, 60, 120};
  config.prices = {1.0, 4.0, 4.0, 0.25};
  auto provider = kf::providers::make_provider(config);
  if (!provider) {
    std::cerr << provider.error().message << "\n";
    return 3;
  }

  std::atomic<int> next{0};
  std::atomic<int> ok{0};
  std::mutex mu;
  std::vector<double> latencies;
  std::vector<std::string> first_errors;
  const std::vector<kf::providers::ChatMessage> messages = {{"system", "You write CUDA kernels."},
                                                            {"user", "Write a ReLU kernel."}};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int w = 0; w < args.concurrency; ++w) {
    workers.emplace_back([&] {
      std::vector<double> mine;
      while (next.fetch_add(1) < args.requests) {
        auto s = std::chrono::steady_clock::now();
        auto result = (*provider)->complete(messages);
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
        if (std::holds_alternative<kf::providers::Reply>(result)) {
          ++ok;
        } else {
          std::lock_guard lock(mu);
          if (first_errors.size() < 3) first_errors.push_back(std::get<kf::providers::ProviderError>(result).message);
        }
      }
      std::lock_guard lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : workers) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("requests: %d, in flight: %d, succeeded: %d, failed: %d\n", args.requests, args.concurrency, ok.load(),
              args.requests - ok.load());
  std::printf("wall: %.3f s, throughput: %.1f requests/s\n", wall, args.requests / wall);
  std::printf("latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", 1000 * percentile(latencies, 0.5),
              1000 * percentile(latencies, 0.99), 1000 * percentile(latencies, 1.0));
  std::printf("peak RSS: %.1f MiB (%s)\n", static_cast<double>(usage.ru_maxrss) / 1024.0,
              server ? "client and in-process mock server" : "client only");
  for (const auto& e : first_errors) std::printf("error: %s\n", e.c_str());
  if (server) server->stop();
  return ok.load() == args.requests ? 0 : 1;
}
