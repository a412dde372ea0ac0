// `kforge eval` and `kforge signature` (docs/evaluator.md).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/format.h"
#include "evaluator/evaluator.h"

namespace kf::cli {

namespace {

struct EvalArgs {
  std::string problem, candidate, backend = "cuda", precision = "fp32", python, cache_dir, gpu_arch, work_root;
  std::string baseline = "eager", compile_baseline = "auto", compile_mode = "default";
  int trials = 3;
  int64_t seed = -1;  // -1: drawn per evaluation
  bool json = false, allow_vendor = false, no_timing = false, allow_reduced_precision = false;
  double timeout_s = 120;
};

void print_human(const eval::Verdict& v) {
  std::cout << "verdict: " << eval::to_string(v.kind) << "\n";
  for (const auto& r : v.reasons) std::cout << "  [" << r.code << "] " << r.detail << "\n";
  if (v.time_ms) std::cout << "time: " << *v.time_ms << " ms";
  if (v.ref_time_ms) std::cout << "  baseline (" << v.baseline << "): " << *v.ref_time_ms << " ms";
  if (v.speedup) std::cout << "  speedup: " << *v.speedup << "x";
  if (v.time_ms) std::cout << "\n";
  for (const std::string name : {"eager", "compile"}) {
    auto it = v.baselines.find(name);
    if (it == v.baselines.end()) continue;
    const auto& b = it->second;
    std::cout << "  " << name << ": ";
    if (b.time_ms)
      std::cout << *b.time_ms << " ms" << (b.speedup ? ", speedup " + format_significant(*b.speedup, 4) + "x" : "");
    else
      std::cout << "no time (" << b.error.substr(0, b.error.find('\n')) << "; the whole message is in --json)";
    if (b.peak) std::cout << ", " << eval::percent_of_bound(*b.peak);
    if (name != "eager" && b.time_ms)
      std::cout << " (compiled in " << format_significant(b.compile_s, 3) << " s"
                << (b.compile_cached ? ", cached" : "") << ", outside the timings)";
    std::cout << "\n";
  }
  if (v.roofline) {
    const auto& w = v.roofline->work;
    std::cout << "roofline: " << format_significant(w.bytes, 4) << " bytes, " << format_significant(w.matmul_flops(), 4)
              << " matmul FLOPs + " << format_significant(w.other_flops, 4) << " other per call; "
              << eval::describe_peaks(v.roofline->peaks) << "\n";
    if (!v.roofline->peaks.note.empty()) std::cout << "  (" << v.roofline->peaks.note << ")\n";
    if (!v.roofline->error.empty()) std::cout << "  " << v.roofline->error << "\n";
  }
  if (v.peak)
    std::cout << "fraction of peak: " << eval::percent_of_bound(*v.peak) << " ("
              << format_significant(v.peak->achieved_gbps, 4) << " GB/s, "
              << format_significant(v.peak->achieved_tflops, 4) << " TFLOP/s achieved)\n";
  if (!v.flags.empty()) {
    std::cout << "flags:";
    for (const auto& f : v.flags) std::cout << " " << f;
    std::cout << "\n";
  }
  std::cout << "compile: " << v.compile_s << " s, evaluation: " << v.eval_s << " s\n";
  if (v.kind == eval::VerdictKind::compile_error && !v.compiler_output.empty())
    std::cout << "compiler output:\n" << v.compiler_output;
}

}  // namespace

void add_evaluator_commands(CLI::App& app, Registry& registry) {
  auto args = std::make_shared<EvalArgs>();
  auto* ev = app.add_subcommand("eval", "Compile a candidate kernel and judge it against a KernelBench-format problem");
  ev->add_option("--problem", args->problem, "KernelBench-format problem file (.py)")->required();
  ev->add_option("--candidate", args->candidate,
                 "candidate source: .cu (cuda backend) or .cpp (host backend), or a KernelBench solution .py")
      ->required();
  ev->add_option("--backend", args->backend, "cuda or host")->check(CLI::IsMember({"cuda", "host"}));
  ev->add_option("--precision", args->precision, "fp32, fp16 or bf16")->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  ev->add_option("--trials", args->trials, "correctness trials (at least 3)");
  ev->add_flag("--json", args->json, "print the verdict as JSON");
  ev->add_option("--python", args->python,
                 "python3 with torch for the oracle (default $KFORGE_PYTHON, else kforge's venv, else python3)");
  ev->add_flag("--allow-vendor-libs", args->allow_vendor, "allow cuBLAS, cuDNN and other vendor libraries");
  ev->add_flag("--allow-reduced-precision", args->allow_reduced_precision,
               "fp32 problems: accept TF32/fp16/bf16 arithmetic (the precision trial's failure is only flagged)");
  ev->add_option("--cache-dir", args->cache_dir, "compile cache folder (default ~/.cache/kforge)");
  ev->add_option("--gpu-arch", args->gpu_arch, "target architecture, e.g. sm_90a (default: detected)");
  ev->add_option("--work-root", args->work_root, "where private evaluation folders go (default /dev/shm)");
  ev->add_option("--timeout", args->timeout_s, "seconds the candidate may run in all (default 120)");
  ev->add_flag("--no-timing", args->no_timing, "correctness only: skip timing and the baselines");
  ev->add_option("--baseline", args->baseline, "the primary baseline, whose speedup is the verdict's: eager or compile")
      ->check(CLI::IsMember({"eager", "compile"}));
  ev->add_option("--compile-baseline", args->compile_baseline,
                 "also time torch.compile of the reference: auto (on on cuda, off on host), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  ev->add_option("--compile-mode", args->compile_mode,
                 "torch.compile mode of the compile baseline: default or max-autotune")
      ->check(CLI::IsMember({"default", "max-autotune"}));
  ev->add_option("--seed", args->seed,
                 "seed of the first trial, for an exact rerun (default: drawn per evaluation, in checks.seed)")
      ->check(CLI::NonNegativeNumber);
  registry.on_run(ev, [args] {
    eval::EvaluatorOptions o;
    auto b = eval::parse_backend(args->backend);
    if (!b.ok()) {
      std::cerr << "error: " << b.error().message << "\n";
      return kExitUsage;
    }
    o.backend = *b;
    o.precision = args->precision;
    o.trials = args->trials;
    o.python = args->python;
    o.allow_vendor_libs = args->allow_vendor;
    o.allow_reduced_precision = args->allow_reduced_precision;
    o.cache_dir = args->cache_dir;
    o.gpu_arch = args->gpu_arch;
    o.work_root = args->work_root;
    o.runner_timeout_s = args->timeout_s;
    o.time_candidate = !args->no_timing;
    if (args->seed >= 0) o.seed = static_cast<uint64_t>(args->seed);
    o.baseline = args->baseline;
    o.compile_baseline = args->compile_baseline;
    o.compile_mode = args->compile_mode;
    auto e = eval::Evaluator::create(o);
    if (!e.ok()) {
      std::cerr << "error: " << e.error().message << "\n";
      return e.error().code.rfind("usage.", 0) == 0 ? kExitUsage : kExitHarness;
    }
    eval::Verdict v = (*e)->evaluate_file(args->problem, args->candidate);
    if (args->json) {
      std::cout << v.to_json().dump(2) << "\n";
    } else {
      print_human(v);
    }
    return v.exit_code();
  });

  auto sig = std::make_shared<EvalArgs>();
  auto* sg = app.add_subcommand("signature", "Print a problem's kf_forward signature as the commented C declaration");
  sg->add_option("problem", sig->problem, "KernelBench-format problem file (.py)")->required();
  sg->add_option("--precision", sig->precision, "fp32, fp16 or bf16")->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  sg->add_option("--backend", sig->backend, "cuda or host (where the oracle builds the problem)")
      ->check(CLI::IsMember({"cuda", "host"}));
  sg->add_option("--python", sig->python, "python3 with torch for the oracle");
  sg->add_flag("--json", sig->json, "print as JSON");
  registry.on_run(sg, [sig] {
    eval::EvaluatorOptions o;
    o.backend = sig->backend == "host" ? eval::Backend::host : eval::Backend::cuda;
    o.precision = sig->precision;
    o.python = sig->python;
    auto e = eval::Evaluator::create(o);
    if (!e.ok()) {
      std::cerr << "error: " << e.error().message << "\n";
      return kExitHarness;
    }
    auto s = (*e)->signature(sig->problem);
    if (!s.ok()) {
      std::cerr << "error: " << s.error().message << "\n";
      return s.error().code == "oracle.problem" ? kExitUsage : kExitHarness;
    }
    if (sig->json)
      std::cout << s->to_json().dump(2) << "\n";
    else
      std::cout << s->to_c_declaration();
    return kExitOk;
  });
}

}  // namespace kf::cli
