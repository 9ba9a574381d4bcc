#include "backends/gpu_compute/fill.h"

#include <cstring>
#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

bool fillable(DataType dtype) {
  return dtype == DataType::Float32 || dtype == DataType::Int32 || dtype == DataType::Int64 ||
         dtype == DataType::Bool;
}

Fill::Fill(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::fill(), 1, sizeof(FillPushConstants), workgroup_size}) {}

void Fill::record(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& value,
                  const Buffer& out, uint64_t count) const {
  check(fillable(value.dtype()) && value.element_count() >= 1,
        "fill on the GPU: no kernel for " + std::string(dtype_name(value.dtype())));
  const size_t size = dtype_size(value.dtype());
  const uint64_t words = (count * size + 3) / 4;
  if (words == 0) return;
  check(words < (uint64_t{1} << 32), "fill on the GPU: beyond 32-bit word indexing");
  FillPushConstants pc;
  pc.words = static_cast<uint32_t>(words);
  const auto* bytes = static_cast<const uint8_t*>(value.raw_data());
  if (size == 1) {
    pc.pattern[0] = uint32_t{bytes[0]} * 0x01010101u;
  } else {
    std::memcpy(pc.pattern, bytes, size);
    pc.period = static_cast<uint32_t>(size / 4);
  }
  const Buffer* buffers[] = {&out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, words), written);
}

}  // namespace kiln::gpu_compute
