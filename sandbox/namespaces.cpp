#include "sandbox/namespaces.h"

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/log.h"

namespace kf::sandbox {

pid_t raw_clone(int flags) {
  return static_cast<pid_t>(
      ::syscall(SYS_clone, static_cast<unsigned long>(flags) | SIGCHLD, nullptr, nullptr, nullptr, 0UL));
}

namespace {

bool probe(int flags) {
  const pid_t pid = raw_clone(flags);
  if (pid == 0) ::_exit(0);
  if (pid < 0) return false;
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

}  // namespace

const NamespaceSupport& namespace_support() {
  static NamespaceSupport support = [] {
    NamespaceSupport s;
    int all = 0;
    for (const auto& ns : kNamespaces) all |= ns.flag;
    if (probe(all)) {
      s.flags = all;
      return s;
    }
    for (const auto& ns : kNamespaces) {
      if (probe(ns.flag)) {
        s.flags |= ns.flag;
      } else {
        s.missing.push_back(std::string(ns.name) + " unavailable: " + std::strerror(errno));
      }
    }
    // The minimal root needs /proc from a PID namespace; without one /proc is left out.
    for (const auto& m : s.missing) log::warn("sandbox: " + m);
    return s;
  }();
  return support;
}

std::string read_ns_id(pid_t pid) {
  char buf[64] = {0};
  const std::string link = "/proc/" + std::to_string(pid) + "/ns/pid";
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace kf::sandbox
