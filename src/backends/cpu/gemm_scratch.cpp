// Per-thread packing buffers for the GEMM (see gemm_detail.h).
#include <array>

#include "backends/cpu/gemm_detail.h"
#include "hwy/aligned_allocator.h"

namespace kiln::cpu::gemm_detail {

namespace {
struct Buffer {
  hwy::AlignedFreeUniquePtr<float[]> data;
  size_t capacity = 0;
};
thread_local std::array<Buffer, static_cast<size_t>(Scratch::kCount)> buffers;
}  // namespace

float* thread_scratch(Scratch slot, size_t floats) {
  Buffer& buffer = buffers[static_cast<size_t>(slot)];
  if (floats > buffer.capacity || buffer.data == nullptr) {
    // Headroom so that a slowly growing sequence of shapes does not reallocate every time; the
    // padding also lets kernels read a vector past the last element.
    const size_t capacity = floats + floats / 4 + 64;
    buffer.data = hwy::AllocateAligned<float>(capacity);
    buffer.capacity = capacity;
  }
  return buffer.data.get();
}

}  // namespace kiln::cpu::gemm_detail
