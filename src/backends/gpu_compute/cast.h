// Host side of shaders/cast.comp: element type conversion between float32, float16, bfloat16,
// int32, int64 and bool, matching the CPU's Cast exactly (truncation toward zero; NaN and
// out-of-range floats become the integer type's minimum; integers wrap; "!= 0" to bool). Needs no
// shaderInt64.
//
//   context.kernel<Cast>().record(cmd, arena, DataType::Float32, x, DataType::Int64, y, n);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"

namespace kiln::gpu_compute {

// The shader's type codes; the order is part of the shader interface.
enum class CastType : uint32_t { Float32, Int32, Int64, Bool, Float16, BFloat16 };

// The code of `dtype`, or nullopt for a type the shader does not convert.
std::optional<CastType> cast_type(DataType dtype);

struct CastPushConstants {
  uint32_t count = 0;
  uint32_t from = 0;
  uint32_t to = 0;
};
static_assert(sizeof(CastPushConstants) <= kMaxPushConstantBytes);

class Cast {
 public:
  explicit Cast(Device& device, uint32_t workgroup_size = 256);

  // Records out = cast(in) over `count` elements, then a barrier on `out`. kiln::Error for a
  // type without a code or a count beyond 32-bit word indexing; nothing for count 0.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, DataType from, const Buffer& in,
              DataType to, const Buffer& out, uint64_t count) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
