// TopK on the GPU (shaders/top_k.comp): float32 and 32- and 64-bit integer inputs along any axis,
// largest or smallest, sorted (as its definition's attributes, opdefs/top_k.h, say), with the
// host-held k. Each element ranks itself against its line, so the work grows with the line's length
// squared; past kMaxCompares, and for sorted = 0, the node runs on the CPU.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/top_k.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
// Elements times line length: beyond this, the CPU's selection is the better place.
constexpr uint64_t kMaxCompares = uint64_t{1} << 28;

// Mirrors the shader's push-constant block.
struct TopKPushConstants {
  uint32_t count = 0, n = 1, inner = 1, k = 0, largest = 1, type = 0;
};
static_assert(sizeof(TopKPushConstants) <= kMaxPushConstantBytes);

class TopK {
 public:
  explicit TopK(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::top_k(), 3, sizeof(TopKPushConstants), kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const TopKPushConstants& pc,
              const Buffer& x, const Buffer& values, const Buffer& indices) const {
    if (pc.k == 0) return;
    const Buffer* buffers[] = {&x, &values, &indices};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers, 2);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// k: the attribute before opset 10, else the host-held input 1; nullopt when it is not a host
// int64 value.
std::optional<int64_t> k_of(const OpRecorder& r, const TopKAttrs& a) {
  if (!a.k_is_input) return a.k;
  if (!r.has_input(1)) return std::nullopt;
  const Tensor& k = r.input(1);
  if (k.impl()->device || k.dtype() != DataType::Int64 || k.element_count() != 1 || k.rank() > 1)
    return std::nullopt;
  return k.data<int64_t>()[0];
}

RecordFn top_k(TopKAttrs attrs) {
  return [attrs](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const auto rank = static_cast<int64_t>(x.size());
    if (rank == 0 || attrs.axis < -rank || attrs.axis >= rank)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "an axis outside the input; the CPU kernel reports it");
    const std::optional<int64_t> k = k_of(r, attrs);
    if (!k)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "K is no host int64 value; the CPU kernel takes or reports it");
    const int64_t axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
    const int64_t n = x[axis];
    if (*k < 0 || *k > n)
      throw RunOnCpu(RunTimeCause::InputValues, "k is out of range; the CPU kernel reports it");
    const auto count = static_cast<uint64_t>(x.element_count());
    if (count * static_cast<uint64_t>(n) > kMaxCompares || count * 2 > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "lines too long for the GPU TopK kernel");
    TopKPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.n = static_cast<uint32_t>(std::max<int64_t>(n, 1));
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= x[d];
    pc.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    pc.k = static_cast<uint32_t>(*k);
    pc.largest = attrs.largest ? 1 : 0;
    switch (r.dtype(0)) {
      case DataType::Float32:
        pc.type = 0;
        break;
      case DataType::Int32:
        pc.type = 1;
        break;
      case DataType::Int64:
        pc.type = 2;
        break;
      case DataType::UInt32:
        pc.type = 3;
        break;
      case DataType::UInt64:
        pc.type = 4;
        break;
      default:
        throw RunOnCpu(RunTimeCause::InputKind, "an input type the GPU kernel lacks");
    }
    Shape out_shape = x;
    out_shape[axis] = *k;
    const Buffer& in = r.buffer(0);
    const Buffer& values = r.output(0, r.dtype(0), out_shape);
    const Buffer& indices = r.output(1, DataType::Int64, out_shape);
    r.kernel<TopK>().record(r.cmd(), r.arena(), pc, in, values, indices);
  };
}

OpFactory top_k_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q,
                    {DataType::Float32, DataType::Int32, DataType::Int64, DataType::UInt32,
                     DataType::UInt64},
                    reason, 0, 1))
      return nullptr;
    const TopKAttrs attrs = parse_top_k_attrs(q.info);
    if (!attrs.sorted) {
      reason = "TopK with sorted = 0 has no GPU kernel";
      return nullptr;
    }
    const Shape* x = static_input_shape(q, 0);
    const auto rank = x ? static_cast<int64_t>(x->size()) : int64_t{0};
    if (x && (rank == 0 || attrs.axis < -rank || attrs.axis >= rank)) {
      reason = "an axis outside the input";
      return nullptr;
    }
    return top_k(attrs);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(top_k);
void register_top_k_ops(OpTable& t) { t.add("TopK", top_k_factory()); }

}  // namespace kiln::gpu_compute
