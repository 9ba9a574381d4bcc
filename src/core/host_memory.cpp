#include "core/host_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

namespace kiln {
namespace {

// Blocks of at least this many bytes ask for 2 MiB pages (Linux's transparent huge pages, which
// Debian's default "madvise" mode gives to mappings that ask). The first touch of each page of
// a fresh block is a page fault, about 3.5 us a 4 KiB page on a virtual machine: a 16 MB output
// (a 128-token prompt's logits) cost 14 ms of faults, against 2-4 ms in 2 MiB pages. Smaller
// blocks would round up to whole huge pages for little gain.
constexpr size_t kHugeBlockBytes = size_t{4} << 20;
constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;

// Page-aligned and zero-filled; pages are only made resident when first touched.
void* map_block(size_t bytes) {
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return block == MAP_FAILED ? nullptr : block;
}

#ifdef MADV_HUGEPAGE
// Only whole 2 MiB ranges at 2 MiB boundaries become huge pages: the block is mapped 2 MiB
// larger and trimmed to start at one. Where the kernel has no huge pages, the advice is
// ignored and the block is an ordinary one.
void* map_huge_block(size_t bytes) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t length = (bytes + page - 1) / page * page;
  auto* raw = static_cast<char*>(map_block(length + kHugePageBytes));
  if (!raw) return nullptr;
  const uintptr_t base = reinterpret_cast<uintptr_t>(raw);
  char* start = raw + ((kHugePageBytes - base % kHugePageBytes) % kHugePageBytes);
  if (start > raw) munmap(raw, static_cast<size_t>(start - raw));
  char* end = raw + length + kHugePageBytes;
  if (end > start + length) munmap(start + length, static_cast<size_t>(end - (start + length)));
  madvise(start, length, MADV_HUGEPAGE);
  return start;
}
#endif

}  // namespace

void* allocate_host_block(size_t bytes) {
  if (bytes < kMappedBlockBytes) return ::operator new (bytes, std::align_val_t{64}, std::nothrow);
#ifdef MADV_HUGEPAGE
  if (bytes >= kHugeBlockBytes) return map_huge_block(bytes);
#endif
  return map_block(bytes);
}

void free_host_block(void* block, size_t bytes) {
  if (!block) return;
  if (bytes < kMappedBlockBytes)
    ::operator delete (block, std::align_val_t{64});
  else
    munmap(block, bytes);
}

}  // namespace kiln
