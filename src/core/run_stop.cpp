#include "core/run_stop.h"

#include <chrono>
#include <string>

#include "kiln/error.h"

namespace kiln {

namespace {
thread_local const RunStop* current_stop = nullptr;
}

int64_t steady_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RunStop::start(const std::atomic<uint64_t>* cancel_count, int64_t deadline_ns) {
  cancel_count_ = cancel_count;
  start_count_ = cancel_count ? cancel_count->load(std::memory_order_acquire) : 0;
  deadline_ns_ = deadline_ns;
  deadline_budget_ns_ = deadline_ns ? deadline_ns - steady_clock_ns() : 0;
  reason_.store(0, std::memory_order_relaxed);
}

RunStop::Reason RunStop::reason() const {
  int r = reason_.load(std::memory_order_relaxed);
  if (r != 0) return static_cast<Reason>(r);
  if (cancel_count_ && cancel_count_->load(std::memory_order_acquire) != start_count_) {
    r = static_cast<int>(Reason::Cancelled);
  } else if (deadline_ns_ != 0 && steady_clock_ns() > deadline_ns_) {
    r = static_cast<int>(Reason::DeadlineExceeded);
  } else {
    return Reason::None;
  }
  reason_.store(r, std::memory_order_relaxed);
  return static_cast<Reason>(r);
}

void RunStop::check() const {
  switch (reason()) {
    case Reason::None:
      return;
    case Reason::Cancelled:
      throw Error("run cancelled");
    case Reason::DeadlineExceeded:
      throw Error("deadline exceeded (the run's deadline was " +
                  std::to_string(deadline_budget_ns_ / 1000000) + " ms after it was scheduled)");
  }
}

const RunStop* RunStop::current() { return current_stop; }

void RunStop::check_current() {
  if (current_stop) current_stop->check();
}

RunStop::Scope::Scope(const RunStop* stop) : saved_(current_stop) { current_stop = stop; }
RunStop::Scope::~Scope() { current_stop = saved_; }

}  // namespace kiln
