#include "backends/gpu_compute/logical_elementwise.h"

#include <algorithm>
#include <vector>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

std::optional<Shape> broadcast_all(std::span<const Shape> shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const Shape& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - 1 - i];
      const int64_t d = s[s.size() - 1 - i];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  }
  return Shape(out);
}

std::optional<LogicalPushConstants> logical_push_constants(LogicalOp op, DataType type,
                                                           std::span<const Shape> shapes,
                                                           uint32_t flags) {
  check(!shapes.empty() && shapes.size() <= 3, "logical op on the GPU: 1 to 3 operands");
  LogicalPushConstants pc;
  pc.op = static_cast<uint32_t>(op);
  pc.flags = flags;
  switch (type) {
    case DataType::Float32:
      pc.type = 0;
      break;
    case DataType::Int32:
      pc.type = 1;
      break;
    case DataType::Int64:
      pc.type = 2;
      break;
    // The narrower and unsigned integers: compared, and moved by Where (bool values as uint8).
    case DataType::Int8:
    case DataType::UInt8:
    case DataType::Int16:
    case DataType::UInt16:
    case DataType::UInt32:
    case DataType::UInt64:
      check(op <= LogicalOp::GreaterOrEqual || op == LogicalOp::Where,
            "logical op on the GPU: " + std::string(dtype_name(type)) + " is compared only");
      pc.type = type == DataType::Int8     ? 3
                : type == DataType::UInt8  ? 4
                : type == DataType::Int16  ? 5
                : type == DataType::UInt16 ? 6
                : type == DataType::UInt32 ? 7
                                           : 8;
      break;
    default:
      check(false, "logical op on the GPU: no kernel for " + std::string(dtype_name(type)));
  }
  const std::optional<Shape> out = broadcast_all(shapes);
  if (!out) return std::nullopt;
  const uint64_t count = static_cast<uint64_t>(out->element_count());
  if (count * 2 >= (uint64_t{1} << 31)) return std::nullopt;
  pc.count = static_cast<uint32_t>(count);
  for (size_t k = 0; k < shapes.size(); ++k) {
    // Right-aligned row-major strides, 0 where the operand broadcasts.
    const Shape& s = shapes[k];
    uint64_t stride = 1;
    std::vector<uint64_t> strides(out->size(), 0);
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t d = s.size() - 1 - i;
      if (s[d] != 1) strides[out->size() - 1 - i] = stride;
      stride *= static_cast<uint64_t>(s[d]);
    }
    uint32_t r = 0;
    for (size_t d = 0; d < out->size(); ++d) {
      if ((*out)[d] == 1) continue;  // adds nothing to any index
      if (r == kLogicalMaxRank) return std::nullopt;
      pc.stride[k][r++] = static_cast<uint32_t>(strides[d]);
    }
  }
  for (size_t d = 0; d < out->size(); ++d) {
    if ((*out)[d] != 1) pc.shape[pc.rank++] = static_cast<uint32_t>((*out)[d]);
  }
  return pc;
}

LogicalElementwise::LogicalElementwise(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::logical_elementwise(), 4,
                                     sizeof(LogicalPushConstants), workgroup_size}) {}

void LogicalElementwise::record(VkCommandBuffer cmd, DescriptorArena& arena,
                                const LogicalPushConstants& pc,
                                std::span<const Buffer* const> operands, const Buffer& out) const {
  check(!operands.empty() && operands.size() <= 3, "logical op on the GPU: 1 to 3 operands");
  if (pc.count == 0) return;
  const Buffer* buffers[] = {operands[0], operands[operands.size() > 1 ? 1 : 0],
                             operands[operands.size() > 2 ? 2 : 0], &out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  // A bool output is written a word (4 elements) per invocation, and so is Where's of 1- or
  // 2-byte values (4 or 2 elements); Where of wider values one element.
  const bool where = pc.op == static_cast<uint32_t>(LogicalOp::Where);
  const uint64_t per_word = !where                         ? 4
                            : pc.type == 3 || pc.type == 4 ? 4
                            : pc.type == 5 || pc.type == 6 ? 2
                                                           : 1;
  const uint64_t invocations = (uint64_t{pc.count} + per_word - 1) / per_word;
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

}  // namespace kiln::gpu_compute
