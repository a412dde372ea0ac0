// libkforge-cupti.so: a CUPTI activity-API client that the CUDA driver loads into any program through
// CUDA_INJECTION64_PATH and starts by calling InitializeInjection() during cuInit.
//
// It records kernels (concurrent-kernel mode, so overlap is real), memory copies, memsets, NVTX markers and
// CUPTI's own overhead, and writes one JSON object per line to $KFORGE_PROFILE_OUT/cupti-<pid>.jsonl
// (one file per process, so programs that start CUDA in several processes do not interleave). The last line,
// written at exit after a forced flush, is a "summary" with the record and dropped-record counts; a file
// without it was cut short (the process was killed, or exited with _exit()).
//
// Region markers: programs mark the measured region either with an NVTX range (routed to CUPTI by pointing
// NVTX_INJECTION64_PATH at libcupti, which InitializeInjection does when it is unset) or by calling the
// exported kforge_region_begin/kforge_region_end, which stamp cuptiGetTimestamp(): the same clock as the
// activity records in both cases, so no calibration is needed.
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#define KFORGE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr size_t kBufferBytes = 8u << 20;
constexpr size_t kBufferAlign = 8;

struct State {
  std::mutex mu;
  FILE* out = nullptr;
  std::string out_path;
  std::unordered_map<const char*, std::string> demangled;  // CUPTI keeps each name's storage alive
  uint64_t kernels = 0, copies = 0, memsets = 0, markers = 0, overheads = 0;
  uint64_t overhead_ns = 0;
  size_t dropped = 0;
  bool finished = false;
};

State& state() {
  static State* s = new State();  // never destroyed: CUPTI's thread may still call in during exit
  return *s;
}

void append_escaped(std::string& out, const char* text) {
  out.push_back('"');
  for (const char* p = text; *p != '\0'; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void append_u64(std::string& out, const char* key, uint64_t v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ",\"%s\":%" PRIu64, key, v);
  out += buf;
}

void append_i64(std::string& out, const char* key, int64_t v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ",\"%s\":%" PRId64, key, v);
  out += buf;
}

// Called with state().mu held.
const std::string& demangle(State& s, const char* name) {
  auto it = s.demangled.find(name);
  if (it != s.demangled.end()) return it->second;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string text = (status == 0 && d != nullptr) ? d : name;
  std::free(d);
  return s.demangled.emplace(name, std::move(text)).first->second;
}

const char* copy_kind_name(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "unknown";
  }
}

void write_line_locked(State& s, const std::string& line) {
  if (s.out == nullptr) return;
  std::fwrite(line.data(), 1, line.size(), s.out);
}

void write_line(const std::string& line) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  write_line_locked(s, line);
}

