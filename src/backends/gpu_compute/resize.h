// Host side of shaders/resize.comp: ONNX Resize (and Upsample) of float32 tensors up to 6-D,
// every mode (nearest, linear, cubic), coordinate_transformation_mode, nearest_mode,
// cubic_coeff_a, exclude_outside, extrapolation_value and antialias. The interpolation taps of
// each axis come from the CPU kernel's code (compute_axis_taps), so the GPU matches the
// CPU up to float rounding (the CPU multiplies the outer weights in double).
//
// The executor fills one ResizeAxis per dimension (input and output length, scale, roi)
// exactly as the CPU Resize op does from the `scales`/`sizes`/`roi` inputs and the `axes` and
// `keep_aspect_ratio_policy` attributes, then:
//
//   const ResizePlan plan = plan_resize(in_shape, axes, options);
//   Buffer table(device, plan.table_bytes(), MemoryUse::DeviceLocal);
//   upload(device, table, std::as_bytes(std::span(plan.table)));
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     resize.record(cmd, arena, plan, x, table, y);  // y holds plan.out_shape
//   });
//
// The table is small (the sum over axes of out_len * (1 + 2 * taps)), depends only on shapes and
// attributes, and can be uploaded once per shape.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/shape.h"
#include "opdefs/resize.h"

namespace kiln::gpu_compute {

constexpr int kResizeMaxRank = 6;

// Mirrors the shader's push-constant block (std430: plain arrays, no padding).
struct ResizePushConstants {
  uint32_t rank = 0;
  uint32_t count = 0;
  float fill = 0.0f;
  uint32_t nearest = 0;
  uint32_t out_shape[kResizeMaxRank] = {};
  uint32_t in_stride[kResizeMaxRank] = {};
  uint32_t table_offset[kResizeMaxRank] = {};
  uint32_t max_taps[kResizeMaxRank] = {};
};
static_assert(sizeof(ResizePushConstants) <= kMaxPushConstantBytes);

struct ResizePlan {
  Shape out_shape;
  uint64_t in_elements = 0;
  std::vector<uint32_t> table;  // the tap tables the shader reads (layout in the shader)
  ResizePushConstants push;
  size_t table_bytes() const { return table.size() * sizeof(uint32_t); }
};

// kiln::Error when `axes` does not match the rank, the rank exceeds 6, an input axis is empty
// while the output is not, or sizes exceed 32-bit indexing. A scalar resizes as shape [1].
ResizePlan plan_resize(const Shape& in_shape, std::span<const ResizeAxis> axes,
                       const ResizeOptions& options);

class Resize {
 public:
  explicit Resize(Device& device, uint32_t workgroup_size = 256);

  // Records y = Resize(x) followed by a barrier on `y`; nothing for an empty output.
  // kiln::Error for buffers smaller than the plan's shapes and table.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ResizePlan& plan, const Buffer& x,
              const Buffer& table, const Buffer& y) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
