#include "backends/gpu_compute/binary_elementwise.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
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

}  // namespace

BinaryPushConstants binary_push_constants(BinaryOp op, const Shape& a, const Shape& b) {
  // The same broadcasting rule, and message, as every other backend (opdefs/broadcast.h).
  const Shape out = broadcast_shapes(a, b, "binary op on the GPU");
  const Shape sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
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
  record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
}

}  // namespace kiln::gpu_compute
