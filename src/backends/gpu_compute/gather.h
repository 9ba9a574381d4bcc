// Host side of shaders/gather.comp: ONNX Gather, GatherElements and GatherND for 32- and 64-bit
// data with int32 or int64 indices. The shader clamps every index into its axis, so indices that
// live on the device cannot make it read out of bounds; callers with host-resident indices
// validate them first (gather_indices_in_range) so that bad ones fail with the CPU's message.
//
//   const auto plan = gather_plan({4, 5}, {3}, 1, DataType::Float32, DataType::Int64);
//   context.kernel<Gather>().record(cmd, arena, plan->pc, data, indices, out);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"
#include "kiln/tensor.h"

namespace kiln::gpu_compute {

// 8 covers the rank-7 tensors of 5-D spatial losses (N, C, d1..d5) within 128 push bytes.
constexpr int kGatherMaxRank = 8;

// Mirrors the shader's push-constant block.
struct GatherPushConstants {
  uint32_t count = 0;
  uint32_t elements = 0;
  uint32_t words = 1;
  uint32_t index_words = 1;
  uint32_t dim = 1;
  uint32_t n = 1;
  uint32_t inner = 1;
  uint32_t axis_stride = 1;
  uint32_t rank = 0;
  uint32_t axis = 0;
  uint32_t shape[kGatherMaxRank] = {};
  uint32_t stride[kGatherMaxRank] = {};
};
static_assert(sizeof(GatherPushConstants) <= kMaxPushConstantBytes);

// Whether every value of the host tensor `indices` (int32 or int64) lies in [-dim, dim).
bool gather_indices_in_range(const Tensor& indices, int64_t dim);

// Push constants for Gather / GatherElements of `data` by `indices` along `axis`, and the output
// shape. nullopt when the shader cannot run them: malformed shapes or axis (left to the CPU
// kernel, which reports them), an index type other than int32/int64, more than 2^31 words, or
// (GatherElements) rank above kGatherMaxRank.
struct GatherPlan {
  GatherPushConstants pc;
  Shape out_shape;
};
std::optional<GatherPlan> gather_plan(const Shape& data, const Shape& indices, int64_t axis,
                                      DataType dtype, DataType index_type);
std::optional<GatherPlan> gather_elements_plan(const Shape& data, const Shape& indices,
                                               int64_t axis, DataType dtype, DataType index_type);
// GatherND with `batch_dims` leading dims shared by data and indices; nullopt likewise (and for
// tuples longer than kGatherMaxRank).
std::optional<GatherPlan> gather_nd_plan(const Shape& data, const Shape& indices,
                                         int64_t batch_dims, DataType dtype, DataType index_type);

// Whether every tuple of the host GatherND indices (int32 or int64, the last dim k long)
// addresses data: component j in [-dim, dim) for data's dim batch_dims + j.
bool gather_nd_indices_in_range(const Tensor& indices, const Shape& data, int64_t batch_dims);

class Gather {
 public:
  explicit Gather(Device& device, uint32_t workgroup_size = 256);

  // Records out = gather(data, indices) with `pc` from a plan above, then a barrier on
  // `out`; nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const GatherPushConstants& pc,
              const Buffer& data, const Buffer& indices, const Buffer& out) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
