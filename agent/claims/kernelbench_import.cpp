#include "agent/claims/kernelbench_import.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include "agent/claims/baseline_kind.h"
#include "agent/claims/kernelbench_formats.h"
#include "agent/campaign/manifest.h"
#include "agent/campaign/problem_set.h"
#include "agent/claims/reference_drift.h"
#include "agent/claims/release_formats.h"
#include "agent/claims/solution_kinds.h"
#include "agent/claims/task_quality.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "corpus/reader.h"
#include "corpus/writer.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace kb = kernelbench;
namespace {

constexpr int kWarningsLoggedPerRun = 20;  // the rest stay on the records
// A model's solution is a few KiB; a published folder may hold anything under that name.
constexpr uintmax_t kMaxSolutionBytes = 4u << 20;

struct SourceRun {
  std::string name;
  std::string path;  // "" for single files
  std::vector<fs::path> files;
  bool singles = false;
  int level = 0;     // a run folder's level: its eval_results.json names problem numbers only
  std::optional<PublishedRun> published;  // a release read whole (agent/claims/release_formats.h)
};

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
  if (wanted) run.level = *wanted;
  else if (levels.size() == 1) run.level = *levels.begin();
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
    if (kb::parse_solution_name(n)) r.files.push_back(e.path());
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
                          "'" + src + "' is neither a KernelBench run folder (level_<L>_problem_<P>_sample_<S>_"
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
      return make_error("import.source",
                        fs::exists(p, ec) ? "'" + src + "' is not a .py solution file, a folder, a CUDA-L1 JSON-lines "
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

// KernelBench problems of a dataset folder by (level, number), read once.
class Dataset {
 public:
  explicit Dataset(std::string dir) : dir_(std::move(dir)) {}
  // nullopt (with `why`) when the dataset has no such problem or its file cannot be read.
  std::optional<ProblemInfo> find(int level, int number, std::string& why) {
    auto key = std::make_pair(level, number);
    if (auto it = cache_.find(key); it != cache_.end()) {
      why = it->second.second;
      return it->second.first;
    }
    auto& slot = cache_[key];
    slot.first = look_up(level, number, slot.second);
    why = slot.second;
    return slot.first;
  }

 private:
  std::optional<ProblemInfo> look_up(int level, int number, std::string& why) {
    if (dir_.empty()) {
      why = "no --kernelbench dataset folder given";
      return std::nullopt;
    }
    const fs::path folder = fs::path(dir_) / ("level" + std::to_string(level));
    std::vector<fs::path> matches;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
      const std::string n = e.path().filename().string();
      if (e.path().extension() == ".py" && kb::problem_number(n) == number) matches.push_back(e.path());
    }
    if (ec) {
      why = "the dataset has no folder " + folder.string();
      return std::nullopt;
    }
    if (matches.size() != 1) {
      why = matches.empty() ? folder.string() + " has no problem " + std::to_string(number) + "_*.py"
                            : folder.string() + " has several problems numbered " + std::to_string(number);
      return std::nullopt;
    }
    auto p = load_problem(matches.front().string());
    if (!p) {
      why = p.error().message;
      return std::nullopt;
    }
    return *p;
  }
  std::string dir_;
  std::map<std::pair<int, int>, std::pair<std::optional<ProblemInfo>, std::string>> cache_;
};

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
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

using IdentityKey = std::tuple<std::string, int, int, int, std::string>;  // run, level, problem, sample, sha256

// The KernelBench dataset a run folder was made against, when the run ships inside a KernelBench checkout
// (<checkout>/runs/<run>/ next to <checkout>/KernelBench/level<L>/): its problems are the run's own reference.
std::string run_dataset(const std::string& run_path, int level) {
  if (run_path.empty() || level <= 0) return "";
  fs::path p = fs::path(run_path);
  std::error_code ec;
  for (int up = 0; up < 3 && p.has_parent_path() && p.parent_path() != p; ++up) {
    p = p.parent_path();
    if (fs::is_directory(p / "KernelBench" / ("level" + std::to_string(level)), ec)) return (p / "KernelBench").string();
  }
  return "";
}

// A solution ready to be recorded, whichever format it came from.
struct Incoming {
  kb::SolutionName id;
  std::string file_name;  // imported.file
  std::string origin;     // imported.origin
  std::string stem;       // for the stored copy's name
  std::string text;
  corpus::Claim claim;
  std::string reference_text, reference_origin;
  std::vector<std::string> warnings;
};

class Importer {
 public:
  Importer(const ImportOptions& o, std::optional<kb::Baseline> baseline, std::optional<ProblemAudit> audit,
           corpus::Writer& writer, std::string run_id, int session)
      : o_(o), baseline_(std::move(baseline)), audit_(std::move(audit)), writer_(writer), run_id_(std::move(run_id)),
        session_(session), dataset_(o.kernelbench),
        dataset_dir_(o.kernelbench.empty() ? "" : fs::weakly_canonical(o.kernelbench).string()) {}

