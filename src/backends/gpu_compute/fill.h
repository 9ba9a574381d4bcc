// Host side of shaders/fill.comp: tensors computed from their element index alone. A tensor
// filled with one value (ConstantOfShape), for float32, int32, int64 and bool elements; an
// identity-like matrix (EyeLike) of 4- or 8-byte numbers; a float32 cosine window (HannWindow,
// HammingWindow, BlackmanWindow); an arithmetic sequence (Range) of float32, int32, int64,
// float16 or bfloat16 elements.
//
//   context.kernel<Fill>().record(cmd, arena, Tensor::scalar<float>(1.0f), out, count);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/tensor.h"
#include "opdefs/cosine_window.h"

namespace kiln::gpu_compute {

// Mirrors the shader's push-constant block.
struct FillPushConstants {
  uint32_t words = 0;
  uint32_t period = 1;
  uint32_t pattern[2] = {};
  uint32_t mode = 0;  // 0: constant, 1: diagonal, 2: cosine window, 3: range
  uint32_t cols = 1;
  int32_t k = 0;
  uint32_t n = 0;
  float a0 = 0, a1 = 0, a2 = 0;
  uint32_t element = 0;   // range: 0 float32, 1 int32, 2 float16, 3 bfloat16, 4 int64
  uint32_t step[2] = {};  // range: delta (start is in pattern)
};
static_assert(sizeof(FillPushConstants) <= kMaxPushConstantBytes);

// Whether `value`'s element type is one the fill writes (1, 4 or 8 bytes).
bool fillable(DataType dtype);
// Whether EyeLike's diagonal writes elements of `dtype` (the 4- and 8-byte numbers).
bool diagonal_fillable(DataType dtype);
// Whether Range's sequence is written for elements of `dtype`.
bool range_fillable(DataType dtype);

class Fill {
 public:
  explicit Fill(Device& device, uint32_t workgroup_size = 256);

  // Records `count` elements of `out` set to the first element of the host tensor `value`,
  // then a barrier on `out`. kiln::Error for an element size the fill lacks.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& value, const Buffer& out,
              uint64_t count) const;

  // Records the [rows, cols] matrix `out` with the first element of `one` where column - row ==
  // k and zero elsewhere, then a barrier on `out`. kiln::Error unless diagonal_fillable.
  void record_diagonal(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& one,
                       const Buffer& out, int64_t rows, int64_t cols, int64_t k) const;

  // Records `size` float32 elements of `window` into `out` (N = size when periodic, else
  // size - 1), then a barrier on `out`.
  void record_cosine_window(VkCommandBuffer cmd, DescriptorArena& arena, const CosineWindow& window,
                            bool periodic, const Buffer& out, int64_t size) const;

  // Records `count` elements start + i * delta into `out`, of the host scalars' type (one of
  // range_fillable's: the float types computed in float32 as the CPU kernel does), then a
  // barrier on `out`. kiln::Error for another type.
  void record_range(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& start,
                    const Tensor& delta, const Buffer& out, int64_t count) const;

 private:
  void dispatch(VkCommandBuffer cmd, DescriptorArena& arena, const FillPushConstants& pc,
                const Buffer& out) const;

  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
