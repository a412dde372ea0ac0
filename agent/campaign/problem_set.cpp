#include "agent/campaign/problem_set.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "agent/campaign/category.h"
#include "core/files.h"
#include "core/hash.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

// "19_ReLU" sorts before "100_HingeLoss": by the leading number when both have one.
bool problem_order(const fs::path& a, const fs::path& b) {
  auto num = [](const std::string& s) -> long {
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return (i > 0 && i < 10) ? std::stol(s.substr(0, i)) : -1;
  };
  long na = num(a.stem().string()), nb = num(b.stem().string());
  if (na != nb) return na < nb;
  return a.filename() < b.filename();
}

Status add_entry(const std::string& entry, std::vector<fs::path>& out) {
  fs::path p(entry);
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".py") found.push_back(e.path());
    if (found.empty()) return make_error("problems.empty", "no *.py problem files in folder '" + entry + "'");
    std::sort(found.begin(), found.end(), problem_order);
    out.insert(out.end(), found.begin(), found.end());
    return ok_status();
  }
  if (!fs::exists(p, ec)) return make_error("problems.missing", "problem path '" + entry + "' does not exist");
  if (p.extension() == ".py") {
    out.push_back(p);
    return ok_status();
  }
  auto text = read_file(entry);
  if (!text) return text.error();
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    auto e = line.find_last_not_of(" \t\r");
    fs::path item = line.substr(b, e - b + 1);
    if (item.is_relative()) item = p.parent_path() / item;
    if (auto st = add_entry(item.string(), out); !st) return st;
  }
  return ok_status();
}

}  // namespace

Result<ProblemInfo> load_problem(const std::string& path) {
  auto text = read_file(path);
  if (!text) return make_error("problems.unreadable", "cannot read problem file '" + path + "'");
  ProblemInfo p;
  p.path = fs::absolute(path).lexically_normal().string();
  p.name = fs::path(path).stem().string();
  p.source = *text;
  p.file_hash = sha256_hex(*text);
  p.category = categorize_problem(fs::path(path).filename().string(), *text);
  return p;
}

Result<std::vector<ProblemInfo>> load_problem_set(const std::string& spec) {
  std::vector<fs::path> files;
  std::stringstream ss(spec);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.empty()) continue;
    if (auto st = add_entry(part, files); !st) return st.error();
  }
  if (files.empty()) return make_error("problems.empty", "--problems '" + spec + "' names no problem files");
  std::vector<ProblemInfo> problems;
  std::map<std::string, std::string> seen;
  for (const auto& f : files) {
    auto p = load_problem(f.string());
    if (!p) return p.error();
    auto [it, inserted] = seen.emplace(p->name, p->path);
    if (!inserted) {
      if (it->second == p->path) continue;
      return make_error("problems.duplicate_name", "two problem files share the name '" + p->name + "': " + it->second +
                                                       " and " + p->path + "; rename one");
    }
    problems.push_back(std::move(*p));
  }
  return problems;
}

}  // namespace kf::agent