  void remember(const corpus::Record& r) {
    if (r.kind != corpus::Kind::imported || !r.imported) return;
    known_.insert({r.imported->run, r.imported->level, r.imported->problem_number, r.sample,
                   r.source ? r.source->sha256 : ""});
    int& t = turns_[{r.config, r.problem.name, r.sample}];
    t = std::max(t, r.turn);
  }

  Result<ImportedRun> import_run(const SourceRun& run) {
    if (run.published) return import_published(run, *run.published);
    ImportedRun out;
    out.name = run.name;
    out.path = run.path;
    out.format = run.singles ? "files" : "kernelbench-run";
    warnings_logged_ = 0;
    std::map<std::pair<int, int>, kb::EvalEntry> entries;
    bool results_read = false;  // an eval_results.json was read: a solution without an entry is odd
    out.level = run.level;
    if (!run.singles) {
      const fs::path results = fs::path(run.path) / "eval_results.json";
      std::error_code ec;
      if (fs::exists(results, ec)) {
        auto text = read_file(results.string());
        auto parsed = text ? kb::parse_eval_results(*text, results.string()) : Result<kb::EvalResults>(text.error());
        if (!parsed) {
          warn(out, parsed.error().message + "; the run's solutions are imported without claims");
        } else {
          results_read = true;
          for (const auto& w : parsed->warnings) warn(out, w);
          out.unreadable_entries = parsed->unreadable;
          out.entries = static_cast<int>(parsed->entries.size()) + parsed->unreadable;
          for (auto& e : parsed->entries) entries[{e.problem, e.sample}] = std::move(e);
        }
      } else {
        warn(out, run.path + " has no eval_results.json: its solutions are imported without claims");
      }
    }
    std::optional<ProblemInfo> single_problem;
    if (run.singles) {
      auto p = load_problem(o_.problem);
      if (!p) return p.error();
      single_problem = std::move(*p);
    }
    std::set<std::pair<int, int>> with_file;
    int next_single_sample = 0;
    for (const auto& file : run.files) {
      auto name = kb::parse_solution_name(file.filename().string());
      int level = out.level, number = 0, sample = 0;
      std::optional<ProblemInfo> problem;
      std::string why;
      if (run.singles) {
        problem = single_problem;
        level = name ? name->level : o_.level.value_or(0);
        number = kb::problem_number(problem->name + ".py").value_or(name ? name->problem : 0);
        sample = name ? name->sample : next_single_sample++;
      } else {
        if (name->level != out.level) continue;
        number = name->problem;
        sample = name->sample;
        problem = dataset_.find(level, number, why);
      }
      ++out.solutions;
      with_file.insert({number, sample});
      const kb::EvalEntry* entry = nullptr;
      if (auto it = entries.find({number, sample}); it != entries.end()) entry = &it->second;
      else if (results_read) ++out.without_entry;
      std::string note;
      corpus::Claim claim;
      if (entry) {
        claim.compiled = entry->compiled;
        claim.correct = entry->correct;
        claim.runtime_ms = entry->runtime_ms;
        claim.hardware = entry->hardware;
        claim.raw = entry->raw;
      }
      apply_baseline(claim, level, problem, note);
      count_claim(claim, out);
      if (!problem) {
        out.missing_problems.insert(number);
        ++out.skipped;
        warn(out, file.string() + ": " + why + "; not imported");
        continue;
      }
      if (!entry && results_read)
        note = "no entry in eval_results.json: nothing claimed" + (note.empty() ? "" : "; " + note);
      auto text = read_solution(file);
      if (!text) {
        ++out.skipped;
        warn(out, text.error().message + "; not imported");
        continue;
      }
      Incoming in;
      in.id = {level, number, sample};
      in.file_name = file.filename().string();
      in.origin = fs::absolute(file).lexically_normal().string();
      in.stem = file.stem().string();
      in.text = std::move(*text);
      in.claim = std::move(claim);
      if (entry) in.warnings = entry->warnings;
      if (!note.empty()) in.warnings.push_back(note);
      if (!run.singles) own_reference(run.path, in);
      if (auto st = add(run.name, out.format, *problem, std::move(in), out); !st) return st.error();
    }
    for (const auto& [key, e] : entries)
      if (!with_file.count(key)) ++out.entries_without_file;
    if (out.entries_without_file > 0)
      warn(out, run.path + "/eval_results.json: " + std::to_string(out.entries_without_file) +
                    " entries have no solution file in the folder (nothing to re-verify)");
    finish(run);
    return out;
  }

