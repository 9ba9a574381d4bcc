// OneHot on the GPU (shaders/one_hot.comp): float32, int32 or int64 indices, float32, int32 or
// int64 values, the host-held depth, any axis. The depth decides the output's shape, so it is
// always a host value.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdint>
#include <optional>
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
struct OneHotPushConstants {
  uint32_t count = 0, depth = 1, inner = 1, index_type = 0, words = 1;
};
static_assert(sizeof(OneHotPushConstants) <= kMaxPushConstantBytes);

class OneHot {
 public:
  explicit OneHot(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::one_hot(), 3, sizeof(OneHotPushConstants), kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const OneHotPushConstants& pc,
              const Buffer& indices, const Buffer& values, const Buffer& out) const {
    const Buffer* buffers[] = {&indices, &values, &out};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The depth from the host-held scalar input 1 (a non-integer one truncated, as the CPU does);
// nullopt for anything the CPU kernel must report or the shader cannot index.
std::optional<int64_t> depth_of(const Tensor& t) {
  if (t.impl()->device || t.element_count() != 1) return std::nullopt;
  double v = 0;
  if (t.dtype() == DataType::Float32) {
    v = t.data<float>()[0];
  } else if (t.dtype() == DataType::Int32) {
    v = t.data<int32_t>()[0];
  } else if (t.dtype() == DataType::Int64) {
    v = static_cast<double>(t.data<int64_t>()[0]);
  } else {
    return std::nullopt;
  }
  if (!(v >= 1) || v >= static_cast<double>(INT32_MAX)) return std::nullopt;
  return static_cast<int64_t>(v);
}

uint32_t index_type_code(DataType t) {
  return t == DataType::Float32 ? 0 : t == DataType::Int32 ? 1 : 2;
}

RecordFn one_hot(int64_t axis_attr) {
  return [axis_attr](OpRecorder& r) {
    const std::optional<int64_t> depth = depth_of(r.input(1));
    const Shape& in = r.shape(0);
    const auto out_rank = static_cast<int64_t>(in.size()) + 1;
    if (!depth || r.input(2).element_count() != 2 || r.shape(2).size() > 1 ||
        axis_attr < -out_rank || axis_attr >= out_rank)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "a depth, values or axis the GPU kernel does not take; the CPU kernel "
                     "reports it");
    const int64_t axis = axis_attr < 0 ? axis_attr + out_rank : axis_attr;
    Shape out_shape = in;
    out_shape.insert(static_cast<size_t>(axis), *depth);
    const uint32_t words = element_words(r.dtype(2));
    if (static_cast<uint64_t>(out_shape.element_count()) * words > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the output exceeds 32-bit indexing");
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(axis); d < in.size(); ++d) inner *= in[d];
    OneHotPushConstants pc;
    pc.count = static_cast<uint32_t>(out_shape.element_count());
    pc.depth = static_cast<uint32_t>(*depth);
    pc.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    pc.index_type = index_type_code(r.dtype(0));
    pc.words = words;
    const Buffer& indices = r.buffer(0);
    const Buffer& values = r.buffer(2);
    const Buffer& out = r.output(0, r.dtype(2), out_shape);
    r.kernel<OneHot>().record(r.cmd(), r.arena(), pc, indices, values, out);
  };
}

OpFactory one_hot_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const std::initializer_list<DataType> kTypes = {DataType::Float32, DataType::Int32,
                                                    DataType::Int64};
    if (!inputs_are(q, kTypes, reason, 0, 1) || !inputs_are(q, kTypes, reason, 2, 1))
      return nullptr;
    return one_hot(q.info.attr_int("axis", -1));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(one_hot);
void register_one_hot_ops(OpTable& t) { t.add("OneHot", one_hot_factory()); }

}  // namespace kiln::gpu_compute
