#include "sandbox/mount_plan.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <set>

namespace kf::sandbox {
namespace {

bool lstat_ok(const std::string& p, struct stat& st) { return ::lstat(p.c_str(), &st) == 0; }

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  if (::realpath(p.c_str(), buf) == nullptr) return {};
  return buf;
}

class Planner {
 public:
  explicit Planner(std::string root) : root_(std::move(root)) {}

  void ensure_dir(const std::string& path) {  // path is a host-style absolute path
    std::string acc;
    size_t pos = 1;
    while (pos <= path.size()) {
      size_t next = path.find('/', pos);
      if (next == std::string::npos) next = path.size();
      acc += "/" + path.substr(pos, next - pos);
      if (dirs_.insert(acc).second) ops_.push_back({MountOp::Kind::mkdir, root_ + acc, {}, false});
      pos = next + 1;
    }
  }
  void ensure_parent(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash > 0) ensure_dir(path.substr(0, slash));
  }

  // Binds `path` (resolving symlinks) at the same place; a symlinked path also gets its link.
  void bind(const std::string& path, MountOp::Kind kind) {
    struct stat st {};
    if (!lstat_ok(path, st)) return;
    if (S_ISLNK(st.st_mode)) {
      char buf[PATH_MAX];
      const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
      if (n > 0) {
        buf[n] = 0;
        link(path, buf);
      }
      const std::string real = real_path(path);
      if (!real.empty() && real != path) bind(real, kind);
      return;
    }
    const std::string real = real_path(path);
    if (real.empty()) return;
    if (!bound_.insert(real).second) return;
    if (S_ISDIR(st.st_mode)) {
      ensure_dir(real);
    } else {
      ensure_parent(real);
      ops_.push_back({MountOp::Kind::touch, root_ + real, {}, true});
    }
    binds_.push_back({kind, root_ + real, real, false});
  }

  void link(const std::string& path, const std::string& text) {
    if (!links_.insert(path).second) return;
    ensure_parent(path);
    links_ops_.push_back({MountOp::Kind::symlink, root_ + path, text, true});
  }

  void tmpfs(const std::string& path, const std::string& options) {
    ensure_dir(path);
    ops_.push_back({MountOp::Kind::tmpfs, root_ + path, options, false});
  }

  void device(const std::string& path) {
    struct stat st {};
    if (!lstat_ok(path, st)) return;
    if (S_ISDIR(st.st_mode)) {
      ensure_dir(path);
      devs_.push_back({MountOp::Kind::bind_dev, root_ + path, path, false});
      return;
    }
    devs_.push_back({MountOp::Kind::touch, root_ + path, {}, false});
    devs_.push_back({MountOp::Kind::bind_dev, root_ + path, path, false});
  }

  void proc() {
    ensure_dir("/proc");
    ops_.push_back({MountOp::Kind::proc, root_ + "/proc", {}, false});
  }

  std::vector<MountOp> finish() {
    // Parents are bound before children so that a nested bind is not hidden by its parent.
    std::stable_sort(binds_.begin(), binds_.end(), [](const MountOp& a, const MountOp& b) {
      return std::count(a.target.begin(), a.target.end(), '/') < std::count(b.target.begin(), b.target.end(), '/');
    });
    std::vector<MountOp> out = ops_;
    out.insert(out.end(), binds_.begin(), binds_.end());
    out.insert(out.end(), devs_.begin(), devs_.end());
    out.insert(out.end(), links_ops_.begin(), links_ops_.end());
    return out;
  }

 private:
  std::string root_;
  std::set<std::string> dirs_, bound_, links_;
  std::vector<MountOp> ops_, binds_, devs_, links_ops_;
};

}  // namespace

const std::vector<std::string>& system_readonly_paths() {
  // clang-format off
  static const std::vector<std::string> paths = {
      "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
      "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ld.so.cache",
      "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
  };
  // clang-format on
  return paths;
}

std::vector<MountOp> plan_mounts(const MountPlanInput& in) {
  Planner p(in.root);
  // /tmp, /dev/shm and /dev are fresh tmpfs mounts, created first so binds can go on top.
  const std::string size = "size=" + std::to_string(in.tmp_bytes);
  p.tmpfs("/tmp", "mode=1777," + size);
  p.tmpfs("/dev", "mode=755,size=1m");
  p.tmpfs("/dev/shm", "mode=1777," + size);
  if (in.mount_proc) p.proc();
  for (const auto& path : system_readonly_paths()) p.bind(path, MountOp::Kind::bind_ro);
  for (const auto& path : in.readonly_paths) p.bind(path, MountOp::Kind::bind_ro);
  for (const auto& path : in.writable_paths) p.bind(path, MountOp::Kind::bind_rw);
  p.bind(in.workdir, MountOp::Kind::bind_rw);
  if (in.allow_gpu) p.bind("/sys", MountOp::Kind::bind_ro);

  p.device("/dev/null");
  if (in.expose_zero_and_random) {
    p.device("/dev/zero");
    p.device("/dev/urandom");
    p.device("/dev/random");
  }
  if (in.allow_gpu) {
    if (DIR* d = ::opendir("/dev")) {
      std::vector<std::string> names;
      while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n.rfind("nvidia", 0) == 0) names.push_back(n);
      }
      ::closedir(d);
      std::sort(names.begin(), names.end());
      for (const auto& n : names) p.device("/dev/" + n);
    }
  }
  p.link("/dev/fd", "/proc/self/fd");
  p.link("/dev/stdin", "/proc/self/fd/0");
  p.link("/dev/stdout", "/proc/self/fd/1");
  p.link("/dev/stderr", "/proc/self/fd/2");
  return p.finish();
}

}  // namespace kf::sandbox