 private:
  Result<ImportedRun> import_published(const SourceRun& run, const PublishedRun& pub) {
    ImportedRun out;
    out.name = run.name;
    out.path = pub.path;
    out.format = pub.format;
    out.level = pub.level;
    out.entries = pub.entries;
    out.unreadable_entries = pub.unreadable;
    out.entries_without_file = pub.entries_without_solution;
    out.without_entry = pub.solutions_without_entry;
    warnings_logged_ = 0;
    for (const auto& w : pub.warnings) warn(out, w);
    std::set<int> levels;
    for (const auto& s : pub.solutions) {
      if (o_.level && s.level != *o_.level) continue;
      levels.insert(s.level);
      ++out.solutions;
      std::string why, note;
      auto problem = dataset_.find(s.level, s.problem, why);
      corpus::Claim claim = s.claim;
      apply_baseline(claim, s.level, problem, note);
      count_claim(claim, out);
      if (!problem) {
        out.missing_problems.insert(s.problem);
        ++out.skipped;
        warn(out, s.origin + ": " + why + "; not imported");
        continue;
      }
      Incoming in;
      in.id = {s.level, s.problem, s.sample};
      in.file_name = s.file;
      in.origin = s.origin;
      in.stem = fs::path(s.file).stem().string();
      in.text = s.code;
      in.claim = std::move(claim);
      in.warnings = s.warnings;
      if (!note.empty()) in.warnings.push_back(note);
      in.reference_text = s.reference_code;
      in.reference_origin = s.reference_origin;
      if (in.reference_text.empty() && pub.format == "kernelbench-run-v2") own_reference(pub.path, in);
      if (auto st = add(run.name, pub.format, *problem, std::move(in), out); !st) return st.error();
    }
    if (out.level == 0 && levels.size() == 1) out.level = *levels.begin();
    if (out.without_entry > 0)
      warn(out, run.path + ": " + std::to_string(out.without_entry) +
                    " solution files have no entry in the run's results (imported without a claim)");
    if (out.entries_without_file > 0)
      warn(out, run.path + ": " + std::to_string(out.entries_without_file) +
                    " entries carry no solution (no code, or no solution file): nothing to import or re-verify");
    finish(run);
    return out;
  }

