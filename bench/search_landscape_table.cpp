// Benchmark report (not a test): reads the run folders of bench/search_landscape/run.sh and prints, per
// configuration (one per strategy), how soon each search found the landscape's best kernel and the best
// speedup it had reached at fixed budgets of evaluations. A kernel is known by its landscape marker
// (`// landscape: <problem>/<variant>`, first line of its source), so "found the best kernel" does not depend
// on timings measured on a shared machine; speedups are the verdicts' measured ones.
//
//   bench_search_landscape_table [--best L3] [--budgets 5,10,20,40] RUN_DIR...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/files.h"
#include "corpus/reader.h"

namespace {

struct Args {
  std::string best = "L3";
  std::vector<int> budgets = {5, 10, 20, 40};
  std::vector<std::string> runs;
};

std::optional<Args> parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--best" || a == "--budgets") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--best") {
        args.best = v;
        continue;
      }
      args.budgets.clear();
      std::stringstream list(v);
      for (std::string item; std::getline(list, item, ',');) {
        const int b = std::atoi(item.c_str());
        if (b <= 0) return std::nullopt;
        args.budgets.push_back(b);
      }
    } else if (!a.empty() && a[0] != '-') {
      args.runs.push_back(a);
    } else {
      return std::nullopt;
    }
  }
  if (args.runs.empty() || args.budgets.empty()) return std::nullopt;
  return args;
}

// The variant a kernel source carries ("" when it has no landscape marker).
std::string variant_of(const std::string& run_dir, const kf::corpus::Record& r) {
  if (!r.source) return "";
  auto text = kf::read_file(run_dir + "/" + r.source->path);
  if (!text) return "";
  static const std::regex marker("// landscape: [A-Za-z0-9_]+/([A-Za-z0-9_]+)");
  const std::string head = text->substr(0, text->find('\n'));
  std::smatch m;
  return std::regex_search(head, m, marker) ? m[1].str() : "";
}

// One search: a (run, configuration, problem)'s evaluations in the order they were recorded.
struct Search {
  std::string config, problem, run;
  std::vector<std::string> variants;
  std::vector<std::optional<double>> speedups;  // of correct kernels; nullopt otherwise
  std::optional<int> evaluations_to_best;       // 1-based index of the first correct best kernel
  int provider_failures = 0;
};

std::optional<double> best_within(const Search& s, int budget) {
  std::optional<double> best;
  for (size_t i = 0; i < s.speedups.size() && static_cast<int>(i) < budget; ++i) {
    if (s.speedups[i] && (!best || *s.speedups[i] > *best)) best = s.speedups[i];
  }
  return best;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse_args(argc, argv);
  if (!args) {
    std::fprintf(stderr, "usage: bench_search_landscape_table [--best L3] [--budgets 5,10,20,40] RUN_DIR...\n");
    return 2;
  }
  std::vector<Search> searches;
  for (const auto& run : args->runs) {
    auto corpus = kf::corpus::load(run);
    if (!corpus) {
      std::fprintf(stderr, "bench_search_landscape_table: %s: %s\n", run.c_str(), corpus.error().message.c_str());
      return 1;
    }
    std::map<std::pair<std::string, std::string>, Search> by_problem;
    for (const auto& r : corpus->records) {
      Search& s = by_problem[{r.config, r.problem.name}];
      s.config = r.config;
      s.problem = r.problem.name;
      s.run = run;
      if (r.kind == kf::corpus::Kind::provider_failure) ++s.provider_failures;
      if (r.kind != kf::corpus::Kind::evaluation) continue;
      s.variants.push_back(variant_of(run, r));
      s.speedups.push_back(r.correct() ? r.speedup() : std::nullopt);
      if (!s.evaluations_to_best && r.correct() && s.variants.back() == args->best) {
        s.evaluations_to_best = static_cast<int>(s.variants.size());
      }
    }
    for (auto& [key, s] : by_problem) {
      if (!s.variants.empty()) searches.push_back(std::move(s));
    }
  }

  std::map<std::string, std::vector<const Search*>> by_config;
  for (const auto& s : searches) by_config[s.config].push_back(&s);

  std::printf("Searches per configuration: one per (run, problem). Best kernel: variant %s.\n\n", args->best.c_str());
  std::printf("| configuration | searches | evaluations (mean) | found %s | evaluations to %s (median, found only) |",
              args->best.c_str(), args->best.c_str());
  for (int b : args->budgets) std::printf(" found by %d |", b);
  std::printf("\n|---|---|---|---|---|");
  for (size_t i = 0; i < args->budgets.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const auto& [config, list] : by_config) {
    std::vector<double> to_best;
    double evaluations = 0;
    for (const Search* s : list) {
      evaluations += static_cast<double>(s->variants.size());
      if (s->evaluations_to_best) to_best.push_back(*s->evaluations_to_best);
    }
    std::printf("| %s | %zu | %s | %zu/%zu | %s |", config.c_str(), list.size(),
                fixed(evaluations / static_cast<double>(list.size()), 1).c_str(), to_best.size(), list.size(),
                to_best.empty() ? "-" : fixed(median(to_best), 1).c_str());
    for (int b : args->budgets) {
      size_t found = 0;
      for (const Search* s : list) found += s->evaluations_to_best && *s->evaluations_to_best <= b;
      std::printf(" %zu/%zu |", found, list.size());
    }
    std::printf("\n");
  }

  std::printf(
      "\nBest speedup over eager PyTorch reached within each budget (mean over searches; a search with no "
      "correct kernel yet counts 0):\n\n| configuration | problem |");
  for (int b : args->budgets) std::printf(" %d evals |", b);
  std::printf("\n|---|---|");
  for (size_t i = 0; i < args->budgets.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const auto& [config, list] : by_config) {
    std::map<std::string, std::vector<const Search*>> by_problem;
    for (const Search* s : list) by_problem[s->problem].push_back(s);
    for (const auto& [problem, group] : by_problem) {
      std::printf("| %s | %s |", config.c_str(), problem.c_str());
      for (int b : args->budgets) {
        double sum = 0;
        for (const Search* s : group) sum += best_within(*s, b).value_or(0.0);
        std::printf(" %s |", fixed(sum / static_cast<double>(group.size()), 3).c_str());
      }
      std::printf("\n");
    }
  }

  std::printf("\nEach search's evaluations in order (variant, * = correct):\n\n");
  for (const auto& s : searches) {
    std::printf("%s %s %s:", s.run.c_str(), s.config.c_str(), s.problem.c_str());
    for (size_t i = 0; i < s.variants.size(); ++i) {
      std::printf(" %s%s", s.variants[i].empty() ? "?" : s.variants[i].c_str(), s.speedups[i] ? "*" : "");
    }
    if (s.provider_failures) std::printf("  (%d provider failures)", s.provider_failures);
    std::printf("\n");
  }
  return 0;
}
