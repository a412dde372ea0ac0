// kforge-runner: the UNTRUSTED side of an evaluation. One fresh process per evaluation: loads the
// candidate library, maps the input and output buffers named in <job>/job.json (tmpfs files on host,
// CUDA IPC handles on cuda), then serves the supervisor's commands (one JSON line each on --cmd-fd):
//   {"op":"call"}                 one kf_forward call, synchronised and checked
//   (any command may carry "shapes": {"inputs":[[..],..], "outputs":[[..],..]}, the current trial's shapes,
//    which the tensors take from then on; each must fit its buffer)
//   {"op":"time", "warmup":W, "min_calls":A, "max_calls":B, "budget_ms":T}
//   {"op":"exit"}
// and answers each with one JSON line on --report-fd (never stdout: the candidate may print there).
// It never sees a reference output, the problem file or the verdict.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
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

bool read_line(int fd, std::string* line) {
  line->clear();
  char c;
  for (;;) {
    ssize_t n = read(fd, &c, 1);
    if (n <= 0) return false;
    if (c == '\n') return true;
    line->push_back(c);
  }
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Json summarize(std::vector<double> t) {
  if (t.empty()) return Json{{"calls", 0}};
  std::sort(t.begin(), t.end());
  size_t n = t.size();
  double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return {{"median_ms", med},
          {"min_ms", t.front()},
          {"max_ms", t.back()},
          {"p10_ms", t[static_cast<size_t>(0.1 * static_cast<double>(n - 1))]},
          {"p90_ms", t[static_cast<size_t>(0.9 * static_cast<double>(n - 1))]},
          {"calls", n}};
}

using ForwardFn = int (*)(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*);

struct Runner {
  bool cuda = false;
  Cudart rt;
  void* stream = nullptr;
  void* flush = nullptr;
  size_t flush_bytes = 0;
  ForwardFn forward = nullptr;
  std::vector<kf_tensor> inputs, outputs;
  std::vector<size_t> input_bytes, output_bytes;  // buffer capacities

  void set_shapes(std::vector<kf_tensor>& tensors, const std::vector<size_t>& capacity, const Json& shapes) {
    if (!shapes.is_array() || shapes.size() != tensors.size()) fail("harness.protocol", "bad shapes in command");
    for (size_t k = 0; k < tensors.size(); ++k) {
      const Json& shape = shapes[k];
      if (!shape.is_array() || shape.size() > 8) fail("harness.protocol", "bad shape in command");
      size_t numel = 1;
      for (const auto& d : shape) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) fail("harness.protocol", "bad dimension in command");
        numel *= d.get<size_t>();
      }
      if (numel * element_size(tensors[k].dtype) > capacity[k])
        fail("harness.protocol", "shape larger than its buffer in command");
      tensors[k].ndim = static_cast<int32_t>(shape.size());
      for (size_t i = 0; i < shape.size(); ++i) tensors[k].shape[i] = shape[i].get<int64_t>();
    }
  }

  static size_t element_size(int32_t dtype) {
    switch (dtype) {
      case KF_FLOAT64: case KF_INT64: return 8;
      case KF_FLOAT32: case KF_INT32: return 4;
      case KF_FLOAT16: case KF_BFLOAT16: return 2;
      default: return 1;
    }
  }

  void check_cuda(int err, const char* what) {
    if (err != 0) fail("runtime_error.cuda", std::string(what) + ": " + rt.describe(err));
  }

  // Both the stream and the whole device: a sticky error or work escaping the stream shows here.
  void sync_checked() {
    check_cuda(rt.GetLastError(), "after kf_forward (launch)");
    check_cuda(rt.StreamSynchronize(stream), "cudaStreamSynchronize after kf_forward");
    check_cuda(rt.DeviceSynchronize(), "cudaDeviceSynchronize after kf_forward");
  }

  void call_once() {
    int rc = forward(inputs.data(), static_cast<int32_t>(inputs.size()), outputs.data(),
                     static_cast<int32_t>(outputs.size()), stream);
    if (cuda) sync_checked();
    if (rc != 0) fail("runtime_error.return_code", "kf_forward returned " + std::to_string(rc));
  }

  void flush_l2(int i) {
    if (cuda) check_cuda(rt.MemsetAsync(flush, i & 0xff, flush_bytes, stream), "cudaMemsetAsync (L2 flush)");
  }

  Json time(const Json& cmd) {
    int warmup = cmd.value("warmup", 3), min_calls = cmd.value("min_calls", 10), max_calls = cmd.value("max_calls", 100);
    double budget = cmd.value("budget_ms", 2000.0);
    for (int i = 0; i < warmup; ++i) {
      flush_l2(i);
      call_once();
    }
    std::vector<double> ev, wall;
    void *start = nullptr, *stop = nullptr;
    if (cuda) {
      check_cuda(rt.EventCreate(&start), "cudaEventCreate");
      check_cuda(rt.EventCreate(&stop), "cudaEventCreate");
    }
    double total = 0;
    while (static_cast<int>(ev.size()) < max_calls) {
      flush_l2(static_cast<int>(ev.size()));
      if (cuda) check_cuda(rt.StreamSynchronize(stream), "cudaStreamSynchronize (flush)");
      double t0 = now_ms();
      if (cuda) check_cuda(rt.EventRecord(start, stream), "cudaEventRecord");
      int rc = forward(inputs.data(), static_cast<int32_t>(inputs.size()), outputs.data(),
                       static_cast<int32_t>(outputs.size()), stream);
      if (cuda) {
        check_cuda(rt.EventRecord(stop, stream), "cudaEventRecord");
        check_cuda(rt.GetLastError(), "after kf_forward (launch)");
        check_cuda(rt.DeviceSynchronize(), "cudaDeviceSynchronize after kf_forward");
      }
      double t1 = now_ms();
      if (rc != 0) fail("runtime_error.return_code", "kf_forward returned " + std::to_string(rc) + " while timing");
      double ms = t1 - t0;
      if (cuda) {
        float f = 0;
        check_cuda(rt.EventElapsedTime(&f, start, stop), "cudaEventElapsedTime");
        ms = f;
      }
      ev.push_back(ms);
      wall.push_back(t1 - t0);
      total += ms;
      if (static_cast<int>(ev.size()) >= min_calls && total >= budget) break;
    }
    return {{"ok", true}, {"events", summarize(ev)}, {"sync", summarize(wall)}};
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
    r.check_cuda(r.rt.StreamCreateWithFlags(&r.stream, kf::runner::kStreamNonBlocking), "cudaStreamCreateWithFlags");
    int l2 = 0;
    r.check_cuda(r.rt.DeviceGetAttribute(&l2, kf::runner::kDevAttrL2CacheSize, job.value("device", 0)),
                 "cudaDeviceGetAttribute(L2)");
    r.flush_bytes = std::max<size_t>(2 * static_cast<size_t>(l2), 64u << 20);
    r.check_cuda(r.rt.Malloc(&r.flush, r.flush_bytes), "cudaMalloc (L2 flush buffer)");
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
    (b.at("role") == "input" ? r.inputs : r.outputs).push_back(t);
    (b.at("role") == "input" ? r.input_bytes : r.output_bytes).push_back(nbytes);
  }
  // From here on candidate code runs (static constructors run inside dlopen): confine the process first.
