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

std::optional<IntegerType> integer_type(DataType dtype) {
  switch (dtype) {
    case DataType::Int32:
      return IntegerType::Int32;
    case DataType::Int64:
      return IntegerType::Int64;
    case DataType::Int8:
      return IntegerType::Int8;
    case DataType::UInt8:
      return IntegerType::UInt8;
    case DataType::Int16:
      return IntegerType::Int16;
    case DataType::UInt16:
      return IntegerType::UInt16;
    case DataType::UInt32:
      return IntegerType::UInt32;
    case DataType::UInt64:
      return IntegerType::UInt64;
    default:
      return std::nullopt;
  }
}

IntegerPushConstants integer_push_constants(IntegerOp op, DataType type, const Shape& a,
                                            const Shape& b) {
  const std::optional<IntegerType> code = integer_type(type);
  check(code.has_value(), "integer op on the GPU: no kernel for " + std::string(dtype_name(type)));
  IntegerPushConstants pc;
  pc.layout = binary_push_constants(BinaryOp::Add, a, b);
  pc.layout.op = static_cast<uint32_t>(op);
  pc.type = static_cast<uint32_t>(*code);
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
  // 8- and 16-bit outputs: one invocation per output word (4 or 2 elements).
  const auto type = static_cast<IntegerType>(pc.type);
  const uint64_t per_word = type == IntegerType::Int8 || type == IntegerType::UInt8     ? 4
                            : type == IntegerType::Int16 || type == IntegerType::UInt16 ? 2
                                                                                        : 1;
  const uint64_t invocations = (pc.layout.count + per_word - 1) / per_word;
  const Buffer* buffers[] = {&a, &b, &c};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&c};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

}  // namespace kiln::gpu_compute
