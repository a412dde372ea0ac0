#pragma once
// The supervisor's pipes to a job and the capped capture of its output. Internal to sandbox/.
#include <unistd.h>

#include <cstddef>
#include <string>

namespace kf::sandbox {

// Both ends of a pipe, closed on destruction.
struct Pipe {
  int r = -1, w = -1;
  ~Pipe() { close_both(); }
  void close_r() {
    if (r >= 0) ::close(r);
    r = -1;
  }
  void close_w() {
    if (w >= 0) ::close(w);
    w = -1;
  }
  void close_both() {
    close_r();
    close_w();
  }
};

// Both ends close-on-exec; false (errno set) when the pipe cannot be created.
bool make_pipe(Pipe& p);

// Collects a stream up to `cap` bytes exactly and discards (but keeps draining) the rest.
struct Capture {
  int fd = -1;
  size_t cap = 0;
  std::string* text = nullptr;
  bool* truncated = nullptr;
  // Reads what is there; false (and the descriptor closed) at the end of the stream.
  bool drain(char* buf, size_t buf_size);
};

}  // namespace kf::sandbox
