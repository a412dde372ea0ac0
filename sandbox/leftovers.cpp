#include "sandbox/leftovers.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "sandbox/guardian.h"
#include "sandbox/proc_stat.h"
#include "sandbox/reclaim.h"

namespace kf::sandbox {
namespace fs = std::filesystem;
namespace {

// The start time of a process as names carry it; "" when the process is gone.
std::string start_time(pid_t pid) {
  const auto status = ProcStat::read(pid);
  return status ? std::to_string(status->start_ticks) : std::string();
}

// Names under DIR that start with PREFIX and whose owner is gone.
std::vector<fs::path> stale_under(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && owner_gone(name.substr(prefix.size()))) out.push_back(e.path());
  }
  return out;
}

}  // namespace

const std::string& owner_tag() {
  static const std::string tag = std::to_string(::getpid()) + "." + start_time(::getpid());
  return tag;
}

bool owner_gone(const std::string& rest) {
  char* end = nullptr;
  const long pid = std::strtol(rest.c_str(), &end, 10);
  // Not a name kforge made (mkdtemp's random part has neither '.' nor '-').
  if (pid <= 0 || end == rest.c_str() || (*end != '.' && *end != '-')) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  if (*end != '.') return false;  // the older form names the PID only: alive as far as we can tell
  const std::string start(end + 1, std::strcspn(end + 1, "-"));
  const std::string now = start_time(static_cast<pid_t>(pid));
  return !now.empty() && now != start;  // the PID was reused by another process
}

Result<std::string> make_owned_folder(const std::string& root, const std::string& prefix) {
  std::string tmpl = root + "/" + prefix + "-" + owner_tag() + "-XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    return make_error("sandbox.folder", "cannot create a private folder under " + root + ": " + std::strerror(errno));
  guardian::guard_folder(tmpl);
  return tmpl;
}

void remove_owned_folder(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) reclaim::remove_tree(path.c_str());
  if (!fs::exists(path, ec)) guardian::release_folder(path);  // else the guardian tries again at the end
}

void sweep_leftovers() {
  std::error_code ec;
  // Job groups: v1 "kforge-job-<owner>-N" in each hierarchy (under kforge's own group there), v2
  // "kforge/job-<owner>-N".
  std::vector<fs::path> groups;
  for (const auto& ctrl : fs::directory_iterator("/sys/fs/cgroup", ec)) {
    std::error_code ec2;
    for (auto it = fs::recursive_directory_iterator(ctrl.path(), ec2); !ec2 && it != fs::recursive_directory_iterator();
         it.increment(ec2)) {
      if (!it->is_directory(ec2)) continue;
      const std::string name = it->path().filename().string();
      const bool v1 = name.rfind("kforge-job-", 0) == 0 && owner_gone(name.substr(11));
      const bool v2 =
          name.rfind("job-", 0) == 0 && it->path().parent_path().filename() == "kforge" && owner_gone(name.substr(4));
      if (v1 || v2) {
        groups.push_back(it->path());
        it.disable_recursion_pending();
      }
    }
  }
  // Every frozen group first runs to its processes' death (the freezer's thaw releases the others).
  for (const auto& g : groups) reclaim::kill_and_thaw(g.c_str());
  for (const auto& g : groups) reclaim::remove_group(g.c_str());
  for (const auto& p : stale_under("/tmp", "kforge-root-")) ::rmdir(p.c_str());
  std::vector<fs::path> roots{"/dev/shm"};
  const fs::path tmp = fs::temp_directory_path(ec);
  if (!ec && tmp != "/dev/shm") roots.push_back(tmp);
  for (const auto& root : roots)
    for (const char* prefix : {"kforge-eval-", "kforge-oracle-"})
      for (const auto& p : stale_under(root, prefix)) reclaim::remove_tree(p.c_str());
}

}  // namespace kf::sandbox
