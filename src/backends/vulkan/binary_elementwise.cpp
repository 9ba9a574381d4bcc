#include "backends/vulkan/binary_elementwise.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "backends/vulkan/shaders.h"
#include "kiln/error.h"

namespace kiln::vulkan {
namespace {

std::string to_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(s[i]);
  }
  out += ']';
  return out;
}

// Row-major strides of `shape` aligned to the right of an output of rank `rank`, with 0 for
// broadcast (size-1 or missing) dimensions.
std::vector<uint64_t> broadcast_strides(const Shape& shape, size_t rank) {
  std::vector<uint64_t> strides(rank, 0);
  uint64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t d = shape.size() - 1 - i;
    if (shape[d] != 1) strides[rank - 1 - i] = stride;
    stride *= static_cast<uint64_t>(shape[d]);
  }
  return strides;
}

}  // namespace

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    check(da == db || da == 1 || db == 1,
          "shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return Shape(out);
}

BinaryPushConstants binary_push_constants(BinaryOp op, const Shape& a, const Shape& b) {
  const Shape out = broadcast_shape(a, b);
  const std::vector<uint64_t> sa = broadcast_strides(a, out.size());
  const std::vector<uint64_t> sb = broadcast_strides(b, out.size());
  BinaryPushConstants pc;
  pc.op = static_cast<uint32_t>(op);
  uint64_t count = 1;
  for (size_t d = 0; d < out.size(); ++d) count *= static_cast<uint64_t>(out[d]);
  check(count <= UINT32_MAX,
        "binary op on the GPU: " + std::to_string(count) + " elements exceed 32-bit indexing");
  pc.count = static_cast<uint32_t>(count);
  // Size-1 output dimensions contribute nothing to any index, so dropping them lets higher-rank
  // tensors with unit dimensions through the 6-dimension limit.
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    check(pc.rank < kBinaryMaxRank, "binary op on the GPU: output " + to_string(out) +
                                        " has more than 6 dimensions that are not 1");
    pc.shape[pc.rank] = static_cast<uint32_t>(out[d]);
    // Strides fit: a stride is below its tensor's element count, at most the output's.
    pc.a_stride[pc.rank] = static_cast<uint32_t>(sa[d]);
    pc.b_stride[pc.rank] = static_cast<uint32_t>(sb[d]);
    ++pc.rank;
  }
  return pc;
}

BinaryElementwise::BinaryElementwise(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::binary_elementwise(), 3, sizeof(BinaryPushConstants),
                                     workgroup_size}) {}

void BinaryElementwise::record(VkCommandBuffer cmd, DescriptorArena& arena, BinaryOp op,
                               const Buffer& a, const Shape& a_shape, const Buffer& b,
                               const Shape& b_shape, const Buffer& c) const {
  const BinaryPushConstants pc = binary_push_constants(op, a_shape, b_shape);
  if (pc.count == 0) return;
  auto bytes = [](const Shape& s) {
    uint64_t n = sizeof(float);
    for (size_t d = 0; d < s.size(); ++d) n *= static_cast<uint64_t>(s[d]);
    return n;
  };
  check(a.size() >= bytes(a_shape) && b.size() >= bytes(b_shape) &&
            c.size() >= uint64_t{pc.count} * sizeof(float),
        "binary op on the GPU: a buffer is smaller than its shape");
  const Buffer* buffers[] = {&a, &b, &c};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&c};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, pc.count), written);
}

}  // namespace kiln::vulkan
