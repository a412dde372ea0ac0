#include "agent/claims/import_sources.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "agent/claims/kernelbench_formats.h"
#include "core/files.h"
#include "core/log.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace kb = kernelbench;
namespace {

// A model's solution is a few KiB; a published folder may hold anything under that name.
constexpr uintmax_t kMaxSolutionBytes = 4u << 20;

SourceRun from_published(PublishedRun run) {
  SourceRun r;
  r.name = run.name;
  r.path = run.path;
  r.level = run.level;
  r.published = std::move(run);
  return r;
}

// The runs of a path in one of the release formats; nullopt when it is none of them.
std::optional<Result<std::vector<SourceRun>>> release_runs(const std::string& src, std::optional<int> level) {
  auto format = release_format(src);
  if (!format) return std::nullopt;
  std::vector<SourceRun> out;
  if (*format == "kernelbench-leaderboard") {
    auto runs = read_leaderboard(src);
    if (!runs) return Result<std::vector<SourceRun>>(runs.error());
    for (auto& r : *runs) out.push_back(from_published(std::move(r)));
  } else if (*format == "kernelbench-run-v2") {
    auto run = read_kernelbench_run_v2(src, level);
    if (!run) return Result<std::vector<SourceRun>>(run.error());
    out.push_back(from_published(std::move(*run)));
  } else {
    const std::vector<std::string> files = *format == "cuda-l1" ? std::vector<std::string>{src} : cuda_l1_files(src);
    for (const auto& f : files) {
      auto run = read_cuda_l1(f);
      if (!run) return Result<std::vector<SourceRun>>(run.error());
      out.push_back(from_published(std::move(*run)));
    }
  }
  return Result<std::vector<SourceRun>>(std::move(out));
}

// --level, else the one level of the run's files; several levels without --level is an error.
Status decide_level(SourceRun& run, std::optional<int> wanted) {
  std::set<int> levels;
  for (const auto& f : run.files) levels.insert(kb::parse_solution_name(f.filename().string())->level);
  if (wanted)
    run.level = *wanted;
  else if (levels.size() == 1)
    run.level = *levels.begin();
  else if (levels.size() > 1) {
    std::string list;
    for (int l : levels) list += (list.empty() ? "" : ", ") + std::to_string(l);
    return make_error("import.levels", "run '" + run.name + "' holds solutions of levels " + list +
                                           " but its eval_results.json names problems only: pass --level L");
  }
  return ok_status();
}

std::string folder_name(const fs::path& p) {
  fs::path n = p.lexically_normal();
  if (n.filename().empty()) n = n.parent_path();
  return n.filename().string();
}

bool is_run_folder(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_regular_file(dir / "eval_results.json", ec)) return true;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (kb::parse_solution_name(e.path().filename().string())) return true;
  return false;
}

SourceRun run_folder(const fs::path& dir) {
  SourceRun r;
  r.name = folder_name(dir);
  r.path = fs::absolute(dir).lexically_normal().string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (!e.is_regular_file(ec)) continue;
    // A published folder's link could name any file of this machine (a key): it is not followed.
    if (e.is_symlink(ec)) {
      log::warn(e.path().string() + ": a symbolic link; ignored");
      continue;
    }
    if (kb::parse_solution_name(n))
      r.files.push_back(e.path());
    else if (n.size() > 10 && n.compare(n.size() - 10, 10, "_kernel.py") == 0)
      log::warn(e.path().string() + ": not named level_<L>_problem_<P>_sample_<S>_kernel.py; ignored");
  }
  auto key = [](const fs::path& p) {
    auto s = kb::parse_solution_name(p.filename().string());
    return std::make_tuple(s->level, s->problem, s->sample);
  };
  std::sort(r.files.begin(), r.files.end(), [&](const fs::path& a, const fs::path& b) { return key(a) < key(b); });
  return r;
}

}  // namespace

Result<std::vector<SourceRun>> collect_sources(const ImportOptions& o) {
  std::vector<SourceRun> runs;
  SourceRun singles;
  singles.singles = true;
  for (const auto& src : o.sources) {
    const fs::path p(src);
    std::error_code ec;
    if (auto release = release_runs(src, o.level)) {
      if (!*release) return release->error();
      for (auto& r : **release) runs.push_back(std::move(r));
      continue;
    }
    if (fs::is_directory(p, ec)) {
      if (is_run_folder(p)) {
        runs.push_back(run_folder(p));
        continue;
      }
      std::vector<fs::path> subs;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_directory(ec) && (is_run_folder(e.path()) || release_format(e.path().string())))
          subs.push_back(e.path());
      if (subs.empty())
        return make_error("import.not_a_run",
                          "'" + src +
                              "' is neither a KernelBench run folder (level_<L>_problem_<P>_sample_<S>_"
                              "kernel.py files and eval_results.json, or problem_<P>_kernel.py files and "
                              "detailed_results.json), a CUDA-L1 file or folder, the leaderboard's "
                              "raw_data.json, nor a folder of run folders");
      std::sort(subs.begin(), subs.end());
      for (const auto& s : subs) {
        if (is_run_folder(s)) {
          runs.push_back(run_folder(s));
          continue;
        }
        auto release = release_runs(s.string(), o.level);
        if (!*release) return release->error();
        for (auto& r : **release) runs.push_back(std::move(r));
      }
    } else if (fs::is_regular_file(p, ec) && p.extension() == ".py") {
      singles.files.push_back(p);
    } else {
      return make_error("import.source", fs::exists(p, ec)
                                             ? "'" + src +
                                                   "' is not a .py solution file, a folder, a CUDA-L1 JSON-lines "
                                                   "file or the leaderboard's raw_data.json"
                                             : "'" + src + "' does not exist");
    }
  }
  if (!o.name.empty() && singles.files.empty()) {
    if (runs.size() != 1)
      return make_error("import.name", "--name names one run, but " + std::to_string(runs.size()) +
                                           " run folders were given: import them one at a time to rename them");
    runs.front().name = o.name;
    if (runs.front().published) runs.front().published->name = o.name;
  }
  std::map<std::string, std::string> names;
  for (auto& r : runs) {
    if (!r.published)
      if (auto st = decide_level(r, o.level); !st) return st.error();
    if (auto [it, fresh] = names.emplace(r.name, r.path); !fresh)
      return make_error("import.duplicate_run", "two run folders are named '" + r.name + "': " + it->second + " and " +
                                                    r.path + "; import one of them on its own with --name");
  }
  if (!singles.files.empty()) {
    if (o.problem.empty())
      return make_error("import.problem",
                        "single solution files need --problem P.py: the KernelBench problem they solve");
    singles.name = o.name.empty() ? "files" : o.name;
    runs.push_back(std::move(singles));
  }
  if (runs.empty()) return make_error("import.source", "nothing to import: name run folders or solution files");
  return runs;
}

// The solution's text, unless it cannot be read or is too large to be one.
Result<std::string> read_solution(const fs::path& file) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) return make_error("io.read", "cannot read '" + file.string() + "': " + ec.message());
  if (size > kMaxSolutionBytes)
    return make_error("import.too_large", file.string() + " holds " + std::to_string(size) +
                                              " bytes, more than the 4 MiB a solution may have");
  return read_file(file.string());
}

}  // namespace kf::agent