  void finish(const SourceRun& run) const {
    if (warnings_logged_ > kWarningsLoggedPerRun)
      log::warn("run '" + run.name + "': " + std::to_string(warnings_logged_ - kWarningsLoggedPerRun) +
                " more warnings not shown (a solution's own stay on its record's \"warnings\")");
  }

  void warn(ImportedRun& run, const std::string& text) {
    ++run.warnings;
    if (++warnings_logged_ <= kWarningsLoggedPerRun) log::warn(text);
  }

  static void count_claim(const corpus::Claim& c, ImportedRun& out) {
    if (c.compiled.value_or(false)) ++out.claimed_compiled;
    if (c.correct.value_or(false)) ++out.claimed_correct;
    if (c.correct.value_or(false) && c.speedup && *c.speedup > 1.0) ++out.claimed_faster;
  }

  // With --baseline, a claim that has the solution's runtime but no eager speedup gets one: the baseline
  // file's mean / runtime. `note` says how the baseline entry was matched when not by the problem's file name.
  void apply_baseline(corpus::Claim& c, int level, const std::optional<ProblemInfo>& problem, std::string& note) {
    if (!baseline_ || !problem || c.speedup_over("eager")) return;
    auto b = baseline_->find(level, problem->name + ".py", &note);
    if (!b) return;
    c.baseline_ms = b->mean_ms;
    c.baseline_file = baseline_->origin();
    if (c.hardware.empty()) c.hardware = b->hardware;
    if (c.runtime_ms) {
      c.speedup = *c.baseline_ms / *c.runtime_ms;
      c.baseline_kind = "eager";
      c.speedups.push_back({"eager", *c.speedup, c.baseline_ms});
    }
  }

  // A run inside a KernelBench checkout (other than the --kernelbench dataset) was made against that
  // checkout's problems: they are its own reference.
  void own_reference(const std::string& run_path, Incoming& in) {
    const std::string dir = run_dataset(run_path, in.id.level);
    if (dir.empty() || fs::weakly_canonical(dir).string() == dataset_dir_) return;
    auto [it, fresh] = run_datasets_.try_emplace(dir, dir);
    std::string why;
    auto own = it->second.find(in.id.level, in.id.problem, why);
    if (!own) {
      in.warnings.push_back("the run's own KernelBench (" + dir + ") lacks the problem: " + why);
      return;
    }
    in.reference_text = own->source;
    in.reference_origin = own->path;
  }

