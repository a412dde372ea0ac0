// libkforge-seccomp: the runner's system-call filter (sandbox/seccomp.h) behind a C function, for the python
// runner of kernelbench solutions, which loads it with ctypes after torch and CUDA are initialised and
// before it imports the solution: the same point at which kforge-runner applies it.
#include <cstddef>
#include <cstring>

#include "sandbox/seccomp.h"

extern "C" __attribute__((visibility("default"))) int kf_apply_runner_seccomp(int allow_subprocesses, char* error,
                                                                              size_t error_size) {
  kf::sandbox::RunnerSeccompOptions options;
  options.allow_subprocesses = allow_subprocesses != 0;
  auto st = kf::sandbox::apply_runner_seccomp(options);
  if (st.ok()) return 0;
  if (error && error_size) {
    std::strncpy(error, st.error().message.c_str(), error_size - 1);
    error[error_size - 1] = '\0';
  }
  return 1;
}
