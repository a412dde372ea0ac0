#include "agent/kernelbench_import.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include "agent/kernelbench_formats.h"
#include "agent/manifest.h"
#include "agent/problem_set.h"
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
};

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
    if (fs::is_directory(p, ec)) {
      if (is_run_folder(p)) {
        runs.push_back(run_folder(p));
        continue;
      }
      std::vector<fs::path> subs;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_directory(ec) && is_run_folder(e.path())) subs.push_back(e.path());
      if (subs.empty())
        return make_error("import.not_a_run",
                          "'" + src + "' is neither a KernelBench run folder (level_<L>_problem_<P>_sample_<S>_"
                                      "kernel.py files, eval_results.json) nor a folder of run folders");
      std::sort(subs.begin(), subs.end());
      for (const auto& s : subs) runs.push_back(run_folder(s));
    } else if (fs::is_regular_file(p, ec) && p.extension() == ".py") {
      singles.files.push_back(p);
    } else {
      return make_error("import.source", fs::exists(p, ec) ? "'" + src + "' is not a .py solution file or a folder"
                                                           : "'" + src + "' does not exist");
    }
  }
  if (!o.name.empty() && singles.files.empty()) {
    if (runs.size() != 1)
      return make_error("import.name", "--name names one run, but " + std::to_string(runs.size()) +
                                           " run folders were given: import them one at a time to rename them");
    runs.front().name = o.name;
  }
  std::map<std::string, std::string> names;
  for (auto& r : runs) {
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

class Importer {
 public:
  Importer(const ImportOptions& o, std::optional<kb::Baseline> baseline, corpus::Writer& writer, std::string run_id,
           int session)
      : o_(o), baseline_(std::move(baseline)), writer_(writer), run_id_(std::move(run_id)), session_(session),
        dataset_(o.kernelbench) {}

  void remember(const corpus::Record& r) {
    if (r.kind != corpus::Kind::imported || !r.imported) return;
    known_.insert({r.imported->run, r.imported->level, r.imported->problem_number, r.sample,
                   r.source ? r.source->sha256 : ""});
    int& t = turns_[{r.config, r.problem.name, r.sample}];
    t = std::max(t, r.turn);
  }

  Result<ImportedRun> import_run(const SourceRun& run) {
    ImportedRun out;
    out.name = run.name;
    out.path = run.path;
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
      corpus::Claim claim = make_claim(entry, level, problem, note);
      if (claim.compiled.value_or(false)) ++out.claimed_compiled;
      if (claim.correct.value_or(false)) ++out.claimed_correct;
      if (claim.correct.value_or(false) && claim.speedup && *claim.speedup > 1.0) ++out.claimed_faster;
      if (!problem) {
        out.missing_problems.insert(number);
        ++out.skipped;
        warn(out, file.string() + ": " + why + "; not imported");
        continue;
      }
      if (!entry && results_read)
        note = "no entry in eval_results.json: nothing claimed" + (note.empty() ? "" : "; " + note);
      auto added = add(run, file, {level, number, sample}, *problem, std::move(claim), entry, note, out);
      if (!added) return added.error();
    }
    for (const auto& [key, e] : entries)
      if (!with_file.count(key)) ++out.entries_without_file;
    if (out.entries_without_file > 0)
      warn(out, run.path + "/eval_results.json: " + std::to_string(out.entries_without_file) +
                    " entries have no solution file in the folder (nothing to re-verify)");
    if (warnings_logged_ > kWarningsLoggedPerRun)
      log::warn("run '" + run.name + "': " + std::to_string(warnings_logged_ - kWarningsLoggedPerRun) +
                " more warnings not shown (a solution's own stay on its record's \"warnings\")");
    return out;
  }

 private:
  void warn(ImportedRun& run, const std::string& text) {
    ++run.warnings;
    if (++warnings_logged_ <= kWarningsLoggedPerRun) log::warn(text);
  }

  // `note` says how the baseline entry was matched when not by the problem's file name.
  corpus::Claim make_claim(const kb::EvalEntry* entry, int level, const std::optional<ProblemInfo>& problem,
                           std::string& note) {
    corpus::Claim c;
    if (entry) {
      c.compiled = entry->compiled;
      c.correct = entry->correct;
      c.runtime_ms = entry->runtime_ms;
      c.hardware = entry->hardware;
      c.raw = entry->raw;
    }
    if (baseline_ && problem) {
      if (auto b = baseline_->find(level, problem->name + ".py", &note)) {
        c.baseline_ms = b->mean_ms;
        c.baseline_file = baseline_->origin();
        if (c.hardware.empty()) c.hardware = b->hardware;
      }
    }
    if (c.runtime_ms && c.baseline_ms) c.speedup = *c.baseline_ms / *c.runtime_ms;
    return c;
  }

  Status add(const SourceRun& run, const fs::path& file, kb::SolutionName id, const ProblemInfo& problem,
             corpus::Claim claim, const kb::EvalEntry* entry, const std::string& note, ImportedRun& out) {
    auto text = read_solution(file);
    if (!text) {
      ++out.skipped;
      warn(out, text.error().message + "; not imported");
      return ok_status();
    }
    const std::string sha = sha256_hex(*text);
    if (!known_.insert({run.name, id.level, id.problem, id.sample, sha}).second) {
      ++out.already;
      return ok_status();
    }
    corpus::Record r;
    r.kind = corpus::Kind::imported;
    r.run_id = run_id_;
    r.session = session_;
    r.config = run.name;
    r.provider = "kernelbench";
    // Reports group by format: a solution with Triton kernels is the triton format, every other one cuda.
    r.candidate_format = text->find("triton.jit") != std::string::npos ? "kernelbench-triton" : "kernelbench-cuda";
    r.problem = problem.ref();
    r.sample = id.sample;
    // A changed file under the same (run, problem, sample) is a new version of that solution.
    int& turn = turns_[{run.name, problem.name, id.sample}];
    r.turn = ++turn;
    std::string stem = safe(run.name) + "__" + safe(file.stem().string()) +
                       (r.turn > 1 ? "__v" + std::to_string(r.turn) : "");
    // Two run names can make the same safe stem ("a b", "a_b"): never overwrite another solution.
    std::error_code ec;
    if (fs::exists(fs::path(writer_.dir()) / "sources" / (stem + ".py"), ec)) stem += "__" + sha.substr(0, 12);
    auto rel = writer_.write_companion("sources", stem + ".py", *text);
    if (!rel) return rel.error();
    r.source = corpus::SourceRef{*rel, sha};
    r.imported = corpus::ImportOrigin{run.name, id.level, id.problem, file.filename().string(),
                                      fs::absolute(file).lexically_normal().string()};
    if (entry) r.warnings = entry->warnings;
    if (!note.empty()) r.warnings.push_back(note);
    for (const auto& w : r.warnings) warn(out, file.string() + ": " + w);
    r.claim = std::move(claim);
    r.recorded_at = corpus::utc_now_iso();
    if (auto st = writer_.append(r); !st) return st.error();
    ++out.added;
    return ok_status();
  }

  const ImportOptions& o_;
  std::optional<kb::Baseline> baseline_;
  corpus::Writer& writer_;
  std::string run_id_;
  int session_ = 1;
  Dataset dataset_;
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
  fs::create_directories(o.out, ec);
  if (ec) return make_error("import.out", "cannot create '" + o.out + "': " + ec.message());

  nlohmann::json sources_json = nlohmann::json::array();
  for (const auto& s : o.sources) sources_json.push_back(fs::absolute(s).lexically_normal().string());
  auto session = record_import(o.out, {{"at", corpus::utc_now_iso()},
                                       {"sources", sources_json},
                                       {"kernelbench", o.kernelbench.empty() ? "" : fs::absolute(o.kernelbench).string()},
                                       {"baseline", baseline ? baseline->origin() : ""},
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
  Importer importer(o, std::move(baseline), **writer, session->run_id, session->number);
  if (existing)
    for (const auto& r : existing->records) importer.remember(r);

  ImportResult result;
  result.out = o.out;
  result.run_id = session->run_id;
  for (const auto& run : *sources) {
    auto done = importer.import_run(run);
    if (!done) return done.error();
    result.runs.push_back(std::move(*done));
  }
  return result;
}

std::string format_import_result(const ImportResult& r) {
  std::ostringstream o;
  o << "# kforge import: " << r.out << " (" << r.run_id << ")\n\n"
    << "| run | level | solutions | new | already imported | claimed compiled | claimed correct | claimed faster | "
       "not imported | missing problems | unreadable entries | entries without a file | solutions without an entry | "
       "warnings |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& run : r.runs) {
    std::string missing = std::to_string(run.missing_problems.size());
    if (!run.missing_problems.empty()) {
      std::string list;
      for (int p : run.missing_problems) list += (list.empty() ? "" : ", ") + std::to_string(p);
      missing += " (" + list + ")";
    }
    o << "| " << run.name << " | " << (run.level > 0 ? std::to_string(run.level) : "-") << " | " << run.solutions
      << " | " << run.added << " | " << run.already << " | " << run.claimed_compiled << " | " << run.claimed_correct
      << " | " << run.claimed_faster << " | " << run.skipped << " | " << missing << " | " << run.unreadable_entries
      << " | " << run.entries_without_file << " | " << run.without_entry << " | " << run.warnings << " |\n";
  }
  o << "\nNext: `kforge reverify " << r.out << "` re-judges the claimed-correct solutions; `kforge report " << r.out
    << "` tabulates claims and outcomes.\n";
  return o.str();
}

}  // namespace kf::agent