void format_record(State& s, const CUpti_Activity* record, std::string& line) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      line += "{\"type\":\"kernel\",\"name\":";
      append_escaped(line, k->name != nullptr ? demangle(s, k->name).c_str() : "<unnamed>");
      append_u64(line, "start", k->start);
      append_u64(line, "end", k->end);
      append_u64(line, "device", k->deviceId);
      append_u64(line, "context", k->contextId);
      append_u64(line, "stream", k->streamId);
      char buf[128];
      std::snprintf(buf, sizeof buf, ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d]", k->gridX, k->gridY, k->gridZ,
                    k->blockX, k->blockY, k->blockZ);
      line += buf;
      append_u64(line, "correlation", k->correlationId);
      line += "}\n";
      ++s.kernels;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      line += "{\"type\":\"memcpy\",\"copy_kind\":\"";
      line += copy_kind_name(m->copyKind);
      line += "\"";
      append_u64(line, "bytes", m->bytes);
      append_u64(line, "start", m->start);
      append_u64(line, "end", m->end);
      append_u64(line, "device", m->deviceId);
      append_u64(line, "context", m->contextId);
      append_u64(line, "stream", m->streamId);
      line += "}\n";
      ++s.copies;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      line += "{\"type\":\"memset\"";
      append_u64(line, "bytes", m->bytes);
      append_u64(line, "start", m->start);
      append_u64(line, "end", m->end);
      append_u64(line, "device", m->deviceId);
      append_u64(line, "context", m->contextId);
      append_u64(line, "stream", m->streamId);
      line += "}\n";
      ++s.memsets;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      const char* phase = (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) ? "start"
                          : (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) ? "end"
                                                                        : "instant";
      line += "{\"type\":\"marker\",\"phase\":\"";
      line += phase;
      line += "\",\"name\":";
      append_escaped(line, m->name != nullptr ? m->name : "");
      append_u64(line, "id", m->id);
      append_u64(line, "ts", m->timestamp);
      line += "}\n";
      ++s.markers;
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      line += "{\"type\":\"overhead\"";
      append_i64(line, "overhead_kind", static_cast<int64_t>(o->overheadKind));
      append_u64(line, "start", o->start);
      append_u64(line, "end", o->end);
      line += "}\n";
      ++s.overheads;
      if (o->end > o->start) s.overhead_ns += o->end - o->start;
      break;
    }
    default: break;
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t /*size*/, size_t valid_size) {
  State& s = state();
  std::string lines;
  lines.reserve(valid_size / 2 + 256);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      format_record(s, record, lines);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
    write_line_locked(s, lines);
  }
  std::free(buffer);
}

void CUPTIAPI ignore_callbacks(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

std::string result_text(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text != nullptr ? text : "unknown CUPTI error";
}

void status_line(const char* event, const std::string& message) {
  std::string line = "{\"type\":\"status\",\"event\":";
  append_escaped(line, event);
  line += ",\"message\":";
  append_escaped(line, message.c_str());
  line += "}\n";
  write_line(line);
  std::fprintf(stderr, "[kforge-cupti] %s\n", message.c_str());
}

void finish() {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.finished || s.out == nullptr) return;
  }
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(s.mu);
  size_t global_dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &global_dropped) == CUPTI_SUCCESS) s.dropped += global_dropped;
  std::string line = "{\"type\":\"summary\"";
  append_u64(line, "pid", static_cast<uint64_t>(getpid()));
  append_u64(line, "kernels", s.kernels);
  append_u64(line, "copies", s.copies);
  append_u64(line, "memsets", s.memsets);
  append_u64(line, "markers", s.markers);
  append_u64(line, "overhead_records", s.overheads);
  append_u64(line, "overhead_ns", s.overhead_ns);
  append_u64(line, "dropped", s.dropped);
  line += "}\n";
  write_line_locked(s, line);
  std::fflush(s.out);
  std::fclose(s.out);
  s.out = nullptr;
  s.finished = true;
  if (s.dropped > 0) {
    std::fprintf(stderr,
                 "[kforge-cupti] %zu activity records were dropped (CUPTI ran out of buffer space); the profile "
                 "undercounts GPU time\n",
                 s.dropped);
  }
}

// NVTX ranges reach CUPTI only when NVTX loads libcupti as its injection library; point it there unless the
// user chose another one. This runs during cuInit, before a program's first NVTX call in the usual case.
void route_nvtx_to_cupti() {
  const char* current = std::getenv("NVTX_INJECTION64_PATH");
  if (current != nullptr && current[0] != '\0') return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) != 0 && info.dli_fname != nullptr) {
    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
  }
}

