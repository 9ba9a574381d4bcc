// kiln's CPU job system: a fixed set of worker threads that run ready jobs and help with
// parallel-for loops. Layer jobs carry dependency counters (see runtime/execution) and are
// submitted only when every input is ready, so no worker ever blocks on another job. An idle
// worker polls the queue for a short while (kIdleSpin) before it sleeps on a condition
// variable: layers and parallel loops follow each other within microseconds, and waking a
// sleeping thread costs tens of microseconds (about 60 on a virtual machine), which a layer of
// a few hundred microseconds cannot afford twice.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "core/function_ref.h"

namespace kiln {

// Something a worker thread can run.
class Runnable {
 public:
  virtual ~Runnable() = default;
  virtual void run() = 0;
};

// A double-ended queue of jobs in a growable ring buffer: unlike std::deque it stops
// allocating once it has reached the largest size the workload needs.
class JobQueue {
 public:
  bool empty() const { return count_ == 0; }
  void push_back(Runnable* job);
  void push_front(Runnable* job);
  Runnable* pop_front();
  // Removes every occurrence of `job`; returns how many there were.
  int remove(Runnable* job);

 private:
  void grow();
  std::vector<Runnable*> ring_ = std::vector<Runnable*>(64);
  size_t head_ = 0;
  size_t count_ = 0;
};

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The shared pool with `num_threads` workers (0: one per hardware thread, or the value of
  // the KILN_NUM_THREADS environment variable). Pools live until the process exits.
  static ThreadPool& shared(int num_threads = 0);
  // The pool whose worker is running the calling thread, or nullptr on a user thread.
  static ThreadPool* current();
  // The calling worker's index in its pool (0 .. num_threads-1), or -1 on a user thread.
  static int current_worker_index();

  int num_threads() const { return static_cast<int>(threads_.size()); }

  // Queues a ready job; some worker runs it soon. Never blocks on other jobs.
  void submit(Runnable* job);

  // Runs body(begin, end) over disjoint ranges covering [0, count), each at least `grain`
  // long (except the last), on this pool's workers and the calling thread; returns when all
  // ranges are done. Safe to call from inside a job. Runs inline when the pool has one thread,
  // the work is a single range, or the caller is itself inside a parallel_for's body (the
  // outer loop already keeps the threads busy; see in_parallel_body).
  void parallel_for(int64_t count, int64_t grain, FunctionRef<void(int64_t, int64_t)> body);

  // Whether the calling thread is running a range of a parallel_for split over threads.
  static bool in_parallel_body();

 private:
  class ParallelForTask;
  void worker_loop();

  // Waits until the queue has a job or the pool stops: polls for kIdleSpin, then sleeps.
  // Returns with `lock` held.
  void wait_for_work(std::unique_lock<std::mutex>& lock);
  // Wakes up to `jobs` sleeping workers for that many new jobs; call with mutex_ held.
  void wake_sleepers(int jobs);

  std::mutex mutex_;
  std::condition_variable wake_;
  JobQueue queue_;
  // The queue's length and the stop flag, readable without the lock by polling workers.
  std::atomic<int64_t> queued_{0};
  std::atomic<bool> stopping_{false};
  int sleepers_ = 0;  // workers waiting on wake_ (under mutex_)
  std::vector<std::thread> threads_;
};

// parallel_for on the pool running the calling job, or on the shared default pool.
void parallel_for(int64_t count, int64_t grain, FunctionRef<void(int64_t, int64_t)> body);

}  // namespace kiln
