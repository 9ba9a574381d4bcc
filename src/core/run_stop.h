// Cancellation and deadlines of a run. A worker counts its cancel() calls; a run notes the count
// when it starts and is cancelled once the count moves on, so cancel() touches no run state and
// is safe from any thread while the worker schedules. The run's jobs check between layers, and
// loops (Loop and Scan iterations, parallel loops of long kernels) check through
// RunStop::check_current() on the thread that runs the layer.
#pragma once

#include <atomic>
#include <cstdint>

namespace kiln {

class RunStop {
 public:
  enum class Reason : int { None, Cancelled, DeadlineExceeded };

  // A new run: cancelled once *cancel_count differs from its value now; past deadline_ns on
  // the steady clock (0: none) it is out of time.
  void start(const std::atomic<uint64_t>* cancel_count, int64_t deadline_ns);
  Reason reason() const;
  // Throws kiln::Error("run cancelled" / "deadline exceeded ...") once the run must stop.
  void check() const;

  // The run the calling thread works for (null: none), set by the runtime around its layers.
  static const RunStop* current();
  // Checks the current run, if any: for kernels that loop for long.
  static void check_current();

  class Scope {
   public:
    explicit Scope(const RunStop* stop);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const RunStop* saved_;
  };

 private:
  const std::atomic<uint64_t>* cancel_count_ = nullptr;
  uint64_t start_count_ = 0;
  int64_t deadline_ns_ = 0;
  int64_t deadline_budget_ns_ = 0;  // for the message
  mutable std::atomic<int> reason_{0};
};

int64_t steady_clock_ns();

}  // namespace kiln
