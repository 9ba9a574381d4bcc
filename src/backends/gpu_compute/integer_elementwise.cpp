#include "backends/gpu_compute/integer_elementwise.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

// Checked before the pipeline exists: a device without shaderInt64 cannot create it.
Device& with_int64(Device& device) {
  check(device.info().has_int64, "integer ops on the GPU need shaderInt64");
  return device;
}

}  // namespace

IntegerPushConstants integer_push_constants(IntegerOp op, DataType type, const Shape& a,
                                            const Shape& b) {
  check(type == DataType::Int32 || type == DataType::Int64,
        "integer op on the GPU: no kernel for " + std::string(dtype_name(type)));
  IntegerPushConstants pc;
  pc.layout = binary_push_constants(BinaryOp::Add, a, b);
  pc.layout.op = static_cast<uint32_t>(op);
  pc.is64 = type == DataType::Int64 ? 1 : 0;
  return pc;
}

IntegerElementwise::IntegerElementwise(Device& device, uint32_t workgroup_size)
    : device_(with_int64(device)),
      pipeline_(device, PipelineDesc{shaders::integer_elementwise(), 3,
                                     sizeof(IntegerPushConstants), workgroup_size}) {}

void IntegerElementwise::record(VkCommandBuffer cmd, DescriptorArena& arena,
                                const IntegerPushConstants& pc, const Buffer& a, const Buffer& b,
                                const Buffer& c) const {
  if (pc.layout.count == 0) return;
  const Buffer* buffers[] = {&a, &b, &c};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&c};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, pc.layout.count), written);
}

}  // namespace kiln::gpu_compute
