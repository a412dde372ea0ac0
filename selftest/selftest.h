#pragma once
// The adversarial self-test: every case of tests/adversarial/cases.json (honest candidates and known
// attacks) is run through the evaluator and must get its expected verdict. See docs/sandbox.md.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/result.h"

namespace kf::selftest {

struct SelftestOptions {
  std::string backend = "host";   // host | cuda
  std::string suite_dir;          // holds cases.json; empty: <data dir>/tests/adversarial
  std::string python;             // oracle interpreter (evaluator default when empty)
  std::string runner_path;        // kforge-runner (evaluator default when empty)
  std::string cache_dir;          // compile cache (evaluator default when empty)
  std::string work_root;          // evaluation folders (evaluator default when empty)
  std::vector<std::string> only;  // run only cases whose name contains one of these
  std::vector<std::string> skip;  // skip cases whose name contains one of these
  double case_timeout_s = 15;     // the runner's wall limit per case (endless loops, sleep)
  bool progress = true;           // one line per case on stderr while running
};

struct CaseResult {
  std::string name;
  std::string what;
  std::vector<std::string> expected;
  std::string reason_expected;
  std::string got;
  std::string reasons;  // the verdict's reason codes and details, abbreviated
  std::string note;     // why it failed (or the known gap for xfail)
  bool ok = false;
  bool xfail = false;  // a known gap: reported, does not fail the run
  double seconds = 0;
};

struct SelftestReport {
  std::string backend;
  std::vector<CaseResult> cases;
  bool canary_intact = true;
  std::string canary_note;
  int passed() const;
  int failed() const;  // excluding xfail
  int xfailed() const;
  bool all_ok() const { return failed() == 0 && canary_intact; }
  std::string table() const;
  nlohmann::json to_json() const;
};

// Err when the suite cannot be read or the evaluator cannot start (a harness failure).
Result<SelftestReport> run_selftest(const SelftestOptions& options);

// The fixed folder where the self-test plants a secret, a "reference" file and checks that no job
// wrote there; the candidates name it literally.
inline constexpr const char* kCanaryDir = "/tmp/kforge-selftest-canary";
// Because the canary's path is fixed (the attacks name it), self-tests on one machine take turns: each holds
// an exclusive lock on this file from planting the canary to removing it.
inline constexpr const char* kCanaryLock = "/tmp/.kforge-selftest-canary.lock";

}  // namespace kf::selftest
