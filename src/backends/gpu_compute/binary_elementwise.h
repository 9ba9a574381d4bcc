// Host side of shaders/binary_elementwise.comp: float32 Add/Sub/Mul/Div/Pow/Max/Min/PRelu/Mod
// with numpy broadcasting, up to 6 dimensions after dropping the output's size-1 dimensions.
//
//   BinaryElementwise kernel(device);
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     kernel.record(cmd, arena, BinaryOp::Add, a, a_shape, b, b_shape, c);
//   });
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/shape.h"

namespace kiln::gpu_compute {

// The shader's op codes; the order is part of the shader interface. Mod is ONNX Mod with fmod=1
// (C's fmod, exact; float Mod requires fmod=1). ClipBelow and ClipAbove are Clip's two bounds as
// the CPU applies them (x < b ? b : x, x > b ? b : x): a NaN x passes, and so does x past a NaN
// bound, where Max and Min propagate NaN.
enum class BinaryOp : uint32_t {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max,
  Min,
  PRelu,
  Mod,
  ClipBelow,
  ClipAbove
};

constexpr int kBinaryMaxRank = 6;

// Mirrors the shader's push-constant block (std430: plain uint arrays, no padding).
struct BinaryPushConstants {
  uint32_t op = 0;
  uint32_t rank = 0;
  uint32_t count = 0;
  uint32_t shape[kBinaryMaxRank] = {};
  uint32_t a_stride[kBinaryMaxRank] = {};
  uint32_t b_stride[kBinaryMaxRank] = {};
};
static_assert(sizeof(BinaryPushConstants) <= kMaxPushConstantBytes);

// Push constants for c = a <op> b. kiln::Error when the output has more than 6 non-unit
// dimensions or more elements than 32-bit indexing reaches.
BinaryPushConstants binary_push_constants(BinaryOp op, const Shape& a, const Shape& b);

class BinaryElementwise {
 public:
  explicit BinaryElementwise(Device& device, uint32_t workgroup_size = 256);

  // Records c = a <op> b (c sized for the broadcast shape) followed by a barrier on c.
  // Records nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, BinaryOp op, const Buffer& a,
              const Shape& a_shape, const Buffer& b, const Shape& b_shape, const Buffer& c) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
