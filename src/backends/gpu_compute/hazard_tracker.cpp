#include "backends/gpu_compute/hazard_tracker.h"

#include <algorithm>

#include "backends/gpu_compute/buffer.h"

namespace kiln::gpu_compute {
namespace {

bool any_overlap(std::span<const MemorySpan> a, std::span<const MemorySpan> b) {
  return std::any_of(a.begin(), a.end(), [&](const MemorySpan& x) {
    return std::any_of(b.begin(), b.end(), [&](const MemorySpan& y) { return x.overlaps(y); });
  });
}

}  // namespace

MemorySpan memory_span(const Buffer& buffer) {
  return {buffer.memory(), buffer.memory_offset(),
          buffer.memory_offset() + buffer.allocated_size()};
}

void HazardTracker::note_set(VkDescriptorSet set, std::span<const Buffer* const> buffers) {
  std::vector<MemorySpan>& spans = sets_[set];
  spans.clear();
  for (const Buffer* b : buffers) spans.push_back(memory_span(*b));
}

bool HazardTracker::before_dispatch(VkDescriptorSet set, std::span<const Buffer* const> written) {
  std::vector<MemorySpan> wrote;
  for (const Buffer* b : written) wrote.push_back(memory_span(*b));
  // A set the tracker never saw: treat the dispatch as touching everything.
  auto it = sets_.find(set);
  const bool known = it != sets_.end();
  const std::span<const MemorySpan> accessed =
      known ? std::span<const MemorySpan>(it->second) : std::span<const MemorySpan>();
  const bool pending = unknown_ || !reads_.empty() || !writes_.empty();
  const bool barrier = pending && (!known || unknown_ || any_overlap(accessed, writes_) ||
                                   any_overlap(wrote, reads_));
  if (barrier) clear();
  unknown_ = unknown_ || !known;
  // Every bound buffer counts as read: a shader may read what it writes.
  if (known) reads_.insert(reads_.end(), accessed.begin(), accessed.end());
  writes_.insert(writes_.end(), wrote.begin(), wrote.end());
  return barrier;
}

bool HazardTracker::before_transfer(const Buffer& buffer, bool writes) {
  const MemorySpan touched[] = {memory_span(buffer)};
  const bool barrier =
      unknown_ || any_overlap(touched, writes_) || (writes && any_overlap(touched, reads_));
  if (barrier) clear();
  return barrier;
}

void HazardTracker::clear() {
  unknown_ = false;
  reads_.clear();
  writes_.clear();
}

}  // namespace kiln::gpu_compute
