#include "sandbox/guardian.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "core/log.h"
#include "sandbox/namespaces.h"
#include "sandbox/reclaim.h"

namespace kf::sandbox::guardian {
namespace {

// One message: an operation byte and a NUL-terminated path, one datagram of a SOCK_SEQPACKET pair (a
// socket, not a pipe: a guardian that died must not kill kforge with SIGPIPE).
constexpr size_t kMessage = 512;
enum Op : char { add_group = 'G', drop_group = 'g', add_folder = 'F', drop_folder = 'f' };

struct Entry {
  char kind = 0;  // 'G' or 'F'; 0 = free
  char path[kMessage] = {};
};
// The guardian's list. Static storage: the guardian process must not allocate (it is forked from a
// threaded process); in kforge itself these pages are never touched.
constexpr int kEntries = 2048;
Entry g_entries[kEntries];

void remember(char kind, const char* path) {
  for (auto& e : g_entries)
    if (e.kind == 0) {
      e.kind = kind;
      std::memcpy(e.path, path, kMessage);
      return;
    }
  // Full: the next sweep takes care of it.
}

void forget(char kind, const char* path) {
  for (auto& e : g_entries)
    if (e.kind == kind && std::strncmp(e.path, path, kMessage) == 0) {
      e.kind = 0;
      return;
    }
}

[[noreturn]] void guardian_main(int fd) {
  ::setsid();  // no terminal's Ctrl-C reaches it
  ::prctl(PR_SET_NAME, "kforge-guard", 0, 0, 0);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2})
    ::sigaction(sig, &ign, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Nothing of kforge's stays open here (a pipe of kforge's held open would keep its reader waiting).
  if (fd > 0) ::syscall(SYS_close_range, 0U, static_cast<unsigned>(fd) - 1, 0U);
  ::syscall(SYS_close_range, static_cast<unsigned>(fd) + 1, ~0U, 0U);

  char msg[kMessage];
  for (;;) {
    const ssize_t n = ::recv(fd, msg, kMessage, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // kforge is gone
    if (n != static_cast<ssize_t>(kMessage)) continue;
    msg[kMessage - 1] = 0;
    char path_buf[kMessage] = {};
    std::memcpy(path_buf, msg + 1, kMessage - 1);
    switch (msg[0]) {
      case add_group: remember('G', path_buf); break;
      case drop_group: forget('G', path_buf); break;
      case add_folder: remember('F', path_buf); break;
      case drop_folder: forget('F', path_buf); break;
      default: break;
    }
  }
  // First let every frozen group run to its processes' death (a v1 job has one group per hierarchy, and
  // only the freezer's thaw releases the others), then remove the groups and the folders.
  for (auto& e : g_entries)
    if (e.kind == 'G') reclaim::kill_and_thaw(e.path);
  for (auto& e : g_entries)
    if (e.kind == 'G') reclaim::remove_group(e.path);
  for (auto& e : g_entries)
    if (e.kind == 'F') reclaim::remove_tree(e.path);
  ::_exit(0);
}

std::mutex g_mutex;
int g_socket = -1;
std::atomic<int> g_pid{0};
bool g_start_failed = false;

// Forks the guardian (twice, so that it is not kforge's child and needs no reaping). Called with g_mutex.
bool start() {
  if (g_socket >= 0) return true;
  if (g_start_failed) return false;
  int p[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) != 0) {
    g_start_failed = true;
    return false;
  }
  const pid_t middle = raw_clone(0);
  if (middle == 0) {
    ::close(p[1]);
    const pid_t guardian = raw_clone(0);
    if (guardian == 0) guardian_main(p[0]);
    // The guardian's PID to kforge, over the guardian's own end of the pair.
    const int32_t id = guardian;
    ssize_t ignored = ::send(p[0], &id, sizeof id, MSG_NOSIGNAL);
    (void)ignored;
    ::_exit(guardian > 0 ? 0 : 1);
  }
  ::close(p[0]);
  int status = 0;
  int32_t id = 0;
  if (middle < 0 || ::waitpid(middle, &status, 0) != middle || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      ::recv(p[1], &id, sizeof id, 0) != static_cast<ssize_t>(sizeof id)) {
    ::close(p[1]);
    g_start_failed = true;
    return false;
  }
  g_socket = p[1];
  g_pid = id;
  log::debug("sandbox: guardian process " + std::to_string(id) +
             " takes back this process's jobs and folders if it ends without doing so");
  return true;
}

void send(char op, const std::string& path) {
  if (path.empty() || path.size() >= kMessage - 1) return;
  std::lock_guard lock(g_mutex);
  if (!start()) return;
  char msg[kMessage] = {};
  msg[0] = op;
  std::memcpy(msg + 1, path.data(), path.size());
  ssize_t n;
  while ((n = ::send(g_socket, msg, kMessage, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
}

}  // namespace

void guard_group(const std::string& dir) { send(add_group, dir); }
void guard_folder(const std::string& path) { send(add_folder, path); }
void release_group(const std::string& dir) { send(drop_group, dir); }
void release_folder(const std::string& path) { send(drop_folder, path); }
int process_id() { return g_pid.load(); }

}  // namespace kf::sandbox::guardian
