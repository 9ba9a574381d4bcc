#include "backends/gpu_compute/cast.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

std::optional<CastType> cast_type(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
      return CastType::Float32;
    case DataType::Int32:
      return CastType::Int32;
    case DataType::Int64:
      return CastType::Int64;
    case DataType::Bool:
      return CastType::Bool;
    case DataType::Float16:
      return CastType::Float16;
    case DataType::BFloat16:
      return CastType::BFloat16;
    default:
      return std::nullopt;
  }
}

Cast::Cast(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::cast(), 2, sizeof(CastPushConstants), workgroup_size}) {}

void Cast::record(VkCommandBuffer cmd, DescriptorArena& arena, DataType from, const Buffer& in,
                  DataType to, const Buffer& out, uint64_t count) const {
  const std::optional<CastType> f = cast_type(from), t = cast_type(to);
  check(f && t, "Cast on the GPU: no kernel from " + std::string(dtype_name(from)) + " to " +
                    std::string(dtype_name(to)));
  if (count == 0) return;
  // int64 elements are two words, and the shader indexes words in 32 bits.
  check(count < (uint64_t{1} << 31),
        "Cast on the GPU: " + std::to_string(count) + " elements exceed 32-bit indexing");
  const CastPushConstants pc{static_cast<uint32_t>(count), static_cast<uint32_t>(*f),
                             static_cast<uint32_t>(*t)};
  // A bool output is written a word (4 elements) per invocation, a 16-bit float one 2.
  const bool half = *t == CastType::Float16 || *t == CastType::BFloat16;
  const uint64_t invocations =
      *t == CastType::Bool ? (count + 3) / 4 : (half ? (count + 1) / 2 : count);
  const Buffer* buffers[] = {&in, &out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

}  // namespace kiln::gpu_compute
