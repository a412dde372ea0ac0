// kforge-runner: the UNTRUSTED side of an evaluation. One fresh process per evaluation: loads the
// candidate library, maps the buffer slots named in <job>/job.json (tmpfs files on host, CUDA IPC handles
// on cuda; one set of input and output buffers per slot), then serves the supervisor's commands (one JSON
// line each on --cmd-fd):
//   {"op":"round", "order":[s0, s1, ...]}   one kf_forward call per listed slot, back to back, then one
//                                           synchronisation; answered once the round is complete
//   (a command may carry "shapes": [{"inputs":[[..],..], "outputs":[[..],..]} or null, per slot], the
//    shapes that slot's tensors take from then on; each must fit its buffer)
//   {"op":"exit"}
// and answers each with one JSON line on --report-fd (never stdout: the candidate may print there).
// Start-up: once the buffers are mapped it reports {"ok":true,"stage":"mapped"} and serves calibration rounds
// ({"op":"round","order":[],"touch_bytes":N}: memsets of N bytes in all over every slot's outputs, then inputs,
// cycling, stand in for a candidate's GPU work, and the answer says how many bytes were written; the supervisor
// measures the harness's own cost of a round while no candidate code exists in the process, so these event
// times may be believed) until {"op":"load"}; then it reports
// {"ok":true,"stage":"loading"}, loads the candidate and reports ready. Failures before the "loading" line are
// the harness's, anything after it may come from the candidate. Nothing it reports decides a verdict or a
// time: the supervisor times rounds with its own clock and the oracle checks the outputs (CUDA event
// times in the answer are a diagnostic only). It never sees a reference output, the problem or the verdict.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "evaluator/kforge.h"
#include "evaluator/runner/cudart.h"

#if __has_include("sandbox/seccomp.h")
#include "sandbox/seccomp.h"
#define KFORGE_HAVE_RUNNER_SECCOMP 1
#endif

namespace {

using Json = nlohmann::json;
using kf::runner::Cudart;

int g_report_fd = -1;

void report(const Json& j) {
  std::string line = j.dump() + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = write(g_report_fd, line.data() + off, line.size() - off);
    if (n <= 0) _exit(4);
    off += static_cast<size_t>(n);
  }
}

[[noreturn]] void fail(const std::string& code, const std::string& detail) {
  report({{"ok", false}, {"code", code}, {"detail", detail}});
  _exit(3);
}

// How much of its own CPU time the cuda runner spends polling for the next command before it blocks. A
// command that finds the runner blocked in read() waits for the scheduler to wake it, which took from
// microseconds to a tenth of a millisecond on the H200 depending on how long the core had been idle: noise
// inside the timed window. CPU time, not wall time, because the supervisor freezes the runner between rounds
// and the poll must still be going on when it is thawed.
bool g_spin_for_commands = false;
constexpr double kCommandSpinCpuS = 0.05;

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void spin_until_readable(int fd) {
  const double until = thread_cpu_s() + kCommandSpinCpuS;
  pollfd p{fd, POLLIN, 0};
  for (int i = 0;; ++i) {
    if (poll(&p, 1, 0) != 0) return;
    if (i % 64 == 63 && thread_cpu_s() > until) return;
  }
}

// Commands arrive one line at a time; reading in blocks keeps a round's command to a system call or two
// (a byte at a time, a 128-slot round cost hundreds of calls inside the timed window).
bool read_line(int fd, std::string* line) {
  static std::string pending;
  line->clear();
  for (;;) {
    if (size_t nl = pending.find('\n'); nl != std::string::npos) {
      line->assign(pending, 0, nl);
      pending.erase(0, nl + 1);
      return true;
    }
    if (g_spin_for_commands) spin_until_readable(fd);
    char block[4096];
    ssize_t n = read(fd, block, sizeof block);
    if (n <= 0) return false;
    pending.append(block, static_cast<size_t>(n));
  }
}

using ForwardFn = int (*)(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*);

struct Runner {
  bool cuda = false;
  Cudart rt;
  void* stream = nullptr;
  void *ev_start = nullptr, *ev_stop = nullptr;
  ForwardFn forward = nullptr;
  struct Slot {
    std::vector<kf_tensor> inputs, outputs;
    std::vector<size_t> input_bytes, output_bytes;  // buffer capacities
  };
  std::vector<Slot> slots;