  Status add(const std::string& run_name, const std::string& format, const ProblemInfo& problem, Incoming in,
             ImportedRun& out) {
    const std::string sha = sha256_hex(in.text);
    if (!known_.insert({run_name, in.id.level, in.id.problem, in.id.sample, sha}).second) {
      ++out.already;
      return ok_status();
    }
    corpus::Record r;
    r.kind = corpus::Kind::imported;
    r.run_id = run_id_;
    r.session = session_;
    r.config = run_name;
    r.provider = format == "kernelbench-run" || format == "files" ? "kernelbench" : format;
    r.model = in.claim.model;
    // Reports group by format: a solution with Triton kernels is the triton format, every other one cuda.
    r.candidate_format = in.text.find("triton.jit") != std::string::npos ? "kernelbench-triton" : "kernelbench-cuda";
    r.problem = problem.ref();
    r.sample = in.id.sample;
    // A changed file under the same (run, problem, sample) is a new version of that solution.
    int& turn = turns_[{run_name, problem.name, in.id.sample}];
    r.turn = ++turn;
    std::string stem = safe(run_name) + "__" + safe(in.stem) + (r.turn > 1 ? "__v" + std::to_string(r.turn) : "");
    // Two run names can make the same safe stem ("a b", "a_b"): never overwrite another solution.
    std::error_code ec;
    if (fs::exists(fs::path(writer_.dir()) / "sources" / (stem + ".py"), ec)) stem += "__" + sha.substr(0, 12);
    auto rel = writer_.write_companion("sources", stem + ".py", in.text);
    if (!rel) return rel.error();
    r.source = corpus::SourceRef{*rel, sha};
    r.imported = corpus::ImportOrigin{run_name, in.id.level, in.id.problem, in.file_name, in.origin, format,
                                      classify_solution(in.text)};
    for (const auto& k : r.imported->kinds) ++out.kinds[k];
    if (!in.reference_text.empty()) {
      auto ref = store_reference(in.reference_text, in.reference_origin, problem);
      if (!ref) return ref.error();
      ++out.references_compared;
      if (ref->differs.value_or(false)) {
        ++out.references_differ;
        out.drift[{in.id.level, in.id.problem}] = {ref->changes, ref->summary};
      }
      in.claim.reference = std::move(*ref);
    }
    if (audit_) {
      if (auto q = audit_->find(problem.path, problem.name)) {
        in.claim.task_quality = q->kind;
        in.claim.task_quality_detail = q->detail;
        ++(q->kind == "degenerate" ? out.on_degenerate : out.on_fooled);
      }
    }
    for (const auto& s : in.claim.speedups) ++out.baselines[s.baseline];
    if (out.model.empty()) out.model = in.claim.model;
    if (out.hardware.empty()) out.hardware = in.claim.hardware;
    r.warnings = std::move(in.warnings);
    for (const auto& w : r.warnings) warn(out, in.origin + ": " + w);
    r.claim = std::move(in.claim);
    r.recorded_at = corpus::utc_now_iso();
    if (auto st = writer_.append(r); !st) return st.error();
    ++out.added;
    return ok_status();
  }

  // The release's reference, stored once per distinct text (references/<sha256 prefix>.py) and compared
  // with the dataset's problem.
  Result<corpus::ClaimReference> store_reference(const std::string& text, const std::string& origin,
                                                 const ProblemInfo& problem) {
    corpus::ClaimReference ref;
    ref.sha256 = sha256_hex(text);
    ref.origin = origin;
    auto stored = stored_references_.find(ref.sha256);
    if (stored == stored_references_.end()) {
      std::error_code ec;
      fs::create_directories(fs::path(writer_.dir()) / "references", ec);
      auto rel = writer_.write_companion("references", ref.sha256.substr(0, 16) + ".py", text);
      if (!rel) return rel.error();
      stored = stored_references_.emplace(ref.sha256, *rel).first;
    }
    ref.path = stored->second;
    auto key = std::make_pair(ref.sha256, problem.file_hash);
    auto cmp = comparisons_.find(key);
    if (cmp == comparisons_.end()) cmp = comparisons_.emplace(key, compare_references(text, problem.source)).first;
    ref.differs = cmp->second.differs;
    ref.summary = cmp->second.summary;
    ref.changes = cmp->second.changes;
    return ref;
  }

  const ImportOptions& o_;
  std::optional<kb::Baseline> baseline_;
  std::optional<ProblemAudit> audit_;
  corpus::Writer& writer_;
  std::string run_id_;
  int session_ = 1;
  Dataset dataset_;
  std::string dataset_dir_;
  std::map<std::string, Dataset> run_datasets_;  // the KernelBench checkouts runs ship in
  std::map<std::string, std::string> stored_references_;  // sha256 -> companion path
  std::map<std::pair<std::string, std::string>, ReferenceComparison> comparisons_;
  std::set<IdentityKey> known_;
  std::map<std::tuple<std::string, std::string, int>, int> turns_;  // (run, problem, sample) -> last turn
  int warnings_logged_ = 0;
};

}  // namespace