bool open_output(State& s) {
  const char* dir = std::getenv("KFORGE_PROFILE_OUT");
  if (dir == nullptr || dir[0] == '\0') {
    std::fprintf(stderr,
                 "[kforge-cupti] KFORGE_PROFILE_OUT is not set: nothing will be recorded. Run the program through "
                 "`kforge profile -- PROGRAM`, or set KFORGE_PROFILE_OUT to an existing directory.\n");
    return false;
  }
  s.out_path = std::string(dir) + "/cupti-" + std::to_string(getpid()) + ".jsonl";
  s.out = std::fopen(s.out_path.c_str(), "w");
  if (s.out == nullptr) {
    std::fprintf(stderr, "[kforge-cupti] cannot write %s: %s; nothing will be recorded.\n", s.out_path.c_str(),
                 std::strerror(errno));
    return false;
  }
  std::setvbuf(s.out, nullptr, _IOFBF, 1u << 20);
  return true;
}

int initialize() {
  State& s = state();
  if (!open_output(s)) return 0;
  uint32_t version = 0;
  cuptiGetVersion(&version);
  {
    std::string line = "{\"type\":\"process\"";
    append_u64(line, "pid", static_cast<uint64_t>(getpid()));
    append_u64(line, "cupti_api_version", version);
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    append_u64(line, "ts", now);
    line += "}\n";
    write_line(line);
  }

  // Holding the one CUPTI subscription keeps a second client (torch.profiler, Nsight) from silently taking the
  // activity buffers over; if one already holds it, say so: the two cannot share a process.
  CUpti_SubscriberHandle subscriber{};
  const CUptiResult sub = cuptiSubscribe(&subscriber, ignore_callbacks, nullptr);
  if (sub == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    status_line("multiple_subscribers",
                "another CUPTI client already profiles this process (torch.profiler, Nsight Systems/Compute, "
                "cuda-gdb ...). CUPTI allows one client per process: run the program without that tool (remove "
                "torch.profiler from the measured code) and profile again. Nothing will be recorded.");
    return 0;
  }
  if (sub != CUPTI_SUCCESS) {
    status_line("subscribe_failed", "cuptiSubscribe failed: " + result_text(sub) + "; nothing will be recorded.");
    return 0;
  }

  const CUptiResult reg = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (reg != CUPTI_SUCCESS) {
    status_line("register_failed",
                "cuptiActivityRegisterCallbacks failed: " + result_text(reg) + "; nothing will be recorded.");
    return 0;
  }
  route_nvtx_to_cupti();
  const CUpti_ActivityKind required[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};
  for (CUpti_ActivityKind kind : required) {
    const CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      status_line("enable_failed", "cuptiActivityEnable(" + std::to_string(static_cast<int>(kind)) +
                                       ") failed: " + result_text(r) + "; the profile will be incomplete.");
    }
  }
  // Optional kinds: markers give the measured region, overhead says what tracing cost.
  if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER) != CUPTI_SUCCESS) {
    status_line("markers_unavailable", "NVTX marker records are unavailable; use kforge_region_begin/end instead.");
  }
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD);
  std::atexit(finish);
  return 1;
}

void region_mark(const char* phase, const char* name) {
  uint64_t now = 0;
  if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS) return;
  std::string line = "{\"type\":\"region\",\"phase\":\"";
  line += phase;
  line += "\",\"name\":";
  append_escaped(line, name != nullptr ? name : "");
  append_u64(line, "ts", now);
  line += "}\n";
  write_line(line);
}

}  // namespace

// Entry point the CUDA driver calls once, during cuInit, when this library is CUDA_INJECTION64_PATH.
// Returns 1 when tracing started.
KFORGE_EXPORT int InitializeInjection(void) {
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] { result = initialize(); });
  return result;
}

// Explicit region markers for programs that prefer not to use NVTX: call after synchronizing the device at the
// start of the measured region, and after synchronizing at its end. Timestamps come from CUPTI's clock.
KFORGE_EXPORT void kforge_region_begin(const char* name) { region_mark("begin", name); }
KFORGE_EXPORT void kforge_region_end(const char* name) { region_mark("end", name); }

// Flushes everything recorded so far to the file (also done automatically at exit).
KFORGE_EXPORT void kforge_profile_flush(void) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.out != nullptr) std::fflush(s.out);
}