  void set_shapes(std::vector<kf_tensor>& tensors, const std::vector<size_t>& capacity, const Json& shapes) {
    if (!shapes.is_array() || shapes.size() != tensors.size()) fail("protocol.command", "bad shapes in command");
    for (size_t k = 0; k < tensors.size(); ++k) {
      const Json& shape = shapes[k];
      if (!shape.is_array() || shape.size() > 8) fail("protocol.command", "bad shape in command");
      size_t numel = 1;
      for (const auto& d : shape) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) fail("protocol.command", "bad dimension in command");
        numel *= d.get<size_t>();
      }
      if (numel * element_size(tensors[k].dtype) > capacity[k])
        fail("protocol.command", "shape larger than its buffer in command");
      tensors[k].ndim = static_cast<int32_t>(shape.size());
      for (size_t i = 0; i < shape.size(); ++i) tensors[k].shape[i] = shape[i].get<int64_t>();
    }
  }

  static size_t element_size(int32_t dtype) {
    switch (dtype) {
      case KF_FLOAT64:
      case KF_INT64: return 8;
      case KF_FLOAT32:
      case KF_INT32: return 4;
      case KF_FLOAT16:
      case KF_BFLOAT16: return 2;
      default: return 1;
    }
  }

  void check_cuda(int err, const char* what) {
    if (err != 0) fail("runtime_error.cuda", std::string(what) + ": " + rt.describe(err));
  }

  // Calibration work in place of a candidate's: memsets of `bytes` in all over every slot's outputs, then its
  // inputs, cycling (at most 4096 memsets), so that the GPU is busy about as long as a round of calls and
  // touches the same memory. The oracle poisons outputs and writes inputs again before every trial and round.
  size_t touch(size_t bytes) {
    std::vector<std::pair<void*, size_t>> buffers;
    for (const Slot& sl : slots)
      for (size_t k = 0; k < sl.outputs.size(); ++k) buffers.emplace_back(sl.outputs[k].data, sl.output_bytes[k]);
    for (const Slot& sl : slots)
      for (size_t k = 0; k < sl.inputs.size(); ++k) buffers.emplace_back(sl.inputs[k].data, sl.input_bytes[k]);
    size_t done = 0;
    for (size_t n = 0; n < 4096 && done < bytes && !buffers.empty(); ++n) {
      const auto& [data, size] = buffers[n % buffers.size()];
      const size_t part = std::min(bytes - done, size);
      if (part == 0) continue;
      check_cuda(rt.MemsetAsync(data, 0, part, stream), "cudaMemsetAsync");
      done += part;
    }
    return done;
  }

  // Every listed slot once, in order, with no synchronisation in between; then the stream and the whole
  // device (a sticky error or work escaping the stream shows there).
  Json round(const Json& order, size_t touch_bytes = 0) {
    if (!order.is_array() || order.size() > 4096) fail("protocol.command", "bad order in command");
    if (cuda) check_cuda(rt.EventRecord(ev_start, stream), "cudaEventRecord");
    const size_t touched = cuda && touch_bytes > 0 ? touch(touch_bytes) : 0;
    for (const auto& o : order) {
      if (!o.is_number_unsigned() || o.get<size_t>() >= slots.size()) fail("protocol.command", "bad slot in command");
      Slot& sl = slots[o.get<size_t>()];
      int rc = forward(sl.inputs.data(), static_cast<int32_t>(sl.inputs.size()), sl.outputs.data(),
                       static_cast<int32_t>(sl.outputs.size()), stream);
      if (rc != 0) fail("runtime_error.return_code", "kf_forward returned " + std::to_string(rc));
    }
    float ms = 0;
    double tail_ms = 0;
    if (cuda) {
      check_cuda(rt.EventRecord(ev_stop, stream), "cudaEventRecord");
      check_cuda(rt.GetLastError(), "after kf_forward (launch)");
      check_cuda(rt.StreamSynchronize(stream), "cudaStreamSynchronize after kf_forward");
      // GPU work still running once the given stream is done escaped it: how long the device takes after.
      const auto tail_start = std::chrono::steady_clock::now();
      check_cuda(rt.DeviceSynchronize(), "cudaDeviceSynchronize after kf_forward");
      tail_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tail_start).count();
      check_cuda(rt.EventElapsedTime(&ms, ev_start, ev_stop), "cudaEventElapsedTime");
    }
    Json answer{{"ok", true}, {"events_ms", static_cast<double>(ms)}, {"device_tail_ms", tail_ms}};
    if (touch_bytes > 0) answer["touched_bytes"] = touched;
    return answer;
  }
};

void* map_file(const std::string& path, size_t nbytes) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) fail("harness.map", "cannot open buffer " + path + ": " + std::strerror(errno));
  void* p = mmap(nullptr, std::max<size_t>(nbytes, 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) fail("harness.map", "cannot map buffer " + path + ": " + std::strerror(errno));
  return p;
}

int hexval(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

}  // namespace

