// Host side of shaders/logical_elementwise.comp: comparisons (bool result) of float32, int32 or
// int64; And/Or/Xor/Not of bools; IsNaN/IsInf of float32; and Where (bool condition, 32- or
// 64-bit values), all with numpy broadcasting of up to three operands.
//
//   const auto pc = logical_push_constants(LogicalOp::Less, DataType::Int64, {{2, 3}, {3}});
//   context.kernel<LogicalElementwise>().record(cmd, arena, *pc, {&x, &y}, out);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"

namespace kiln::gpu_compute {

// The shader's op codes; the order is part of the shader interface.
enum class LogicalOp : uint32_t {
  Equal,
  Less,
  LessOrEqual,
  Greater,
  GreaterOrEqual,
  And,
  Or,
  Xor,
  Not,
  IsNaN,
  IsInf,
  Where
};

constexpr int kLogicalMaxRank = 6;

// Mirrors the shader's push-constant block.
struct LogicalPushConstants {
  uint32_t op = 0;
  uint32_t type = 0;
  uint32_t flags = 0;
  uint32_t count = 0;
  uint32_t rank = 0;
  uint32_t shape[kLogicalMaxRank] = {};
  uint32_t stride[3][kLogicalMaxRank] = {};
};
static_assert(sizeof(LogicalPushConstants) <= kMaxPushConstantBytes);

// The broadcast shape of `shapes`; nullopt when they do not broadcast.
std::optional<Shape> broadcast_all(std::span<const Shape> shapes);

// Push constants for `op` over operands of `shapes` (1 to 3), `type` being the compared
// operands' type (comparisons) or the values' type (Where): float32, int32 or int64, and for
// the comparisons also int8, uint8, int16, uint16, uint32 and uint64. nullopt
// when the shapes do not broadcast (the CPU kernel reports it), or the output is beyond the
// shader: more than 6 dimensions that are not 1, or more than 2^31 - 1 words.
std::optional<LogicalPushConstants> logical_push_constants(LogicalOp op, DataType type,
                                                           std::span<const Shape> shapes,
                                                           uint32_t flags = 0);

class LogicalElementwise {
 public:
  explicit LogicalElementwise(Device& device, uint32_t workgroup_size = 256);

  // Records out = op(operands...) with push constants from above, then a barrier on `out`.
  // Missing operands (fewer than 3) are bound to the first. Nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const LogicalPushConstants& pc,
              std::span<const Buffer* const> operands, const Buffer& out) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
