// Host memory of a recording run's dead values, handed to later values of about the same size.
//
// A run with a new input signature has no memory plan yet: it allocates each value on its own
// and frees it once dead (Execution::release_dead_inputs). A large block comes fresh from the
// operating system, and touching it costs a page fault per 4 KiB page, about 3.5 us on a
// virtual machine: for a 128-token prompt through a 4-layer decoder (examples/tokengen), 40 MB
// of fresh activations made that first run about 60 ms (17 %) slower. Transformer layers, and most
// stages of a CNN, repeat their value sizes, so a dead value's block is usually the right size for
// one made a layer later: kept here, it is reused with its pages already resident.
//
// Bounded by kMaxBytes, oldest dropped first, so a recording run holds little more than its
// live values (the planned runs' arena is what it approximates), and emptied when the run ends.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/host_memory.h"
#include "core/tensor_impl.h"

namespace kiln {

class StorageRecycler {
 public:
  static constexpr size_t kMaxBytes = size_t{16} << 20;

  // Keeps `storage` (not of strings) when it is the last owner of a mapped host block (smaller
  // blocks come from the C++ heap, which reuses them anyway); otherwise just drops the reference.
  void give(std::shared_ptr<Storage> storage) {
    if (!storage || storage.use_count() != 1 || !storage->owned() ||
        storage->bytes() < kMappedBlockBytes || storage->bytes() > kMaxBytes) {
      return;
    }
    std::vector<std::shared_ptr<Storage>> evicted;  // freed after the lock is released
    std::lock_guard lock(mutex_);
    while (bytes_ + storage->bytes() > kMaxBytes) {
      bytes_ -= kept_.front()->bytes();
      evicted.push_back(std::move(kept_.front()));
      kept_.erase(kept_.begin());
    }
    bytes_ += storage->bytes();
    kept_.push_back(std::move(storage));
  }

  // A kept storage of at least `bytes` and at most an eighth more (the smallest such), or null.
  std::shared_ptr<Storage> take(size_t bytes) {
    if (bytes < kMappedBlockBytes) return nullptr;
    std::lock_guard lock(mutex_);
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      const size_t size = (*it)->bytes();
      if (size >= bytes && size <= bytes + bytes / 8 &&
          (best == kept_.end() || size < (*best)->bytes())) {
        best = it;
      }
    }
    if (best == kept_.end()) return nullptr;
    std::shared_ptr<Storage> storage = std::move(*best);
    kept_.erase(best);
    bytes_ -= storage->bytes();
    return storage;
  }

  void clear() {
    std::vector<std::shared_ptr<Storage>> dropped;
    std::lock_guard lock(mutex_);
    dropped.swap(kept_);
    bytes_ = 0;
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<Storage>> kept_;  // oldest first
  size_t bytes_ = 0;
};

}  // namespace kiln