int main(int argc, char** argv) {
  std::string job_dir;
  int cmd_fd = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--job") job_dir = argv[i + 1];
    if (a == "--cmd-fd") cmd_fd = std::atoi(argv[i + 1]);
    if (a == "--report-fd") g_report_fd = std::atoi(argv[i + 1]);
  }
  if (job_dir.empty() || cmd_fd < 0 || g_report_fd < 0) {
    std::fprintf(stderr, "usage: kforge-runner --job DIR --cmd-fd N --report-fd M (started by kforge eval)\n");
    return 2;
  }
  std::ifstream in(job_dir + "/job.json");
  std::stringstream ss;
  ss << in.rdbuf();
  Json job = Json::parse(ss.str(), nullptr, false);
  if (job.is_discarded()) fail("harness.job", "cannot read " + job_dir + "/job.json");

  Runner r;
  r.cuda = job.value("backend", "host") == "cuda";
  if (r.cuda) {
    if (auto err = r.rt.load(); !err.empty()) fail("harness.cudart", err);
    r.check_cuda(r.rt.SetDevice(job.value("device", 0)), "cudaSetDevice");
    // Spin-wait in synchronisations, and poll for commands: the wake-ups that blocking waits cost inside a
    // timed round vary with how long the core slept, and their noise would be taken for the candidate's.
    // Only a matter of noise, so a refusal is not an error.
    (void)r.rt.SetDeviceFlags(kf::runner::kDeviceScheduleSpin);
    g_spin_for_commands = true;
    r.check_cuda(r.rt.StreamCreateWithFlags(&r.stream, kf::runner::kStreamNonBlocking), "cudaStreamCreateWithFlags");
    r.check_cuda(r.rt.EventCreate(&r.ev_start), "cudaEventCreate");
    r.check_cuda(r.rt.EventCreate(&r.ev_stop), "cudaEventCreate");
  }
  for (const auto& b : job.at("buffers")) {
    kf_tensor t{};
    t.dtype = b.at("code").get<int32_t>();
    const auto& shape = b.at("shape");
    if (shape.size() > 8) fail("harness.job", "tensor with more than 8 dimensions");
    t.ndim = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i].get<int64_t>();
    size_t nbytes = b.at("nbytes").get<size_t>();
    if (r.cuda) {
      kf::runner::IpcHandle h{};
      std::string hex = b.at("ipc_handle");
      for (size_t i = 0; i < 64 && 2 * i + 1 < hex.size(); ++i)
        h.reserved[i] = static_cast<char>(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
      r.check_cuda(r.rt.IpcOpenMemHandle(&t.data, h, kf::runner::kIpcLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    } else {
      t.data = map_file(b.at("file"), nbytes);
    }
    size_t slot = b.value("slot", size_t{0});
    if (slot >= 4096) fail("harness.job", "slot number out of range");
    if (r.slots.size() <= slot) r.slots.resize(slot + 1);
    auto& sl = r.slots[slot];
    (b.at("role") == "input" ? sl.inputs : sl.outputs).push_back(t);
    (b.at("role") == "input" ? sl.input_bytes : sl.output_bytes).push_back(nbytes);
  }
  // From here on candidate code runs (static constructors run inside dlopen): confine the process first.
#ifdef KFORGE_HAVE_RUNNER_SECCOMP
  if (auto st = kf::sandbox::apply_runner_seccomp(); !st.ok()) fail("harness.seccomp", st.error().message);
#else
  // SECCOMP HOOK: sandbox/seccomp.h (kf::sandbox::apply_runner_seccomp) is called here once it exists.
#endif
  report({{"ok", true}, {"stage", "mapped"}});
  std::string line;
  for (;;) {
    if (!read_line(cmd_fd, &line)) return 0;
    Json cmd = Json::parse(line, nullptr, false);
    std::string op = cmd.is_object() ? cmd.value("op", "") : "";
    if (op == "load") break;
    if (op == "exit") return 0;
    if (op != "round" || !cmd.value("order", Json()).is_array() || !cmd["order"].empty())
      fail("harness.protocol", "before the candidate is loaded only empty rounds, load and exit are served");
    const Json& touch = cmd.value("touch_bytes", Json(0));
    report(r.round(cmd["order"], touch.is_number_unsigned() ? touch.get<size_t>() : 0));
  }
  report({{"ok", true}, {"stage", "loading"}});
  std::string lib = job.at("library");
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail("runtime_error.load", std::string("cannot load the candidate library: ") + dlerror());
  r.forward = reinterpret_cast<ForwardFn>(dlsym(handle, "kf_forward"));
  if (!r.forward) fail("runtime_error.load", "the candidate defines no extern \"C\" kf_forward");

  report({{"ok", true}, {"ready", true}});

  while (read_line(cmd_fd, &line)) {
    Json cmd = Json::parse(line, nullptr, false);
    std::string op = cmd.is_object() ? cmd.value("op", "") : "";
    if (cmd.is_object() && cmd.contains("shapes")) {
      const Json& shapes = cmd["shapes"];
      if (!shapes.is_array() || shapes.size() > r.slots.size()) fail("protocol.command", "bad shapes in command");
      for (size_t k = 0; k < shapes.size(); ++k) {
        if (shapes[k].is_null()) continue;
        if (!shapes[k].is_object()) fail("protocol.command", "bad shapes in command");
        r.set_shapes(r.slots[k].inputs, r.slots[k].input_bytes, shapes[k].value("inputs", Json()));
        r.set_shapes(r.slots[k].outputs, r.slots[k].output_bytes, shapes[k].value("outputs", Json()));
      }
    }
    if (op == "round") {
      report(r.round(cmd.value("order", Json())));
    } else if (op == "exit") {
      break;
    } else {
      report({{"ok", false}, {"code", "protocol.command"}, {"detail", "unknown command: " + line.substr(0, 100)}});
    }
  }
  return 0;
}
