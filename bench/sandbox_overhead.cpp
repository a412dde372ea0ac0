// Spawn-to-first-instruction overhead of kf::sandbox::run, with and without namespaces.
// Usage: bench_sandbox_overhead [launches]   (run as root for namespaces and cgroups)
// The launched program is this binary with --stamp: it prints CLOCK_MONOTONIC on entry to main.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/launcher.h"

namespace {

double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

struct Stats {
  double median, p90, min;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)], v.front()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--stamp") {
    std::printf("%.0f\n", now_ns());
    return 0;
  }
  const int launches = argc > 1 ? std::max(3, std::atoi(argv[1])) : 30;
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  char tmpl[] = "/tmp/kf-bench-sandbox-XXXXXX";
  if (!::mkdtemp(tmpl)) return 3;
  std::printf("%-22s %10s %10s %10s   %10s %10s\n", "mode", "start p50", "start p90", "start min", "run p50",
              "run p90");
  for (bool namespaces : {false, true}) {
    std::vector<double> start_ms, total_ms;
    std::vector<std::string> missing;
    for (int i = 0; i < launches; ++i) {
      kf::sandbox::Spec spec;
      spec.argv = {self, "--stamp"};
      spec.env = {{"PATH", "/usr/bin:/bin"}};
      spec.workdir = tmpl;
      spec.readonly_paths = {self};
      spec.namespaces = namespaces;
      const double t0 = now_ns();
      auto r = kf::sandbox::run(spec);
      const double t1 = now_ns();
      if (!r.ok() || r->status != kf::sandbox::Outcome::Status::exited) {
        std::fprintf(stderr, "launch failed: %s\n", r.ok() ? r->launch_error.c_str() : r.error().message.c_str());
        return 1;
      }
      start_ms.push_back((std::atof(r->stdout_text.c_str()) - t0) / 1e6);
      total_ms.push_back((t1 - t0) / 1e6);
      missing = r->missing_protections;
    }
    const Stats s = stats(start_ms), t = stats(total_ms);
    std::printf("%-22s %8.2f ms %8.2f ms %8.2f ms   %8.2f ms %8.2f ms\n",
                namespaces ? "namespaces + cgroup" : "no namespaces + cgroup", s.median, s.p90, s.min, t.median, t.p90);
    if (namespaces)
      for (const auto& m : missing) std::printf("  missing: %s\n", m.c_str());
  }
  std::filesystem::remove_all(tmpl);
  return 0;
}
