#include "core/host_memory.h"

#include <sys/mman.h>

#include <new>

namespace kiln {

void* allocate_host_block(size_t bytes) {
  if (bytes < kMappedBlockBytes) return ::operator new (bytes, std::align_val_t{64}, std::nothrow);
  // Page-aligned and zero-filled; pages are only made resident when first touched.
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return block == MAP_FAILED ? nullptr : block;
}

void free_host_block(void* block, size_t bytes) {
  if (!block) return;
  if (bytes < kMappedBlockBytes)
    ::operator delete (block, std::align_val_t{64});
  else
    munmap(block, bytes);
}

}  // namespace kiln
