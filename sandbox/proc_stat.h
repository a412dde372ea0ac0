#pragma once
// A process's status line, /proc/<pid>/stat (proc(5)): the one reader of that file. The command name (field 2)
// is the process's own choice (prctl PR_SET_NAME) and may hold spaces and parentheses, so the fields are
// counted from the last ')'.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace kf::sandbox {

struct ProcStat {
  char state = '?';          // field 3: R, S, D, T (stopped), t (traced), Z (zombie), X (dead), ...
  pid_t parent = 0;          // field 4
  pid_t process_group = 0;   // field 5
  pid_t session = 0;         // field 6
  uint64_t start_ticks = 0;  // field 22: when it started, in clock ticks after boot

  bool stopped_or_ended() const { return state == 'T' || state == 't' || state == 'Z' || state == 'X'; }
  bool zombie() const { return state == 'Z'; }

  // nullopt when the text is not a whole status line.
  static std::optional<ProcStat> parse(std::string_view text);
  // nullopt when the process is gone (or its status cannot be read).
  static std::optional<ProcStat> read(pid_t pid);
};

}  // namespace kf::sandbox
