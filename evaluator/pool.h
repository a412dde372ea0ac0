#pragma once
// Several evaluators in one process (`--gpus`, `--evaluators`): one Evaluator per GPU, each with its own
// oracle and runner sessions pinned to that device through CUDA_VISIBLE_DEVICES, judging one candidate at
// a time. On the host backend N evaluators exercise the same scheduling without a GPU.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "evaluator/evaluator.h"

namespace kf::eval {

struct GpuDevice {
  int index = 0;     // nvidia-smi's index on this machine
  std::string name;  // e.g. "NVIDIA H200"
  std::string uuid;  // e.g. "GPU-6f1c…"; what the evaluator is pinned to
};

// The GPUs this process may use: nvidia-smi's list, narrowed and ordered by CUDA_VISIBLE_DEVICES when it is
// set (as Slurm sets it for a job's GPUs). Entry i is CUDA's device i.
Result<std::vector<GpuDevice>> visible_gpus();

// One evaluator of a pool: its slot number and, on the cuda backend, the GPU it is pinned to.
struct EvaluatorSlot {
  int slot = 0;
  std::optional<GpuDevice> gpu;
};

// Which evaluators `--gpus SPEC` and `--evaluators N` ask for. SPEC: "" (default: every visible GPU on cuda,
// one evaluator on host), "all", or a comma-separated list of visible device numbers ("0,1"; a number may
// repeat to run several evaluators on one GPU, "0,0"). N (0 = not given) is for the host backend: N
// evaluators. Errors name the bad entry or the GPUs there are.
Result<std::vector<EvaluatorSlot>> plan_evaluators(Backend backend, const std::string& gpus, int evaluators,
                                                   const std::vector<GpuDevice>& visible);

// The same over the GPUs visible now (asked of nvidia-smi on the cuda backend only). A failed query is the error
// code `gpu.query` (the machine's fault, not the arguments').
Result<std::vector<EvaluatorSlot>> plan_evaluators(Backend backend, const std::string& gpus, int evaluators);

// "slot 0 on GPU 0 (NVIDIA H200, GPU-…)" / "slot 1 (host)".
std::string describe(const EvaluatorSlot& slot);

class EvaluatorPool {
 public:
  // Creates one Evaluator per slot, each with `base` options and, for a GPU slot, cuda_visible_devices set
  // to the GPU's UUID (each oracle starts on its evaluator's first request).
  static Result<std::unique_ptr<EvaluatorPool>> create(const EvaluatorOptions& base,
                                                       const std::vector<EvaluatorSlot>& slots);
  size_t size() const { return members_.size(); }
  Evaluator& evaluator(size_t i) { return *members_[i].evaluator; }
  const EvaluatorSlot& slot(size_t i) const { return members_[i].slot; }

  // Exclusive use of one free evaluator until the lease ends; acquire() waits for one.
  class Lease {
   public:
    Lease(Lease&& o) noexcept : pool_(o.pool_), index_(o.index_) { o.pool_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Evaluator& evaluator() { return pool_->evaluator(index_); }
    const EvaluatorSlot& slot() const { return pool_->slot(index_); }
    size_t index() const { return index_; }

   private:
    friend class EvaluatorPool;
    Lease(EvaluatorPool* pool, size_t index) : pool_(pool), index_(index) {}
    EvaluatorPool* pool_;
    size_t index_;
  };
  Lease acquire();

  // The fan-out of work over the pool: runs job(i) for every i in [0, count), started in order of i, on
  // min(size(), count) threads, and returns when all are done. A job takes its evaluator with acquire() when
  // it is ready to judge (after what it waits for first), so each evaluator judges one job at a time.
  void for_each_job(size_t count, const std::function<void(size_t)>& job);

  // Seconds each evaluator spent leased (busy), by slot.
  std::vector<double> busy_seconds();

 private:
  struct Member {
    EvaluatorSlot slot;
    std::unique_ptr<Evaluator> evaluator;
    bool busy = false;
    double busy_s = 0;
    double leased_at = 0;
  };
  EvaluatorPool() = default;
  void release(size_t index);
  std::vector<Member> members_;
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace kf::eval
