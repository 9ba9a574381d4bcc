#include "core/thread_pool.h"

#include "core/run_stop.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>

namespace kiln {

namespace {
thread_local ThreadPool* current_pool = nullptr;
thread_local int current_worker = -1;
// How many parallel_for bodies the calling thread is inside (ranges of a split loop).
thread_local int parallel_depth = 0;

struct ParallelBodyScope {
  ParallelBodyScope() { ++parallel_depth; }
  ~ParallelBodyScope() { --parallel_depth; }
  ParallelBodyScope(const ParallelBodyScope&) = delete;
  ParallelBodyScope& operator=(const ParallelBodyScope&) = delete;
};

// How long an idle worker polls for a job before it sleeps: about one small layer's time, so
// that the next layer or parallel loop finds it awake, while a pool with nothing to do stops
// using the processor within a fraction of a millisecond.
constexpr auto kIdleSpin = std::chrono::microseconds(100);

// Tells the processor this thread is in a polling loop (frees the core's shared resources for
// its sibling hyper-thread, saves power).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int default_thread_count() {
  if (const char* env = std::getenv("KILN_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}
}  // namespace

// One parallel_for in flight. Helpers that other workers pick up from the queue claim chunks
// through an atomic counter; the caller claims chunks too, then withdraws the helper entries
// nobody picked up and waits only for helpers that are already running, so the task (which
// lives on the caller's stack) is never touched after parallel_for returns.
class ThreadPool::ParallelForTask : public Runnable {
 public:
  ParallelForTask(int64_t count, int64_t chunk, FunctionRef<void(int64_t, int64_t)> body)
      : count_(count), chunk_(chunk), body_(body) {}

  void run() override {
    run_chunks();
    std::lock_guard lock(mutex_);
    if (--active_helpers_ == 0) helpers_done_.notify_all();
  }

  // `stop`: the run the caller works for. Between its chunks the caller checks it and, once
  // the run must stop, takes the chunks nobody has claimed, so a long kernel ends early; it
  // rethrows the stop once the helpers are done (stop_requested()).
  void run_chunks(const RunStop* stop = nullptr) {
    ParallelBodyScope in_body;
    for (;;) {
      if (stop && stop->reason() != RunStop::Reason::None) {
        stopped_ = true;
        next_.store(count_, std::memory_order_relaxed);
        return;
      }
      int64_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
      if (begin >= count_) return;
      body_(begin, std::min(count_, begin + chunk_));
    }
  }
  bool stop_requested() const { return stopped_; }

  void add_helpers(int n) { active_helpers_ += n; }
  void remove_unstarted_helpers(int n) {
    std::lock_guard lock(mutex_);
    active_helpers_ -= n;
  }
  void wait_for_helpers() {
    std::unique_lock lock(mutex_);
    helpers_done_.wait(lock, [&] { return active_helpers_ == 0; });
  }

 private:
  const int64_t count_;
  const int64_t chunk_;
  FunctionRef<void(int64_t, int64_t)> body_;
  std::atomic<int64_t> next_{0};
  bool stopped_ = false;  // the caller's alone
  std::mutex mutex_;
  std::condition_variable helpers_done_;
  int active_helpers_ = 0;
};

void JobQueue::grow() {
  std::vector<Runnable*> bigger(ring_.size() * 2);
  for (size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
  ring_.swap(bigger);
  head_ = 0;
}

void JobQueue::push_back(Runnable* job) {
  if (count_ == ring_.size()) grow();
  ring_[(head_ + count_++) % ring_.size()] = job;
}

void JobQueue::push_front(Runnable* job) {
  if (count_ == ring_.size()) grow();
  head_ = (head_ + ring_.size() - 1) % ring_.size();
  ring_[head_] = job;
  ++count_;
}

Runnable* JobQueue::pop_front() {
  Runnable* job = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --count_;
  return job;
}

int JobQueue::remove(Runnable* job) {
  size_t kept = 0;
  for (size_t i = 0; i < count_; ++i) {
    Runnable* j = ring_[(head_ + i) % ring_.size()];
    if (j != job) ring_[(head_ + kept++) % ring_.size()] = j;
  }
  const int removed = static_cast<int>(count_ - kept);
  count_ = kept;
  return removed;
}

ThreadPool::ThreadPool(int num_threads) {
  num_threads = std::max(1, num_threads);
  threads_.reserve(static_cast<size_t>(num_threads));
  for (int i = 0; i < num_threads; ++i)
    threads_.emplace_back([this, i] {
      current_worker = i;
      worker_loop();
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_.store(true, std::memory_order_relaxed);
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

ThreadPool& ThreadPool::shared(int num_threads) {
  static std::mutex pools_mutex;
  static std::map<int, std::unique_ptr<ThreadPool>> pools;
  if (num_threads <= 0) num_threads = default_thread_count();
  std::lock_guard lock(pools_mutex);
  auto& pool = pools[num_threads];
  if (!pool) pool = std::make_unique<ThreadPool>(num_threads);
  return *pool;
}

ThreadPool* ThreadPool::current() { return current_pool; }
bool ThreadPool::in_parallel_body() { return parallel_depth > 0; }
int ThreadPool::current_worker_index() { return current_worker; }

void ThreadPool::submit(Runnable* job) {
  std::lock_guard lock(mutex_);
  queue_.push_back(job);
  queued_.fetch_add(1, std::memory_order_release);
  wake_sleepers(1);
}

void ThreadPool::wake_sleepers(int jobs) {
  // A polling worker sees the job by itself; notifying costs a system call, so only sleepers
  // are woken. Notified under the lock: a worker counts itself a sleeper under it, too.
  for (int i = 0; i < std::min(jobs, sleepers_); ++i) wake_.notify_one();
}

void ThreadPool::wait_for_work(std::unique_lock<std::mutex>& lock) {
  if (!queue_.empty() || stopping_.load(std::memory_order_relaxed)) return;
  const auto give_up = std::chrono::steady_clock::now() + kIdleSpin;
  bool spinning = true;
  while (spinning) {
    lock.unlock();
    for (int polls = 1;; ++polls) {
      if (queued_.load(std::memory_order_acquire) > 0 || stopping_.load(std::memory_order_relaxed))
        break;
      cpu_relax();
      // The clock is read now and then: a read costs more than a poll.
      if (polls % 64 == 0 && std::chrono::steady_clock::now() >= give_up) {
        spinning = false;
        break;
      }
    }
    lock.lock();
    if (!queue_.empty() || stopping_.load(std::memory_order_relaxed)) return;
    // Another worker took the job first: poll on while the time lasts.
  }
  ++sleepers_;
  wake_.wait(lock, [&] { return stopping_.load(std::memory_order_relaxed) || !queue_.empty(); });
  --sleepers_;
}

void ThreadPool::worker_loop() {
  current_pool = this;
  for (;;) {
    Runnable* job;
    {
      std::unique_lock lock(mutex_);
      wait_for_work(lock);
      if (queue_.empty()) return;  // stopping and drained
      job = queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    job->run();
  }
}

void ThreadPool::parallel_for(int64_t count, int64_t grain,
                              FunctionRef<void(int64_t, int64_t)> body) {
  if (count <= 0) return;
  grain = std::max<int64_t>(1, grain);
  const int64_t max_chunks = (count + grain - 1) / grain;
  const int workers = parallel_depth > 0 ? 1 : num_threads();
  if (workers == 1 || max_chunks == 1) {
    const RunStop* stop = RunStop::current();
    if (!stop || max_chunks == 1) {
      body(0, count);
      return;
    }
    // Alone, in a few pieces, so that a run that must stop does so between them.
    const int64_t piece = std::max(grain, (count + 15) / 16);
    for (int64_t begin = 0; begin < count; begin += piece) {
      stop->check();
      body(begin, std::min(count, begin + piece));
    }
    return;
  }
  // A few chunks per thread balance uneven progress without much claiming overhead.
  const int64_t chunks = std::min<int64_t>(max_chunks, int64_t{workers} * 4);
  const int64_t chunk = (count + chunks - 1) / chunks;
  ParallelForTask task(count, chunk, body);
  const int helpers = static_cast<int>(std::min<int64_t>(workers - 1, chunks - 1));
  task.add_helpers(helpers);
  {
    std::lock_guard lock(mutex_);
    // Helpers go to the front: a parallel loop is on some job's critical path already.
    for (int i = 0; i < helpers; ++i) queue_.push_front(&task);
    queued_.fetch_add(helpers, std::memory_order_release);
    wake_sleepers(helpers);
  }
  const RunStop* stop = RunStop::current();
  task.run_chunks(stop);
  int withdrawn;
  {
    std::lock_guard lock(mutex_);
    withdrawn = queue_.remove(&task);
    queued_.fetch_sub(withdrawn, std::memory_order_relaxed);
  }
  task.remove_unstarted_helpers(withdrawn);
  task.wait_for_helpers();
  if (task.stop_requested()) stop->check();
}

void parallel_for(int64_t count, int64_t grain, FunctionRef<void(int64_t, int64_t)> body) {
  ThreadPool* pool = ThreadPool::current();
  (pool ? *pool : ThreadPool::shared()).parallel_for(count, grain, body);
}

}  // namespace kiln
