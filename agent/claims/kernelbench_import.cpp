#include "agent/claims/kernelbench_import.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <tuple>

#include "agent/campaign/manifest.h"
#include "agent/campaign/problem_set.h"
#include "agent/claims/import_sources.h"
#include "agent/claims/kernelbench_dataset.h"
#include "agent/claims/kernelbench_formats.h"
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

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}

using IdentityKey = std::tuple<std::string, int, int, int, std::string>;  // run, level, problem, sample, sha256

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
      : o_(o),
        baseline_(std::move(baseline)),
        audit_(std::move(audit)),
        writer_(writer),
        run_id_(std::move(run_id)),
        session_(session),
        dataset_(o.kernelbench),
        dataset_dir_(o.kernelbench.empty() ? "" : fs::weakly_canonical(o.kernelbench).string()) {}

  void remember(const corpus::Record& r) {
    if (r.kind != corpus::Kind::imported || !r.imported) return;
    known_.insert(
        {r.imported->run, r.imported->level, r.imported->problem_number, r.sample, r.source ? r.source->sha256 : ""});
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
      if (auto it = entries.find({number, sample}); it != entries.end())
        entry = &it->second;
      else if (results_read)
        ++out.without_entry;
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
    r.imported = corpus::ImportOrigin{
        run_name, in.id.level, in.id.problem, in.file_name, in.origin, format, classify_solution(in.text)};
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
  KernelBenchDataset dataset_;
  std::string dataset_dir_;
  std::map<std::string, KernelBenchDataset> run_datasets_;  // the KernelBench checkouts runs ship in
  std::map<std::string, std::string> stored_references_;    // sha256 -> companion path
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
    return make_error("import.kernelbench",
                      "run folders need --kernelbench DIR: KernelBench's dataset folder "
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

  ImportEntry entry;
  for (const auto& s : o.sources) entry.sources.push_back(fs::absolute(s).lexically_normal().string());
  entry.kernelbench = o.kernelbench.empty() ? "" : fs::absolute(o.kernelbench).string();
  entry.baseline = baseline ? baseline->origin() : "";
  entry.audit = audit ? audit->origin() : "";
  entry.level = o.level;
  auto session = record_import(o.out, entry);
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

}  // namespace kf::agent
