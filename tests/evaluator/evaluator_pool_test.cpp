// Which evaluators --gpus / --evaluators ask for, and the pool's leases (host backend, real evaluators).
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "evaluator/pool.h"

namespace kf::eval {
namespace {

const std::vector<GpuDevice> kTwo = {{0, "NVIDIA H200", "GPU-aaa"}, {1, "NVIDIA H200", "GPU-bbb"}};

TEST(PlanEvaluators, CudaDefaultsToEveryVisibleGpu) {
  for (const char* spec : {"", "all"}) {
    auto s = plan_evaluators(Backend::cuda, spec, 0, kTwo);
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->size(), 2u);
    EXPECT_EQ((*s)[1].slot, 1);
    EXPECT_EQ((*s)[1].gpu->uuid, "GPU-bbb");
  }
}

TEST(PlanEvaluators, ListsMayRepeatAGpu) {
  auto s = plan_evaluators(Backend::cuda, "1, 1,0", 0, kTwo);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->size(), 3u);
  EXPECT_EQ((*s)[0].gpu->index, 1);
  EXPECT_EQ((*s)[1].gpu->index, 1);
  EXPECT_EQ((*s)[2].gpu->index, 0);
  EXPECT_EQ((*s)[2].slot, 2);
  EXPECT_NE(describe((*s)[0]).find("GPU-bbb"), std::string::npos);
}

TEST(PlanEvaluators, BadRequestsSayWhatToDo) {
  auto out_of_range = plan_evaluators(Backend::cuda, "0,2", 0, kTwo);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().message.find("there are 2"), std::string::npos);
  EXPECT_FALSE(plan_evaluators(Backend::cuda, "x", 0, kTwo).ok());
  EXPECT_FALSE(plan_evaluators(Backend::cuda, "", 0, {}).ok());
  auto evaluators_on_cuda = plan_evaluators(Backend::cuda, "", 2, kTwo);
  ASSERT_FALSE(evaluators_on_cuda.ok());
  EXPECT_NE(evaluators_on_cuda.error().message.find("0,0"), std::string::npos);
  auto gpus_on_host = plan_evaluators(Backend::host, "0", 0, {});
  ASSERT_FALSE(gpus_on_host.ok());
  EXPECT_NE(gpus_on_host.error().message.find("--evaluators"), std::string::npos);
}

TEST(PlanEvaluators, HostGivesNEvaluatorsWithoutGpus) {
  auto one = plan_evaluators(Backend::host, "", 0, {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  auto three = plan_evaluators(Backend::host, "all", 3, {});
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(three->size(), 3u);
  EXPECT_FALSE((*three)[2].gpu.has_value());
}

TEST(EvaluatorPool, EachEvaluatorIsLeasedToOneCallerAtATime) {
  EvaluatorOptions o;
  o.backend = Backend::host;
  auto slots = plan_evaluators(Backend::host, "", 2, {});
  ASSERT_TRUE(slots.ok());
  auto pool = EvaluatorPool::create(o, *slots);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  ASSERT_EQ((*pool)->size(), 2u);
  std::atomic<int> in_use[2] = {0, 0};
  std::atomic<bool> overlap{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto lease = (*pool)->acquire();
        if (in_use[lease.index()].fetch_add(1) != 0) overlap = true;
        std::this_thread::yield();
        in_use[lease.index()].fetch_sub(1);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_FALSE(overlap);
  EXPECT_EQ((*pool)->busy_seconds().size(), 2u);
}

TEST(EvaluatorPool, ForEachJobRunsEveryJobOnceOnOneThreadPerEvaluator) {
  EvaluatorOptions o;
  o.backend = Backend::host;
  auto slots = plan_evaluators(Backend::host, "", 3, {});
  ASSERT_TRUE(slots.ok());
  auto pool = EvaluatorPool::create(o, *slots);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  std::vector<std::atomic<int>> runs(50);
  std::atomic<int> running{0}, most{0};
  (*pool)->for_each_job(runs.size(), [&](size_t i) {
    auto lease = (*pool)->acquire();
    const int now = ++running;
    for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
    }
    ++runs[i];
    std::this_thread::yield();
    --running;
  });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_LE(most.load(), 3);
  // Fewer jobs than evaluators, and none at all.
  std::atomic<int> two{0};
  (*pool)->for_each_job(2, [&](size_t) { ++two; });
  EXPECT_EQ(two.load(), 2);
  (*pool)->for_each_job(0, [&](size_t) { ADD_FAILURE() << "no job to run"; });
}

}  // namespace
}  // namespace kf::eval
