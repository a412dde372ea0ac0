// Job::Impl::prepare: everything decided before the clone (namespaces, cgroup, mounts, environment,
// limits, pipes), so that the child only carries it out.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "sandbox/guardian.h"
#include "sandbox/job_impl.h"
#include "sandbox/job_setup.h"
#include "sandbox/leftovers.h"
#include "sandbox/mount_plan.h"
#include "sandbox/namespaces.h"

namespace kf::sandbox {

Status Job::Impl::prepare() {
  static std::once_flag swept;
  std::call_once(swept, sweep_leftovers);
  if (spec.argv.empty()) return make_error("sandbox.bad_spec", "sandbox: empty argv; pass the program to run");
  std::error_code ec;
  if (spec.workdir.empty() || !std::filesystem::is_directory(spec.workdir, ec))
    return make_error("sandbox.bad_spec",
                      "sandbox: job folder '" + spec.workdir + "' is not a directory; create it before launching");
  for (int fd : spec.pass_fds)
    if (fd < 3 || ::fcntl(fd, F_GETFD) < 0)
      return make_error("sandbox.bad_spec",
                        "sandbox: pass_fds entry " + std::to_string(fd) + " is not an open descriptor >= 3");
  workdir = std::filesystem::canonical(spec.workdir, ec).string();
  exe = resolve_exe(spec.argv[0], spec.env);
  if (exe.empty()) {
    out.status = Outcome::Status::launch_failed;
    out.launch_error = "program '" + spec.argv[0] + "' not found in the job's PATH";
    return ok_status();
  }

  if (spec.namespaces) {
    const auto& support = namespace_support();
    plan.clone_flags = support.flags;
    out.missing_protections = support.missing;
    if (!spec.pid_namespace && (plan.clone_flags & CLONE_NEWPID)) {
      plan.clone_flags &= ~CLONE_NEWPID;
      out.missing_protections.push_back(std::string(kNamespaces[0].name) + " disabled by Spec.pid_namespace");
    }
  } else {
    for (const auto& ns : kNamespaces)
      out.missing_protections.push_back(std::string(ns.name) + " disabled by Spec.namespaces");
  }
  plan.pid_ns = plan.clone_flags & CLONE_NEWPID;
  plan.mount_ns = plan.clone_flags & CLONE_NEWNS;
  // The cgroup namespace is entered after the child has joined the job's groups: some kernels
  // (gVisor) resolve /sys/fs/cgroup paths relative to the namespace's root.
  plan.cgroup_ns = plan.clone_flags & CLONE_NEWCGROUP;
  plan.clone_flags &= ~CLONE_NEWCGROUP;

  cgroup = JobCgroup::create(job_name(), spec.limits.memory_bytes, spec.limits.processes);
  for (const auto& m : cgroup.missing()) out.missing_protections.push_back(m);

  if (plan.mount_ns) {
    std::string tmpl_text = "/tmp/kforge-root-" + owner_tag() + "-XXXXXX";
    std::vector<char> tmpl(tmpl_text.begin(), tmpl_text.end());
    tmpl.push_back(0);
    if (::mkdtemp(tmpl.data()) == nullptr)
      return make_error("sandbox.setup",
                        std::string("sandbox: cannot create a mount point in /tmp: ") + std::strerror(errno));
    root_dir = tmpl.data();
    guardian::guard_folder(root_dir);
    MountPlanInput in;
    in.root = root_dir;
    in.workdir = workdir;
    in.readonly_paths = spec.readonly_paths;
    if (!under_system_paths(exe)) in.readonly_paths.push_back(exe);  // the program itself is always visible
    in.writable_paths = spec.writable_paths;
    in.allow_gpu = spec.allow_gpu;
    in.mount_proc = plan.pid_ns;
    in.expose_zero_and_random = spec.profile != Profile::compile;
    in.tmp_bytes = std::min<uint64_t>(spec.limits.memory_bytes, 4ull << 30);
    mounts = plan_mounts(in);
    plan.mounts = &mounts;
    plan.root = root_dir.c_str();
  }

  std::map<std::string, std::string> env = spec.env;
  if (!env.count("TMPDIR")) env["TMPDIR"] = plan.mount_ns ? "/tmp" : workdir;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  argv_strings = spec.argv;
  for (auto& s : argv_strings) plan.argv.push_back(s.data());
  plan.argv.push_back(nullptr);
  for (auto& s : env_strings) plan.envp.push_back(s.data());
  plan.envp.push_back(nullptr);
  plan.exe = exe.c_str();
  plan.workdir = workdir.c_str();

  const bool root = ::geteuid() == 0;
  plan.drop_privileges = root;
  plan.uid = spec.run_as_uid;
  plan.gid = spec.run_as_gid;
  if (root) chown_tree(workdir, plan.uid, plan.gid);

  const auto& L = spec.limits;
  const rlim_t cpu = static_cast<rlim_t>(std::max(1.0, std::ceil(L.cpu_s)));
  plan.limits.push_back({RLIMIT_CPU, cpu, cpu + 1});
  plan.limits.push_back({RLIMIT_FSIZE, L.file_size_bytes, L.file_size_bytes});
  plan.limits.push_back({RLIMIT_NOFILE, static_cast<rlim_t>(L.open_files), static_cast<rlim_t>(L.open_files)});
  plan.limits.push_back({RLIMIT_CORE, 0, 0});
  if (!cgroup.limits_processes()) {
    // Counted per user, so concurrent jobs of the same user share it: only a fallback.
    plan.limits.push_back({RLIMIT_NPROC, static_cast<rlim_t>(L.processes), static_cast<rlim_t>(L.processes)});
    if (!plan.drop_privileges && root) out.missing_protections.push_back("process cap (root ignores RLIMIT_NPROC)");
  }
  if (!cgroup.limits_memory()) {
    if (spec.profile == Profile::compile)
      plan.limits.push_back({RLIMIT_AS, L.memory_bytes, L.memory_bytes});
    else
      out.missing_protections.push_back("host memory limit (no cgroup; RLIMIT_AS would break CUDA)");
  }

  if (!make_pipe(in_p) || !make_pipe(out_p) || !make_pipe(err_p) || !make_pipe(report_p) || !make_pipe(status_p) ||
      !make_pipe(go_p))
    return make_error("sandbox.setup", std::string("sandbox: cannot create pipes: ") + std::strerror(errno) +
                                           "; raise kforge's open-file limit");
  plan.stdin_r = in_p.r;
  plan.stdout_w = out_p.w;
  plan.stderr_w = err_p.w;
  plan.err_w = report_p.w;
  plan.status_w = status_p.w;
  plan.go_r = go_p.r;
  plan.pass_fds = spec.pass_fds;
  plan.job_keep = spec.pass_fds;
  plan.job_keep.push_back(report_p.w);
  std::sort(plan.job_keep.begin(), plan.job_keep.end());
  plan.init_keep = {status_p.w};
  return ok_status();
}

}  // namespace kf::sandbox
