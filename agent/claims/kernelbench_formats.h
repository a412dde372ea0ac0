#pragma once
// KernelBench's published run formats, read liberally: a run folder's solution file names
// (level_<L>_problem_<P>_sample_<S>_kernel.py), its eval_results.json (per problem a list of sample
// entries, or one entry in older runs) and a baseline timing file ({"level<L>": {"<P>_<Name>.py":
// {"mean": ms, ...}}}). Published files carry oddities (strings for numbers, NaN, missing fields, entries
// that are not objects): each becomes a warning naming the file and the entry, never a crash, and a value
// that cannot be read is absent rather than a made-up number. docs/candidates.md describes the import.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::agent::kernelbench {

struct SolutionName {
  int level = 0;
  int problem = 0;
  int sample = 0;
};
// "level_1_problem_19_sample_0_kernel.py" -> {1, 19, 0}; nullopt for any other name.
std::optional<SolutionName> parse_solution_name(const std::string& file_name);

// The leading number of a KernelBench problem file name ("19_ReLU.py" -> 19); nullopt without one.
std::optional<int> problem_number(const std::string& file_name);

// One sample's entry of eval_results.json.
struct EvalEntry {
  int problem = 0;
  int sample = 0;
  std::optional<bool> compiled;
  std::optional<bool> correct;
  std::optional<double> runtime_ms;   // absent when not measured (-1), unreadable or not finite
  std::string hardware;               // metadata.hardware, when given
  nlohmann::json raw;                 // the entry as read, bounded (bounded_json)
  std::vector<std::string> warnings;  // what was odd about this entry
};

struct EvalResults {
  std::vector<EvalEntry> entries;
  std::vector<std::string> warnings;  // what was odd about the file, and entries that could not be read
  int unreadable = 0;                 // entries skipped (not an object, no usable problem number, ...)
};

// Parses eval_results.json's text. An error only when the text is not a JSON object at all.
Result<EvalResults> parse_eval_results(const std::string& text, const std::string& origin);

struct BaselineEntry {
  double mean_ms = 0;
  std::string hardware;
};

class Baseline {
 public:
  // Parses a baseline timing file. An error when it is not a JSON object of "level<L>" objects.
  static Result<Baseline> parse(const std::string& text, const std::string& origin);
  // The mean for a problem: by its file name ("19_ReLU.py") under "level<L>", else by its number (with a
  // warning in `note`, as the dataset may have renamed the file). nullopt when neither gives a usable mean.
  std::optional<BaselineEntry> find(int level, const std::string& problem_file, std::string* note) const;
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::string& origin() const { return origin_; }

 private:
  std::map<int, std::map<std::string, BaselineEntry>> levels_;
  std::vector<std::string> warnings_;
  std::string origin_;
};

// Python's json module writes NaN, Infinity and -Infinity bare, which is not JSON: outside strings they
// are turned into the strings "NaN", "Infinity", "-Infinity" (read as non-finite numbers later).
// `replaced` counts them.
std::string python_json_to_json(const std::string& text, int* replaced = nullptr);

// A lenient number: a JSON number or a string holding one ("1.5", "NaN"). nullopt otherwise; `was_string`
// tells the caller to warn.
std::optional<double> lenient_number(const nlohmann::json& value, bool* was_string = nullptr);
// A lenient boolean: true/false, 0/1, or the strings "true"/"false"/"True"/"False"/"1"/"0".
std::optional<bool> lenient_bool(const nlohmann::json& value, bool* was_other = nullptr);

// `value` with every string cut to `max_string` characters and every array and object to `max_items`
// members (a marker says how many were dropped); deeper than 8 levels becomes "...". Bounds what an
// imported record carries of a published file.
nlohmann::json bounded_json(const nlohmann::json& value, size_t max_string = 1024, size_t max_items = 64);

}  // namespace kf::agent::kernelbench
