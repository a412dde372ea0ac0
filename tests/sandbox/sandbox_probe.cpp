// Helper program run inside the sandbox by the tests: each mode tries one thing and reports.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  if (mode == "memhog") {
    // Touches memory until killed (or the given number of MiB is reached).
    const long mib = argc > 2 ? std::atol(argv[2]) : 1L << 20;
    std::vector<char*> blocks;
    for (long i = 0; i < mib; ++i) {
      char* b = static_cast<char*>(std::malloc(1 << 20));
      if (!b) return 10;
      std::memset(b, 1, 1 << 20);
      blocks.push_back(b);
    }
    std::puts("survived");
    return 0;
  }
  if (mode == "forkbomb") {
    int made = 0;
    for (int i = 0; i < 10000; ++i) {
      const pid_t p = fork();
      if (p == 0) {
        pause();
        _exit(0);
      }
      if (p < 0) break;
      ++made;
    }
    std::printf("%d\n", made);
    return 0;
  }
  if (mode == "tree") {
    // A child, a grandchild in its own session, both sleeping: the launcher must kill them all.
    if (fork() == 0) {
      if (fork() == 0) {
        setsid();
        execlp("sleep", "sleep", argc > 2 ? argv[2] : "300", static_cast<char*>(nullptr));
        _exit(1);
      }
      execlp("sleep", "sleep", argc > 2 ? argv[2] : "300", static_cast<char*>(nullptr));
      _exit(1);
    }
    std::puts("started");
    std::fflush(stdout);
    if (argc > 3 && std::string(argv[3]) == "exit") return 0;  // leave them behind
    pause();
    return 0;
  }
  if (mode == "socket") {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    std::printf("%d\n", s >= 0 ? 1 : 0);
    return 0;
  }
  return 2;
}
