#include "agent/claims/reverify_journal.h"

#include <filesystem>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "corpus/record.h"

namespace kf::agent {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

std::string journal_path(const std::string& dir) { return (fs::path(dir) / kReverifyJournalFile).string(); }

json header_json(const ReverifyJournalHeader& h) {
  return {{"reverify_journal", 1}, {"seed", h.seed}, {"backend", h.backend}, {"started_at", h.started_at}};
}

std::optional<ReverifyJournalHeader> header_of(const json& j) {
  if (!j.is_object() || !j.contains("reverify_journal")) return std::nullopt;
  auto seed = j.find("seed");
  auto backend = j.find("backend");
  if (seed == j.end() || !seed->is_number_unsigned() || backend == j.end() || !backend->is_string())
    return std::nullopt;
  ReverifyJournalHeader h;
  h.seed = seed->get<uint64_t>();
  h.backend = backend->get<std::string>();
  if (auto at = j.find("started_at"); at != j.end() && at->is_string()) h.started_at = at->get<std::string>();
  return h;
}

}  // namespace

Result<std::optional<ReverifyJournal::Contents>> ReverifyJournal::load(const std::string& dir) {
  const std::string path = journal_path(dir);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::optional<Contents>();
  auto text = read_file(path);
  if (!text) return text.error();
  std::istringstream in(*text);
  std::string line;
  Contents c;
  bool have_header = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (!have_header) {
      auto h = header_of(j);
      if (!h)
        return make_error("reverify.journal", path +
                                                  " does not start with a reverify journal's header: remove it "
                                                  "(or pass --restart) to re-verify from the start");
      c.header = *h;
      have_header = true;
      continue;
    }
    if (!j.is_object()) {
      ++c.dropped_lines;
      continue;
    }
    if (auto e = j.find("entry"); e != j.end()) {
      if (auto entry = ReverifyEntry::from_json(*e))
        c.entries.push_back(std::move(*entry));
      else
        ++c.dropped_lines;
    } else if (j.contains("finished_at")) {
      c.finished = true;
    } else {
      ++c.dropped_lines;
    }
  }
  if (!have_header)
    return make_error("reverify.journal",
                      path + " is empty: remove it (or pass --restart) to re-verify from the start");
  return std::optional<Contents>(std::move(c));
}

Result<ReverifyJournal> ReverifyJournal::start(const std::string& dir, const ReverifyJournalHeader& header) {
  ReverifyJournal j(journal_path(dir));
  if (auto st = write_file_atomic(j.path_, header_json(header).dump() + "\n"); !st) return st.error();
  return j;
}

Result<ReverifyJournal> ReverifyJournal::resume(const std::string& dir, const Contents& contents) {
  ReverifyJournal j(journal_path(dir));
  std::string text = header_json(contents.header).dump() + "\n";
  for (const auto& e : contents.entries) text += json{{"entry", e.to_json()}}.dump() + "\n";
  if (auto st = write_file_atomic(j.path_, text); !st) return st.error();
  return j;
}

Status ReverifyJournal::append(const ReverifyEntry& entry) {
  return append_line_durable(path_, json{{"entry", entry.to_json()}}.dump());
}

Status ReverifyJournal::finish() {
  return append_line_durable(path_, json{{"finished_at", corpus::utc_now_iso()}}.dump());
}

}  // namespace kf::agent
