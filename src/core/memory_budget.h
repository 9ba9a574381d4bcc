// A memory budget: the host bytes that one worker's runs (or one model load) may hold at once.
// Storage::allocate charges the budget of the calling thread's MemoryScope before it allocates
// and the storage gives the bytes back when it is freed, so a kernel, a plan or a weight that
// would go past the limit is a kiln::Error naming what asked and how much, never an
// out-of-memory kill. Allocations made outside any scope (the user's own tensors, threads of a
// parallel loop) are held only to the default limit, one allocation at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln {

// The limit a budget gets when none is given: three quarters of the memory this process may use
// (the machine's physical memory, or its control group's limit when lower).
uint64_t default_memory_limit();

class MemoryBudget : public std::enable_shared_from_this<MemoryBudget> {
 public:
  // limit 0: default_memory_limit().
  static std::shared_ptr<MemoryBudget> create(uint64_t limit);

  uint64_t limit() const { return limit_; }
  uint64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }

  // Charges `bytes`, or throws kiln::Error naming `what` and the bytes asked when they would
  // take the budget past its limit (nothing is charged then).
  void charge(uint64_t bytes, const std::string& what);
  void release(uint64_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }

 private:
  explicit MemoryBudget(uint64_t limit) : limit_(limit) {}
  uint64_t limit_;
  std::atomic<uint64_t> in_use_{0};
  std::atomic<uint64_t> peak_{0};
};

// Who is allocating on this thread, for the budget's error message: the runtime points it at the
// node whose kernel runs (describe(context) gives "node 'x' (Op)").
struct AllocationSite {
  const void* context = nullptr;
  std::string (*describe)(const void* context) = nullptr;
  std::string to_string() const { return describe ? describe(context) : "an allocation"; }
  // A site named by a string that outlives the scope.
  static AllocationSite named(const std::string& what) {
    return {&what, [](const void* s) { return *static_cast<const std::string*>(s); }};
  }
};

// While alive, Storage::allocate on this thread charges `budget` (null: none) and names `site`.
// Scopes nest; the innermost wins.
class MemoryScope {
 public:
  MemoryScope(MemoryBudget* budget, AllocationSite site = {});
  ~MemoryScope();
  MemoryScope(const MemoryScope&) = delete;
  MemoryScope& operator=(const MemoryScope&) = delete;

  static MemoryBudget* budget();
  static const AllocationSite& site();

 private:
  MemoryBudget* saved_budget_;
  AllocationSite saved_site_;
};

// Charges the calling thread's budget (or checks the default limit when there is none) for an
// allocation of `bytes`; returns the budget charged, which the caller releases on free.
std::shared_ptr<MemoryBudget> charge_allocation(uint64_t bytes);

}  // namespace kiln
