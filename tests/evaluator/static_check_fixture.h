#pragma once
// The fixture of the static-check tests: python fixtures through the real sandboxed job
// (evaluator/kernelbench/static_check.py), with helpers to read the findings and the verdicts derived from them.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "evaluator/kernelbench/static_check.h"
#include "tests/support/command.h"

namespace kf::eval::kernelbench::testing {

// A solution's head: one host extension with one kernel, `ext.relu_k`.
inline const char* const kHeader = R"(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="ext", cpp_sources="torch::Tensor relu_k(torch::Tensor x);", functions=["relu_k"])
)";

class StaticCheck : public ::testing::Test {
 protected:
  // The check needs no torch: any python3, described by hand (no probe: that imports torch), with no
  // packages (so Triton counts as missing).
  static void SetUpTestSuite() {
    const auto ran = kf::testing::run_shell("python3 -I -S -c 'import sys; print(sys.executable); print(sys.prefix)'");
    const auto nl = ran.out.find('\n');
    if (ran.exit_code != 0 || nl == std::string::npos) return;
    env_ = new PythonEnv();
    env_->executable = ran.out.substr(0, nl);
    std::string prefix = ran.out.substr(nl + 1);
    prefix.erase(prefix.find_last_not_of('\n') + 1);
    if (prefix != "/usr") env_->readonly_paths = {prefix};
  }
  static void TearDownTestSuite() {
    delete env_;
    env_ = nullptr;
  }
  void SetUp() override {
    if (!env_) GTEST_SKIP() << "no python3";
  }
  static nlohmann::json check(const std::string& mode, const std::string& text) {
    auto f = run_static_check(*env_, mode, text);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    return f.ok() ? *f : nlohmann::json();
  }
  static nlohmann::json solution(const std::string& body) { return check("solution", std::string(kHeader) + body); }
  // The work of a problem whose file is `text`, as the evaluator reads it.
  static ReferenceWork reference(const std::string& text) {
    return ReferenceWork::from_findings(check("problem", text));
  }
  // A reference doing each operator once.
  static ReferenceWork work(const std::vector<std::string>& ops) {
    ReferenceWork w;
    w.ops = ops;
    for (const auto& op : ops) w.units[op] = 1;
    return w;
  }
  static std::vector<std::string> ops(const nlohmann::json& f, bool include_conditional = true) {
    std::vector<std::string> out;
    for (const auto& o : f["torch_ops"])
      if (include_conditional || !o["conditional"].get<bool>()) out.push_back(o["op"]);
    return out;
  }
  static std::vector<std::string> codes(const std::vector<Reason>& rs) {
    std::vector<std::string> out;
    for (const auto& r : rs) out.push_back(r.code);
    return out;
  }
  static inline PythonEnv* env_ = nullptr;
};

}  // namespace kf::eval::kernelbench::testing
