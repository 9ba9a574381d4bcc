#include "core/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "kiln/error.h"

namespace kiln {

namespace {

thread_local MemoryBudget* scope_budget = nullptr;
thread_local AllocationSite scope_site;

uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return uint64_t{8} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

// cgroup v2's memory.max of this process's group ("max" or absent: no limit).
uint64_t cgroup_limit() {
  std::ifstream group("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(group, line)) {
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  }
  std::ifstream max_file("/sys/fs/cgroup" + path + "/memory.max");
  std::string value;
  if (!(max_file >> value) || value == "max") return UINT64_MAX;
  try {
    return std::stoull(value);
  } catch (...) {
    return UINT64_MAX;
  }
}

std::string mib(uint64_t bytes) {
  const uint64_t tenths = bytes * 10 / (uint64_t{1} << 20);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

}  // namespace

uint64_t default_memory_limit() {
  static const uint64_t limit = std::min(physical_memory(), cgroup_limit()) / 4 * 3;
  return limit;
}

std::shared_ptr<MemoryBudget> MemoryBudget::create(uint64_t limit) {
  return std::shared_ptr<MemoryBudget>(new MemoryBudget(limit ? limit : default_memory_limit()));
}

void MemoryBudget::charge(uint64_t bytes, const std::string& what) {
  uint64_t used = in_use_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ || used > limit_ - bytes) {
      throw Error(what + " asks for " + std::to_string(bytes) + " bytes (" + mib(bytes) +
                  "), past the memory limit of " + std::to_string(limit_) + " bytes (" +
                  mib(limit_) + ", " + mib(used) + " in use)");
    }
  } while (!in_use_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (used + bytes > peak &&
         !peak_.compare_exchange_weak(peak, used + bytes, std::memory_order_relaxed)) {
  }
}

MemoryScope::MemoryScope(MemoryBudget* budget, AllocationSite site)
    : saved_budget_(scope_budget), saved_site_(scope_site) {
  scope_budget = budget;
  scope_site = site;
}

MemoryScope::~MemoryScope() {
  scope_budget = saved_budget_;
  scope_site = saved_site_;
}

MemoryBudget* MemoryScope::budget() { return scope_budget; }
const AllocationSite& MemoryScope::site() { return scope_site; }

std::shared_ptr<MemoryBudget> charge_allocation(uint64_t bytes) {
  if (scope_budget) {
    scope_budget->charge(bytes, scope_site.to_string());
    return scope_budget->shared_from_this();
  }
  const uint64_t limit = default_memory_limit();
  if (bytes > limit) {
    throw Error(scope_site.to_string() + " asks for " + std::to_string(bytes) +
                " bytes, past the memory limit of " + std::to_string(limit) + " bytes (" +
                mib(limit) + ")");
  }
  return nullptr;
}

}  // namespace kiln
