// NonZero on the GPU (shaders/non_zero.comp). Its output's shape depends on the input's values,
// so the kernel counts on the device, reads the count back while it records (which waits for the
// work recorded so far, and makes the node record afresh each run instead of replaying), sizes
// the output, and writes the coordinates on the device. Every numeric type and bool.
//
// The family in one file: the kernel (the pipeline and its dispatches) and the adapter that
// places ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/loop_budget.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kChunk = 256;  // elements per invocation
constexpr size_t kMaxRank = 8;

// Mirrors the shader's push-constant block.
struct NonZeroPushConstants {
  uint32_t stage = 0, count = 0, bytes = 4, mask = 0xFFFFFFFFu, chunk = kChunk, chunks = 0;
  uint32_t total = 0, rank = 1;
  uint32_t dims[kMaxRank] = {};
};
static_assert(sizeof(NonZeroPushConstants) <= kMaxPushConstantBytes);

class NonZero {
 public:
  explicit NonZero(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::non_zero(), 3, sizeof(NonZeroPushConstants), kWorkgroup}) {}

  // Stages 0 and 1: each chunk's first output column into `counts`, the total after them.
  void record_count(VkCommandBuffer cmd, DescriptorArena& arena, NonZeroPushConstants pc,
                    const Buffer& x, const Buffer& counts) const {
    const Buffer* buffers[] = {&x, &counts, &counts};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&counts};
    pc.stage = 0;
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.chunks), written);
    pc.stage = 1;
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, 1), written);
  }

  // Stage 2: the coordinates into y ([rank, pc.total] int64).
  void record_coordinates(VkCommandBuffer cmd, DescriptorArena& arena, NonZeroPushConstants pc,
                          const Buffer& x, const Buffer& counts, const Buffer& y) const {
    pc.stage = 2;
    const Buffer* buffers[] = {&x, &counts, &y};
    const Buffer* written[] = {&y};
    record_dispatch(cmd, pipeline_, arena.bind(pipeline_, buffers),
                    std::as_bytes(std::span(&pc, 1)), groups_for(device_, pipeline_, pc.chunks),
                    written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The element's size and the bits of its (top) word that make it nonzero: all but a float's
// sign. nullopt for the types the kernel does not read (strings, complex, the sub-byte types).
std::optional<std::pair<uint32_t, uint32_t>> element_bits(DataType t) {
  switch (t) {
    case DataType::Bool:
    case DataType::Int8:
    case DataType::UInt8:
      return std::pair{1u, 0xFFu};
    case DataType::Int16:
    case DataType::UInt16:
      return std::pair{2u, 0xFFFFu};
    case DataType::Float16:
    case DataType::BFloat16:
      return std::pair{2u, 0x7FFFu};
    case DataType::Int32:
    case DataType::UInt32:
      return std::pair{4u, 0xFFFFFFFFu};
    case DataType::Float32:
      return std::pair{4u, 0x7FFFFFFFu};
    case DataType::Int64:
    case DataType::UInt64:
      return std::pair{8u, 0xFFFFFFFFu};
    case DataType::Float64:
      return std::pair{8u, 0x7FFFFFFFu};
    default:
      return std::nullopt;
  }
}

RecordFn non_zero() {
  return [](OpRecorder& r) {
    const Shape& x_shape = r.shape(0);
    // A scalar is a 1-D tensor of one element (as the CPU kernel, numpy and ONNX Runtime).
    const Shape shape = x_shape.empty() ? Shape{1} : x_shape;
    const std::optional<std::pair<uint32_t, uint32_t>> bits = element_bits(r.dtype(0));
    if (!bits) throw RunOnCpu(RunTimeCause::InputKind, "an element type the kernel lacks");
    if (shape.size() > kMaxRank)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more axes than the kernel's 8");
    const int64_t count = x_shape.element_count();
    if (count * static_cast<int64_t>(shape.size()) * 2 > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit indexing");
    NonZeroPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.bytes = bits->first;
    pc.mask = bits->second;
    pc.chunks = (pc.count + kChunk - 1) / kChunk;
    // Stage 1 loops over the chunks in one invocation.
    if (pc.chunks > kShaderLoopBudget)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "more chunks than the shader's loop budget");
    pc.rank = static_cast<uint32_t>(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) pc.dims[d] = static_cast<uint32_t>(shape[d]);

    const Buffer& x = r.buffer(0);
    const Tensor counts =
        r.read_back_tensor(DataType::UInt32, Shape{static_cast<int64_t>(pc.chunks) + 1});
    const Buffer& counts_buffer = r.device_buffer(counts);
    const NonZero& kernel = r.kernel<NonZero>();
    kernel.record_count(r.cmd(), r.arena(), pc, x, counts_buffer);
    pc.total = download_to_host(counts).data<uint32_t>()[pc.chunks];
    const Buffer& y = r.output(
        0, DataType::Int64, Shape{static_cast<int64_t>(pc.rank), static_cast<int64_t>(pc.total)});
    if (pc.total > 0 && pc.rank > 0)
      kernel.record_coordinates(r.cmd(), r.arena(), pc, x, counts_buffer, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(non_zero);
void register_non_zero_ops(OpTable& t) {
  t.add("NonZero", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.input_types[0] != DataType::Undefined && !element_bits(q.input_types[0])) {
      reason = "no GPU kernel for NonZero of " + std::string(dtype_name(q.input_types[0]));
      return nullptr;
    }
    return non_zero();
  });
}

}  // namespace kiln::gpu_compute
