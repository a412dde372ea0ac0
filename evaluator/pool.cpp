#include "evaluator/pool.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "core/child_process.h"
#include "core/time.h"

namespace kf::eval {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(trim(item));
  return out;
}

std::optional<int> to_int(const std::string& s) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

Result<std::vector<GpuDevice>> visible_gpus() {
  ChildCommand command;
  command.argv = {"nvidia-smi", "--query-gpu=index,name,uuid", "--format=csv,noheader"};
  auto r = run_captured(command, 30, 1 << 16);
  if (!r.ok() || r->status != CapturedRun::Status::exited || r->exit_code != 0)
    return make_error("gpu.query",
                      "nvidia-smi lists no GPU on this machine; use --backend host, or check the "
                      "NVIDIA driver (`nvidia-smi`)");
  std::vector<GpuDevice> all;
  for (const auto& line : split(r->output, '\n')) {
    auto f = split(line, ',');
    if (f.size() < 3) continue;
    auto idx = to_int(f[0]);
    if (!idx) continue;
    all.push_back({*idx, f[1], f[2]});
  }
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!cvd || !*cvd) return all;
  // CUDA's rule: the listed devices in order, up to the first entry that names none.
  std::vector<GpuDevice> visible;
  for (const auto& entry : split(cvd, ',')) {
    const GpuDevice* hit = nullptr;
    if (auto i = to_int(entry)) {
      for (const auto& g : all)
        if (g.index == *i) hit = &g;
    } else if (!entry.empty()) {
      for (const auto& g : all)
        if (g.uuid.starts_with(entry) || ("GPU-" + entry) == g.uuid.substr(0, entry.size() + 4)) hit = &g;
    }
    if (!hit) break;
    visible.push_back(*hit);
  }
  return visible;
}

Result<std::vector<EvaluatorSlot>> plan_evaluators(Backend backend, const std::string& gpus, int evaluators,
                                                   const std::vector<GpuDevice>& visible) {
  std::vector<EvaluatorSlot> slots;
  if (backend == Backend::host) {
    if (!gpus.empty() && gpus != "all")
      return make_error("gpus.host", "--gpus " + gpus +
                                         " needs the cuda backend; on the host backend use "
                                         "--evaluators N for N evaluators");
    const int n = evaluators > 0 ? evaluators : 1;
    for (int i = 0; i < n; ++i) slots.push_back({i, std::nullopt});
    return slots;
  }
  if (evaluators > 0)
    return make_error("evaluators.cuda",
                      "--evaluators is for the host backend; on cuda list the GPUs with --gpus "
                      "(repeat one to share it, e.g. --gpus 0,0)");
  if (visible.empty())
    return make_error("gpu.none",
                      "no GPU is visible to kforge (nvidia-smi, CUDA_VISIBLE_DEVICES); use "
                      "--backend host or check the driver");
  if (gpus.empty() || gpus == "all") {
    for (size_t i = 0; i < visible.size(); ++i) slots.push_back({static_cast<int>(i), visible[i]});
    return slots;
  }
  for (const auto& entry : split(gpus, ',')) {
    auto i = to_int(entry);
    if (!i || *i >= static_cast<int>(visible.size()))
      return make_error("gpus.bad", "--gpus: '" + entry + "' is not a visible GPU; there are " +
                                        std::to_string(visible.size()) + " (0.." + std::to_string(visible.size() - 1) +
                                        "), or use --gpus all");
    slots.push_back({static_cast<int>(slots.size()), visible[static_cast<size_t>(*i)]});
  }
  return slots;
}

Result<std::vector<EvaluatorSlot>> plan_evaluators(Backend backend, const std::string& gpus, int evaluators) {
  std::vector<GpuDevice> visible;
  if (backend == Backend::cuda) {
    auto listed = visible_gpus();
    if (!listed) return listed.error();
    visible = std::move(*listed);
  }
  return plan_evaluators(backend, gpus, evaluators, visible);
}

std::string describe(const EvaluatorSlot& s) {
  if (!s.gpu) return "evaluator " + std::to_string(s.slot) + " (host)";
  return "evaluator " + std::to_string(s.slot) + " on GPU " + std::to_string(s.gpu->index) + " (" + s.gpu->name + ", " +
         s.gpu->uuid + ")";
}

Result<std::unique_ptr<EvaluatorPool>> EvaluatorPool::create(const EvaluatorOptions& base,
                                                             const std::vector<EvaluatorSlot>& slots) {
  if (slots.empty()) return make_error("pool.empty", "no evaluator to start");
  std::unique_ptr<EvaluatorPool> pool(new EvaluatorPool());
  for (const auto& slot : slots) {
    EvaluatorOptions o = base;
    if (slot.gpu) o.cuda_visible_devices = slot.gpu->uuid;
    auto made = Evaluator::create(o);
    if (!made) return make_error(made.error().code, describe(slot) + ": " + made.error().message);
    Member m;
    m.slot = slot;
    m.evaluator = std::move(*made);
    pool->members_.push_back(std::move(m));
  }
  return pool;
}

EvaluatorPool::Lease EvaluatorPool::acquire() {
  std::unique_lock lock(mu_);
  while (true) {
    for (size_t i = 0; i < members_.size(); ++i)
      if (!members_[i].busy) {
        members_[i].busy = true;
        members_[i].leased_at = now_s();
        return Lease(this, i);
      }
    cv_.wait(lock);
  }
}

void EvaluatorPool::release(size_t index) {
  {
    std::lock_guard lock(mu_);
    auto& m = members_[index];
    m.busy = false;
    m.busy_s += now_s() - m.leased_at;
  }
  cv_.notify_one();
}

EvaluatorPool::Lease::~Lease() {
  if (pool_) pool_->release(index_);
}

void EvaluatorPool::for_each_job(size_t count, const std::function<void(size_t)>& job) {
  std::mutex next_mu;
  size_t next = 0;
  std::vector<std::thread> workers;
  for (size_t w = 0; w < std::min(size(), count); ++w)
    workers.emplace_back([&] {
      while (true) {
        size_t i;
        {
          std::lock_guard lock(next_mu);
          if (next >= count) return;
          i = next++;
        }
        job(i);
      }
    });
  for (auto& t : workers) t.join();
}

std::vector<double> EvaluatorPool::busy_seconds() {
  std::lock_guard lock(mu_);
  std::vector<double> out;
  for (const auto& m : members_) out.push_back(m.busy_s + (m.busy ? now_s() - m.leased_at : 0));
  return out;
}

}  // namespace kf::eval
