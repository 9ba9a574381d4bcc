// Host memory for tensors: 64-byte aligned blocks, small ones from the C++ heap and large ones
// mapped straight from the operating system.
//
// Why not the heap for everything: after the C library frees a large block it raises its own
// threshold for mapping blocks, so later large blocks come from the heap. With input shapes that
// change from run to run, those blocks are of ever new sizes, fragment the heap and stay
// resident: a model with a 10 MiB arena held 200 MiB after 12,500 runs of new widths. A mapped
// block goes back to the system when it is freed.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace kiln {

// Blocks of at least this many bytes are mapped.
inline constexpr size_t kMappedBlockBytes = size_t{128} << 10;

// A block of `bytes` (> 0), 64-byte aligned; nullptr when the system refuses.
void* allocate_host_block(size_t bytes);
// Frees a block from allocate_host_block; `bytes` is the size it was allocated with.
void free_host_block(void* block, size_t bytes);

// Frees a host block of `bytes` bytes.
struct HostBlockDeleter {
  size_t bytes = 0;
  void operator()(void* block) const { free_host_block(block, bytes); }
};

// An array of trivial T in a host block, contents uninitialised: for long-lived buffers that are
// made while a model runs (weights packed on first use), which would otherwise be heap blocks
// between the run's transient ones and pin the holes those leave.
template <class T>
using HostArray = std::unique_ptr<T[], HostBlockDeleter>;

// n (> 0) T in a host block; std::bad_alloc when the system refuses.
template <class T>
HostArray<T> allocate_host_array(size_t n) {
  const size_t bytes = n * sizeof(T);
  void* block = allocate_host_block(bytes);
  if (!block) throw std::bad_alloc();
  return HostArray<T>(static_cast<T*>(block), HostBlockDeleter{bytes});
}

}  // namespace kiln
