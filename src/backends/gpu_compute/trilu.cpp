// Trilu on the GPU (shaders/trilu.comp) for float32, int32 and int64 tensors: the upper or lower
// triangle of each matrix in the last two dimensions, shifted by the host-held k.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;

// Mirrors the shader's push-constant block.
struct TriluPushConstants {
  uint32_t count = 0, words = 1, rows = 1, cols = 1, upper = 1;
  int32_t k = 0;
};
static_assert(sizeof(TriluPushConstants) <= kMaxPushConstantBytes);

class Trilu {
 public:
  explicit Trilu(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::trilu(), 2, sizeof(TriluPushConstants), kWorkgroup}) {}

  // out = the kept triangle of x; nothing for an empty tensor.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const TriluPushConstants& pc,
              const Buffer& x, const Buffer& out) const {
    const Buffer* buffers[] = {&x, &out};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// k from the optional host-held scalar input 1 (0 when absent); nullopt when it is not a host
// int64 scalar, for the CPU kernel to take (or report).
std::optional<int64_t> diagonal_offset(const OpRecorder& r) {
  if (!r.has_input(1)) return 0;
  const Tensor& k = r.input(1);
  if (k.impl()->device || k.dtype() != DataType::Int64 || k.element_count() != 1)
    return std::nullopt;
  return k.data<int64_t>()[0];
}

RecordFn trilu(bool upper) {
  return [upper](OpRecorder& r) {
    const Shape& shape = r.shape(0);
    if (shape.size() < 2)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "an input of rank below 2; the CPU kernel reports it");
    const std::optional<int64_t> k = diagonal_offset(r);
    if (!k) throw RunOnCpu(RunTimeCause::InputValues, "k is not a host-held int64 scalar");
    const uint32_t words = element_words(r.dtype(0));
    const uint64_t count = static_cast<uint64_t>(shape.element_count());
    if (count * words > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    const int64_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
    TriluPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.words = words;
    pc.rows = static_cast<uint32_t>(std::max<int64_t>(rows, 1));
    pc.cols = static_cast<uint32_t>(std::max<int64_t>(cols, 1));
    pc.upper = upper ? 1 : 0;
    // Beyond these bounds every element is kept or every one zeroed already.
    pc.k = static_cast<int32_t>(std::clamp<int64_t>(*k, -rows - 1, cols + 1));
    const Buffer& x = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), shape);
    r.kernel<Trilu>().record(r.cmd(), r.arena(), pc, x, out);
  };
}

OpFactory trilu_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() < 2) {
      reason = "an input of rank below 2";
      return nullptr;
    }
    return trilu(q.info.attr_int("upper", 1) != 0);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(trilu);
void register_trilu_ops(OpTable& t) { t.add("Trilu", trilu_factory()); }

}  // namespace kiln::gpu_compute
