// The job system's contract: every index of a parallel_for runs exactly once, a loop inside
// another loop's body runs inline on the thread that called it, and a pool whose workers have
// gone to sleep still runs what is submitted later.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "core/thread_pool.h"
#include "run_as_job.h"

namespace kiln {
namespace {

using testing::run_as_job;

TEST(ThreadPool, EveryIndexOnce) {
  ThreadPool pool(2);
  std::vector<std::atomic<int>> hits(10007);
  run_as_job(pool, [&] {
    pool.parallel_for(static_cast<int64_t>(hits.size()), 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    });
  });
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
}

TEST(ThreadPool, NestedLoopRunsInlineAndCoversItsRange) {
  ThreadPool pool(2);
  constexpr int64_t kOuter = 8, kInner = 1000;
  std::vector<std::atomic<int>> hits(kOuter * kInner);
  std::atomic<int> split_inner{0};
  run_as_job(pool, [&] {
    EXPECT_FALSE(ThreadPool::in_parallel_body());
    pool.parallel_for(kOuter, 1, [&](int64_t begin, int64_t end) {
      EXPECT_TRUE(ThreadPool::in_parallel_body());
      for (int64_t o = begin; o < end; ++o) {
        const std::thread::id outer_thread = std::this_thread::get_id();
        pool.parallel_for(kInner, 1, [&](int64_t b, int64_t e) {
          if (std::this_thread::get_id() != outer_thread) split_inner.fetch_add(1);
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(o * kInner + i)].fetch_add(1);
        });
      }
    });
    EXPECT_FALSE(ThreadPool::in_parallel_body());
  });
  EXPECT_EQ(split_inner.load(), 0);
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
}

TEST(ThreadPool, RunsWorkSubmittedAfterWorkersSleep) {
  ThreadPool pool(2);
  for (int round = 0; round < 3; ++round) {
    // Well past the time an idle worker polls before it sleeps.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::atomic<int64_t> sum{0};
    run_as_job(pool, [&] {
      pool.parallel_for(64, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) sum.fetch_add(i);
      });
    });
    EXPECT_EQ(sum.load(), 64 * 63 / 2);
  }
}

}  // namespace
}  // namespace kiln
