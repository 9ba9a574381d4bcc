// Runs a function as a job of a kiln ThreadPool, so that kiln's parallel_for inside it uses
// that pool (the benchmarks' way to pick a thread count per measurement).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

#include "core/thread_pool.h"

namespace kiln_bench {

// Runs `fn` as a job of `pool`, so that kiln's parallel_for inside it uses that pool.
inline void run_in_pool(kiln::ThreadPool& pool, const std::function<void()>& fn) {
  struct Job : kiln::Runnable {
    const std::function<void()>* fn = nullptr;
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    void run() override {
      (*fn)();
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
      done_cv.notify_one();
    }
  } job;
  job.fn = &fn;
  pool.submit(&job);
  std::unique_lock<std::mutex> lock(job.mutex);
  job.done_cv.wait(lock, [&] { return job.done; });
}

}  // namespace kiln_bench