#ifdef KFORGE_HAVE_RUNNER_SECCOMP
  if (auto st = kf::sandbox::apply_runner_seccomp(); !st.ok()) fail("harness.seccomp", st.error().message);
#else
  // SECCOMP HOOK: sandbox/seccomp.h (kf::sandbox::apply_runner_seccomp) is called here once it exists.
#endif
  std::string lib = job.at("library");
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail("runtime_error.load", std::string("cannot load the candidate library: ") + dlerror());
  r.forward = reinterpret_cast<ForwardFn>(dlsym(handle, "kf_forward"));
  if (!r.forward) fail("runtime_error.load", "the candidate defines no extern \"C\" kf_forward");

  report({{"ok", true}, {"ready", true}});

  std::string line;
  while (read_line(cmd_fd, &line)) {
    Json cmd = Json::parse(line, nullptr, false);
    std::string op = cmd.is_object() ? cmd.value("op", "") : "";
    if (cmd.is_object() && cmd.contains("shapes")) {
      if (!cmd["shapes"].is_object()) fail("harness.protocol", "bad shapes in command");
      r.set_shapes(r.inputs, r.input_bytes, cmd["shapes"].value("inputs", Json()));
      r.set_shapes(r.outputs, r.output_bytes, cmd["shapes"].value("outputs", Json()));
    }
    if (op == "call") {
      double t0 = now_ms();
      r.call_once();
      report({{"ok", true}, {"wall_ms", now_ms() - t0}});
    } else if (op == "time") {
      report(r.time(cmd));
    } else if (op == "exit") {
      break;
    } else {
      report({{"ok", false}, {"code", "harness.protocol"}, {"detail", "unknown command: " + line.substr(0, 100)}});
    }
  }
  return 0;
}