Result<ImportResult> import_kernelbench(const ImportOptions& o) {
  if (o.out.empty()) return make_error("import.out", "--out DIR is required: the corpus folder to import into");
  std::error_code ec;
  if (!o.kernelbench.empty() && !fs::is_directory(o.kernelbench, ec))
    return make_error("import.kernelbench",
                      "--kernelbench '" + o.kernelbench +
                          "' is not a folder (expected KernelBench's dataset: level1/, level2/, ...)");
  auto sources = collect_sources(o);
  if (!sources) return sources.error();
  const bool any_run = std::any_of(sources->begin(), sources->end(), [](const SourceRun& r) { return !r.singles; });
  if (any_run && o.kernelbench.empty())
    return make_error("import.kernelbench", "run folders need --kernelbench DIR: KernelBench's dataset folder "
                                            "(level1/, level2/, ...) that names each problem number");
  std::optional<kb::Baseline> baseline;
  if (!o.baseline.empty()) {
    auto text = read_file(o.baseline);
    if (!text) return make_error("import.baseline", "--baseline: " + text.error().message);
    auto parsed = kb::Baseline::parse(*text, fs::absolute(o.baseline).lexically_normal().string());
    if (!parsed) return parsed.error();
    for (const auto& w : parsed->warnings()) log::warn(w);
    baseline = std::move(*parsed);
  }
  std::optional<ProblemAudit> audit;
  if (!o.audit.empty()) {
    auto loaded = ProblemAudit::load(o.audit);
    if (!loaded) return loaded.error();
    if (loaded->size() == 0) log::warn("--audit " + o.audit + " holds no audited problem: no claim is marked");
    audit = std::move(*loaded);
  }
  fs::create_directories(o.out, ec);
  if (ec) return make_error("import.out", "cannot create '" + o.out + "': " + ec.message());

  nlohmann::json sources_json = nlohmann::json::array();
  for (const auto& s : o.sources) sources_json.push_back(fs::absolute(s).lexically_normal().string());
  auto session = record_import(o.out, {{"at", corpus::utc_now_iso()},
                                       {"sources", sources_json},
                                       {"kernelbench", o.kernelbench.empty() ? "" : fs::absolute(o.kernelbench).string()},
                                       {"baseline", baseline ? baseline->origin() : ""},
                                       {"audit", audit ? audit->origin() : ""},
                                       {"level", o.level ? nlohmann::json(*o.level) : nlohmann::json()}});
  if (!session) return session.error();

  std::optional<corpus::Corpus> existing;
  if (corpus::has_corpus(o.out)) {
    auto loaded = corpus::load(o.out);
    if (!loaded) return loaded.error();
    existing = std::move(*loaded);
  }
  auto writer = corpus::Writer::open(o.out);
  if (!writer) return writer.error();
  Importer importer(o, std::move(baseline), std::move(audit), **writer, session->run_id, session->number);
  if (existing)
    for (const auto& r : existing->records) importer.remember(r);

  ImportResult result;
  result.out = o.out;
  result.run_id = session->run_id;
  for (size_t i = 0; i < sources->size(); ++i) {
    const SourceRun& run = (*sources)[i];
    // A release's run takes seconds (reading, classifying and comparing hundreds of solutions): say which.
    if (sources->size() > 1)
      log::info("importing run " + std::to_string(i + 1) + "/" + std::to_string(sources->size()) + ": " + run.name);
    auto done = importer.import_run(run);
    if (!done) return done.error();
    result.runs.push_back(std::move(*done));
  }
  return result;
}

namespace {

std::string counts_text(const std::map<std::string, int>& counts, const std::vector<std::string>& order) {
  std::string t;
  for (const auto& k : order)
    if (auto it = counts.find(k); it != counts.end()) t += (t.empty() ? "" : ", ") + k + " " + std::to_string(it->second);
  return t.empty() ? "-" : t;
}

}  // namespace

