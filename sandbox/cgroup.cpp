#include "sandbox/cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sandbox/guardian.h"

namespace kf::sandbox {
namespace {

constexpr const char* kRoot = "/sys/fs/cgroup";

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

bool write_text(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "we");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<uint64_t> read_u64(const std::string& path) {
  auto t = read_text(path);
  if (!t || t->empty()) return std::nullopt;
  try {
    return std::stoull(*t);
  } catch (...) {
    return std::nullopt;
  }
}

// "key value" lines (memory.events, cpu.stat, memory.oom_control).
std::optional<uint64_t> read_key(const std::string& path, const std::string& key) {
  auto t = read_text(path);
  if (!t) return std::nullopt;
  std::istringstream in(*t);
  std::string k;
  uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

// This process's own group in one hierarchy ("" for v2's "0::" line).
std::optional<std::string> own_group(const std::string& controller) {
  auto t = read_text("/proc/self/cgroup");
  if (!t) return std::nullopt;
  std::istringstream in(*t);
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find(':');
    const auto b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string ctrls = line.substr(a + 1, b - a - 1);
    std::istringstream cs(ctrls);
    std::string c;
    bool match = controller.empty() ? ctrls.empty() : false;
    while (!controller.empty() && std::getline(cs, c, ','))
      if (c == controller) match = true;
    if (match) return line.substr(b + 1);
  }
  return std::nullopt;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

JobCgroup::JobCgroup(JobCgroup&& o) noexcept { *this = std::move(o); }

JobCgroup& JobCgroup::operator=(JobCgroup&& o) noexcept {
  if (this != &o) {
    destroy();
    v2_ = o.v2_;
    v2_dir_ = std::move(o.v2_dir_);
    memory_dir_ = std::move(o.memory_dir_);
    pids_dir_ = std::move(o.pids_dir_);
    cpuacct_dir_ = std::move(o.cpuacct_dir_);
    freezer_dir_ = std::move(o.freezer_dir_);
    procs_files_ = std::move(o.procs_files_);
    kill_dirs_ = std::move(o.kill_dirs_);
    created_ = std::move(o.created_);
    missing_ = std::move(o.missing_);
    memory_limited_ = o.memory_limited_;
    pids_limited_ = o.pids_limited_;
    o.created_.clear();
  }
  return *this;
}

JobCgroup::~JobCgroup() { destroy(); }

JobCgroup JobCgroup::create(const std::string& name, uint64_t memory_bytes, int max_processes) {
  JobCgroup g;
  if (exists(std::string(kRoot) + "/cgroup.controllers")) {
    g.v2_ = true;
    // Our own group usually holds processes, so it cannot delegate controllers (the "no internal
    // processes" rule); a sibling "kforge" group directly under the root can.
    const std::string base = std::string(kRoot) + "/kforge";
    ::mkdir(base.c_str(), 0755);
    write_text(std::string(kRoot) + "/cgroup.subtree_control", "+memory +pids +cpu");
    write_text(base + "/cgroup.subtree_control", "+memory +pids +cpu");
    const std::string dir = base + "/" + name;
    if (::mkdir(dir.c_str(), 0755) != 0) {
      g.missing_.push_back("per-job cgroup (v2 mkdir under " + base + ": " + errno_text() +
                           "): memory limit, process cap and group kill");
      return g;
    }
    g.created_.push_back(dir);
    guardian::guard_group(dir);
    if (!exists(dir + "/cgroup.procs")) {
      g.missing_.push_back("per-job cgroup (groups under " + base +
                           " have no cgroup.procs): memory limit, process cap and group kill");
      return g;
    }
    g.v2_dir_ = dir;
    g.procs_files_.push_back(dir + "/cgroup.procs");
    g.kill_dirs_.push_back(dir);
    if (write_text(dir + "/memory.max", std::to_string(memory_bytes))) {
      write_text(dir + "/memory.swap.max", "0");
      g.memory_limited_ = true;
    } else {
      g.missing_.push_back("cgroup memory limit (memory controller not delegated)");
    }
    if (write_text(dir + "/pids.max", std::to_string(max_processes)))
      g.pids_limited_ = true;
    else
      g.missing_.push_back("cgroup process cap (pids controller not delegated)");
    return g;
  }
  // v1: one group per controller, nested under our own group in that hierarchy.
  auto make = [&](const std::string& controller) -> std::string {
    const std::string mount = std::string(kRoot) + "/" + controller;
    if (!exists(mount + "/cgroup.procs")) return {};
    auto own = own_group(controller);
    std::string parent = mount + (own && *own != "/" ? *own : "");
    std::string dir = parent + "/kforge-" + name;
    if (::mkdir(dir.c_str(), 0755) != 0) return {};
    g.created_.push_back(dir);
    guardian::guard_group(dir);
    if (!exists(dir + "/cgroup.procs")) return {};  // a group nobody can join (seen on gVisor)
    g.procs_files_.push_back(dir + "/cgroup.procs");
    g.kill_dirs_.push_back(dir);
    return dir;
  };
  g.memory_dir_ = make("memory");
  if (!g.memory_dir_.empty() && write_text(g.memory_dir_ + "/memory.limit_in_bytes", std::to_string(memory_bytes))) {
    write_text(g.memory_dir_ + "/memory.memsw.limit_in_bytes", std::to_string(memory_bytes));
    g.memory_limited_ = true;
  } else {
    g.missing_.push_back("cgroup memory limit (v1 memory controller unavailable)");
  }
  g.pids_dir_ = make("pids");
  if (!g.pids_dir_.empty() && write_text(g.pids_dir_ + "/pids.max", std::to_string(max_processes)))
    g.pids_limited_ = true;
  else
    g.missing_.push_back("cgroup process cap (v1 pids controller unavailable)");
  g.cpuacct_dir_ = make("cpuacct");
  g.freezer_dir_ = make("freezer");
  return g;
}

std::optional<uint64_t> JobCgroup::peak_memory_bytes() const {
  if (v2_) return read_u64(v2_dir_ + "/memory.peak");
  if (!memory_dir_.empty()) return read_u64(memory_dir_ + "/memory.max_usage_in_bytes");
  return std::nullopt;
}

std::optional<double> JobCgroup::cpu_seconds() const {
  if (v2_) {
    auto us = read_key(v2_dir_ + "/cpu.stat", "usage_usec");
    if (us) return static_cast<double>(*us) / 1e6;
    return std::nullopt;
  }
  if (!cpuacct_dir_.empty()) {
    auto ns = read_u64(cpuacct_dir_ + "/cpuacct.usage");
    if (ns) return static_cast<double>(*ns) / 1e9;
  }
  return std::nullopt;
}

bool JobCgroup::oom_killed() const {
  if (v2_) return read_key(v2_dir_ + "/memory.events", "oom_kill").value_or(0) > 0;
  if (!memory_dir_.empty()) {
    if (read_key(memory_dir_ + "/memory.oom_control", "oom_kill").value_or(0) > 0) return true;
    return read_u64(memory_dir_ + "/memory.failcnt").value_or(0) > 0 &&
           read_key(memory_dir_ + "/memory.oom_control", "under_oom").value_or(0) > 0;
  }
  return false;
}

std::vector<std::string> JobCgroup::add_process(pid_t pid) const {
  std::vector<std::string> failed;
  for (const auto& file : procs_files_) {
    if (!write_text(file, std::to_string(pid)))
      // Named by hierarchy, not by job, so that the launcher can warn about it once.
      failed.push_back("cgroup " + std::filesystem::path(file).parent_path().parent_path().string() +
                       " (cannot join a job's group: " + errno_text() + "): its limits do not apply");
  }
  return failed;
}

void JobCgroup::kill_all() const {
  if (v2_ && !v2_dir_.empty() && write_text(v2_dir_ + "/cgroup.kill", "1")) return;
  const bool frozen = !freezer_dir_.empty() && write_text(freezer_dir_ + "/freezer.state", "FROZEN");
  for (int round = 0; round < 50; ++round) {
    bool any = false;
    for (const auto& dir : kill_dirs_) {
      auto t = read_text(dir + "/cgroup.procs");
      if (!t) continue;
      std::istringstream in(*t);
      long pid = 0;
      while (in >> pid) {
        any = true;
        ::kill(static_cast<pid_t>(pid), SIGKILL);
      }
    }
    if (!any) break;
    if (frozen) break;  // frozen processes cannot fork; one pass reaches all of them
  }
  if (frozen) write_text(freezer_dir_ + "/freezer.state", "THAWED");
}

bool JobCgroup::freeze(double timeout_s) const {
  // A group the job never joined (seen on gVisor) would report frozen with nothing in it.
  if (pids().empty()) return false;
  if (v2_ && !v2_dir_.empty()) {
    if (!write_text(v2_dir_ + "/cgroup.freeze", "1")) return false;
  } else if (!freezer_dir_.empty()) {
    if (!write_text(freezer_dir_ + "/freezer.state", "FROZEN")) return false;
  } else {
    return false;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (int spin = 0;; ++spin) {
    bool frozen = v2_ ? read_key(v2_dir_ + "/cgroup.events", "frozen").value_or(0) == 1
                      : read_text(freezer_dir_ + "/freezer.state").value_or("").rfind("FROZEN", 0) == 0;
    if (frozen) return true;
    if (std::chrono::steady_clock::now() > until) {
      thaw();
      return false;
    }
    if (spin > 20) ::usleep(50);
  }
}

void JobCgroup::thaw() const {
  if (v2_ && !v2_dir_.empty())
    write_text(v2_dir_ + "/cgroup.freeze", "0");
  else if (!freezer_dir_.empty())
    write_text(freezer_dir_ + "/freezer.state", "THAWED");
}

std::vector<pid_t> JobCgroup::pids() const {
  std::vector<pid_t> out;
  for (const auto& dir : kill_dirs_) {
    auto t = read_text(dir + "/cgroup.procs");
    if (!t) continue;
    std::istringstream in(*t);
    long pid = 0;
    while (in >> pid)
      if (std::find(out.begin(), out.end(), static_cast<pid_t>(pid)) == out.end())
        out.push_back(static_cast<pid_t>(pid));
  }
  return out;
}

bool JobCgroup::empty() const {
  for (const auto& dir : kill_dirs_) {
    auto t = read_text(dir + "/cgroup.procs");
    if (t && t->find_first_not_of(" \n") != std::string::npos) return false;
  }
  return true;
}

void JobCgroup::destroy() {
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    // A group whose last process is still being torn down refuses rmdir for a moment.
    bool removed = false;
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (::rmdir(it->c_str()) == 0 || errno == ENOENT) {
        removed = true;
        break;
      }
      if (errno != EBUSY) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (removed) guardian::release_group(*it);  // else the guardian removes it when kforge ends
  }
  created_.clear();
}

}  // namespace kf::sandbox
