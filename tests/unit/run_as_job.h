// Runs a function as one job of a ThreadPool and waits for it: what a layer's job sees (nested
// parallel_for calls, the pool's thread count), from a test.
#pragma once

#include <future>
#include <utility>

#include "core/thread_pool.h"

namespace kiln::testing {

template <class Fn>
void run_as_job(ThreadPool& pool, Fn fn) {
  struct Job : Runnable {
    Fn fn;
    std::promise<void> done;
    explicit Job(Fn f) : fn(std::move(f)) {}
    void run() override {
      fn();
      done.set_value();
    }
  };
  Job job(std::move(fn));
  std::future<void> finished = job.done.get_future();
  pool.submit(&job);
  finished.wait();
}

}  // namespace kiln::testing