std::string format_import_result(const ImportResult& r) {
  std::ostringstream o;
  o << "# kforge import: " << r.out << " (" << r.run_id << ")\n\n"
    << "| run | format | level | entries | solutions | new | already imported | claimed compiled | claimed correct | "
       "claimed faster | not imported | missing problems | unreadable entries | entries without a solution | "
       "solutions without an entry | warnings |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& run : r.runs) {
    std::string missing = std::to_string(run.missing_problems.size());
    if (!run.missing_problems.empty()) {
      std::string list;
      for (int p : run.missing_problems) list += (list.empty() ? "" : ", ") + std::to_string(p);
      missing += " (" + list + ")";
    }
    o << "| " << run.name << " | " << run.format << " | " << (run.level > 0 ? std::to_string(run.level) : "-")
      << " | " << run.entries << " | " << run.solutions << " | " << run.added << " | " << run.already << " | "
      << run.claimed_compiled << " | " << run.claimed_correct << " | " << run.claimed_faster << " | " << run.skipped
      << " | " << missing << " | " << run.unreadable_entries << " | " << run.entries_without_file << " | "
      << run.without_entry << " | " << run.warnings << " |\n";
  }
  // What the newly imported solutions are, and what their claims are made against.
  o << "\n## Claims and what the solutions are (new solutions)\n\n"
    << "| run | model | hardware (as stated) | claimed speedups by baseline | ";
  for (const auto& k : solution_kinds()) o << solution_kind_label(k) << " | ";
  o << "own reference compared | reference_differs | on degenerate problems | on fooled problems |\n|---|---|---|---|";
  for (size_t i = 0; i < solution_kinds().size(); ++i) o << "---|";
  o << "---|---|---|---|\n";
  for (const auto& run : r.runs) {
    o << "| " << run.name << " | " << (run.model.empty() ? "-" : run.model) << " | "
      << (run.hardware.empty() ? "-" : run.hardware) << " | " << counts_text(run.baselines, baseline_kinds()) << " | ";
    for (const auto& k : solution_kinds()) {
      auto it = run.kinds.find(k);
      o << (it == run.kinds.end() ? 0 : it->second) << " | ";
    }
    o << run.references_compared << " | " << run.references_differ << " | " << run.on_degenerate << " | "
      << run.on_fooled << " |\n";
  }
  // Every problem whose reference differs, a changed computation first: it changes what a speedup means.
  struct Drift {
    std::vector<std::string> changes;
    std::string summary;
    std::vector<std::string> runs;
  };
  std::map<std::pair<int, int>, Drift> drift;
  for (const auto& run : r.runs)
    for (const auto& [key, d] : run.drift) {
      auto& x = drift[key];
      x.changes = d.first;
      x.summary = d.second;
      x.runs.push_back(run.name);
    }
  if (!drift.empty()) {
    std::map<std::string, int> by_change;
    for (const auto& [key, d] : drift)
      for (const auto& c : d.changes) ++by_change[c];
    std::string counts;
    for (const auto& [c, n] : by_change) counts += (counts.empty() ? "" : ", ") + c + " " + std::to_string(n);
    o << "\n## reference_differs: the claim's reference is not the dataset's problem (" << drift.size()
      << " problems; changed: " << counts << ")\n\n| level | problem | changed | runs | what differs (claimed "
      << "reference -> dataset) |\n|---|---|---|---|---|\n";
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& [key, d] : drift) {
        const bool computation = !d.changes.empty() && d.changes.front() == "computation";
        if (computation != (pass == 0)) continue;
        std::string runs, changes;
        for (const auto& n : d.runs) runs += (runs.empty() ? "" : ", ") + n;
        for (const auto& c : d.changes) changes += (changes.empty() ? "" : ", ") + c;
        std::string summary = d.summary;
        std::replace(summary.begin(), summary.end(), '|', '/');
        o << "| " << key.first << " | " << key.second << " | " << changes << " | " << runs << " | " << summary
          << " |\n";
      }
  }
  o << "\nNext: `kforge reverify " << r.out << "` re-judges the claimed-correct solutions; `kforge report " << r.out
    << "` tabulates claims and outcomes.\n";
  return o.str();
}

}  // namespace kf::agent
