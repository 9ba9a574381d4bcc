// Host side of shaders/reduce.comp: float32 reductions of lines of elements into one value
// each — the Reduce* ops, ArgMax / ArgMin (int64 results) and the global pools. A workgroup
// reduces one line with a shared-memory tree.
//
//   const std::optional<ReduceProblem> p = reduce_problem(shape, mask, ReduceOp::Sum);
//   kernel.record(cmd, arena, *p, x, y);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/shape.h"
#include "opdefs/reduce.h"

namespace kiln::gpu_compute {

// The shader's op codes are kiln::ReduceOp's values (opdefs/reduce.h).

constexpr uint32_t kReduceMaxRank = 4;
constexpr int64_t kReduceSerialLine = 16;

// Mirrors the shader's push-constant block.
struct ReducePushConstants {
  uint32_t op = 0, lines = 0, n = 0, select_last = 0;
  uint32_t kept_rank = 0, reduced_rank = 0, serial = 0;
  uint32_t kept_size[kReduceMaxRank] = {};
  uint32_t kept_stride[kReduceMaxRank] = {};
  uint32_t reduced_size[kReduceMaxRank] = {};
  uint32_t reduced_stride[kReduceMaxRank] = {};
};
static_assert(sizeof(ReducePushConstants) <= kMaxPushConstantBytes);

struct ReduceProblem {
  ReducePushConstants pc;
};

// The reduction of a row-major tensor of `shape` over the dimensions where `reduced` is true,
// one result per combination of the kept dimensions, in row-major order. Extents of 1 are
// dropped and neighbours of the same kind merged; nullopt when more than kReduceMaxRank runs
// of kept or of reduced dimensions remain, or an index exceeds 32 bits. ArgMax / ArgMin take
// `select_last` (the last of equal extremes rather than the first). Lines up to
// kReduceSerialLine elements are reduced one per invocation rather than one per workgroup.
std::optional<ReduceProblem> reduce_problem(const Shape& shape, const std::vector<bool>& reduced,
                                            ReduceOp op, bool select_last = false);

// Mirrors shaders/reduce_int.comp's push-constant block.
struct ReduceIntPushConstants {
  ReducePushConstants base;
  uint32_t type = 0;  // 0: int32, 1: int64, 2: bool
};
static_assert(sizeof(ReduceIntPushConstants) <= kMaxPushConstantBytes);

class Reduce {
 public:
  explicit Reduce(Device& device);

  // y[line] = the reduction of x over that line: float32, or int64 for ArgMax / ArgMin.
  // Records nothing when there are no lines.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ReduceProblem& problem,
              const Buffer& x, const Buffer& y) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Sum, Prod, Max and Min of int32 or int64 lines (shaders/reduce_int.comp), one invocation a
// line; sums and products wrap. Max and Min of bool lines (any, all). The problem's lines must
// not be empty.
class ReduceInt {
 public:
  explicit ReduceInt(Device& device);

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ReduceProblem& problem,
              DataType dtype, const Buffer& x, const Buffer& y) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
