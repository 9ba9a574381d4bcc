#include "ops/shared_packed_weights.h"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "backends/cpu/simd_target.h"
#include "core/tensor_impl.h"

namespace kiln {

namespace {

// Which packing of which bytes. The storage is held weakly beside the key: a key whose storage
// is gone names freed memory that a new constant may now occupy, and never matches.
using Key = std::tuple<const Storage*, size_t, bool, int64_t, int64_t, int64_t, std::string>;

struct Entry {
  std::weak_ptr<Storage> storage;
  std::weak_ptr<const PackedWeights> packed;
};

struct Cache {
  std::mutex mutex;
  std::map<Key, Entry> entries;

  // Drops the entries nobody holds any more, so that the map does not grow with every model.
  void prune() {
    for (auto it = entries.begin(); it != entries.end();) {
      it = it->second.packed.expired() || it->second.storage.expired() ? entries.erase(it)
                                                                       : std::next(it);
    }
  }
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: kernels may outlive static destruction order
  return *c;
}

}  // namespace

std::shared_ptr<const PackedWeights> shared_packed_b(const Tensor& b, bool trans, int64_t k,
                                                     int64_t n, int64_t ldb) {
  const auto pack = [&] {
    auto w = std::make_shared<PackedWeights>();
    w->shape = b.shape();
    cpu::pack_b(trans, k, n, b.data<float>(), ldb, w->packed);
    return w;
  };
  const std::shared_ptr<Storage>& storage = b.impl()->storage;
  if (!storage) return pack();  // nothing to share by
  const Key key{storage.get(), b.impl()->offset, trans, k, n, ldb, cpu::simd_target_name()};
  Cache& c = cache();
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.entries.find(key); it != c.entries.end() && !it->second.storage.expired()) {
      if (auto packed = it->second.packed.lock()) return packed;
    }
  }
  // Packed outside the lock: other layers pack their own weights meanwhile. Two kernels packing
  // the same constant at once both pack; the later one's copy is the one kept for later kernels.
  std::shared_ptr<const PackedWeights> w = pack();
  std::lock_guard lock(c.mutex);
  c.prune();
  c.entries[key] = Entry{storage, w};
  return w;
}

}  // namespace kiln
