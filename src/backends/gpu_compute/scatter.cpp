// ScatterElements, Scatter (deprecated) and ScatterND on the GPU (shaders/scatter.comp): float32
// and int32 data with every reduction of their definition (opdefs/scatter_reduction.h), int64
// data without one, int32 or int64 indices. Each output element gathers the updates that land
// on it, which keeps the CPU's order for duplicate indices; the scans are bounded
// (kMaxScanSteps), beyond which the node runs on the CPU.
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
#include "backends/gpu_compute/gather.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/scatter_reduction.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
constexpr size_t kMaxRank = 6;
// Output elements times the updates each one scans: past this, the CPU's direct scatter wins.
constexpr uint64_t kMaxScanSteps = uint64_t{1} << 26;

// Mirrors the shader's push-constant block.
struct ScatterPushConstants {
  uint32_t count = 0, nd = 0, type = 0, reduction = 0, index_words = 1;
  uint32_t rank = 0, axis = 0, tuples = 0, slice = 1;
  uint32_t shape[kMaxRank] = {};
  uint32_t ishape[kMaxRank] = {};
};
static_assert(sizeof(ScatterPushConstants) <= kMaxPushConstantBytes);

class Scatter {
 public:
  explicit Scatter(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::scatter(), 4, sizeof(ScatterPushConstants), kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ScatterPushConstants& pc,
              const Buffer& data, const Buffer& indices, const Buffer& updates,
              const Buffer& out) const {
    const Buffer* buffers[] = {&data, &indices, &updates, &out};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

uint32_t type_code(DataType t) { return t == DataType::Float32 ? 0 : t == DataType::Int32 ? 1 : 2; }

// The common part of both plans; nullopt beyond rank 6 or 32-bit indexing.
std::optional<ScatterPushConstants> base_plan(const Shape& data, DataType dtype,
                                              DataType index_type, ScatterReduction r) {
  if (data.empty() || data.size() > kMaxRank) return std::nullopt;
  if (static_cast<uint64_t>(data.element_count()) * 2 > INT32_MAX) return std::nullopt;
  ScatterPushConstants pc;
  pc.count = static_cast<uint32_t>(data.element_count());
  pc.type = type_code(dtype);
  pc.reduction = static_cast<uint32_t>(r);
  pc.index_words = index_type == DataType::Int64 ? 2 : 1;
  pc.rank = static_cast<uint32_t>(data.size());
  for (size_t d = 0; d < data.size(); ++d) pc.shape[d] = static_cast<uint32_t>(data[d]);
  return pc;
}

// ScatterElements: nullopt for shapes its definition rejects (the CPU kernel reports them) or
// past the kernel's bounds.
std::optional<ScatterPushConstants> elements_plan(const Shape& data, const Shape& indices,
                                                  const Shape& updates, int64_t axis,
                                                  DataType dtype, DataType index_type,
                                                  ScatterReduction r) {
  std::optional<ScatterPushConstants> pc = base_plan(data, dtype, index_type, r);
  const auto rank = static_cast<int64_t>(data.size());
  if (!pc || indices.size() != data.size() || updates != indices || axis < -rank || axis >= rank)
    return std::nullopt;
  const int64_t a = axis < 0 ? axis + rank : axis;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != a && indices[d] > data[d]) return std::nullopt;
    pc->ishape[d] = static_cast<uint32_t>(indices[d]);
  }
  if (static_cast<uint64_t>(data.element_count()) * static_cast<uint64_t>(indices[a]) >
      kMaxScanSteps)
    return std::nullopt;
  pc->axis = static_cast<uint32_t>(a);
  return pc;
}

// ScatterND, likewise.
std::optional<ScatterPushConstants> nd_plan(const Shape& data, const Shape& indices,
                                            const Shape& updates, DataType dtype,
                                            DataType index_type, ScatterReduction r) {
  std::optional<ScatterPushConstants> pc = base_plan(data, dtype, index_type, r);
  if (!pc || indices.empty()) return std::nullopt;
  const int64_t k = indices.back();
  if (k < 1 || k > static_cast<int64_t>(data.size())) return std::nullopt;
  Shape expected(indices.begin(), indices.end() - 1);
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(k); d < data.size(); ++d) {
    expected.push_back(data[d]);
    slice *= data[d];
  }
  const int64_t tuples = Shape(indices.begin(), indices.end() - 1).element_count();
  if (updates != expected || slice == 0) return std::nullopt;
  if (static_cast<uint64_t>(data.element_count()) * static_cast<uint64_t>(tuples) > kMaxScanSteps)
    return std::nullopt;
  pc->nd = 1;
  pc->axis = static_cast<uint32_t>(k);
  pc->tuples = static_cast<uint32_t>(tuples);
  pc->slice = static_cast<uint32_t>(slice);
  return pc;
}

// Whether every tuple of host-held ScatterND indices addresses data: component j in
// [-data[j], data[j]).
template <class I>
bool tuples_in_range(const I* v, int64_t count, int64_t k, const Shape& data) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t dim = data[static_cast<size_t>(i % k)];
    if (v[i] < -dim || v[i] >= dim) return false;
  }
  return true;
}

bool host_indices_valid(const Tensor& indices, const ScatterPushConstants& pc, const Shape& data) {
  if (pc.nd == 0) return gather_indices_in_range(indices, data[pc.axis]);
  const int64_t n = indices.element_count();
  if (indices.dtype() == DataType::Int64)
    return tuples_in_range(indices.data<int64_t>(), n, pc.axis, data);
  return tuples_in_range(indices.data<int32_t>(), n, pc.axis, data);
}

using PlanFn = std::function<std::optional<ScatterPushConstants>(const Shape&, const Shape&,
                                                                 const Shape&, DataType, DataType)>;

RecordFn scatter(PlanFn plan_of) {
  return [plan_of](OpRecorder& r) {
    const std::optional<ScatterPushConstants> pc =
        plan_of(r.shape(0), r.shape(1), r.shape(2), r.dtype(0), r.dtype(1));
    if (!pc || r.dtype(2) != r.dtype(0))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes outside the GPU scatter kernel");
    const Tensor& indices = r.input(1);
    if (!indices.impl()->device && !host_indices_valid(indices, *pc, r.shape(0)))
      throw RunOnCpu(RunTimeCause::InputValues,
                     "an index is out of range; the CPU kernel reports it");
    const Buffer& data = r.buffer(0);
    const Buffer& idx = r.buffer(1);
    const Buffer& updates = r.buffer(2);
    const Buffer& out = r.output(0, r.dtype(0), r.shape(0));
    r.kernel<Scatter>().record(r.cmd(), r.arena(), *pc, data, idx, updates, out);
  };
}

OpFactory scatter_factory(bool nd) {
  return [nd](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const ScatterReduction reduction = parse_scatter_reduction(q.info);
    const bool reduces = reduction != ScatterReduction::None;
    if (reduces && !inputs_are(q, {DataType::Float32, DataType::Int32}, reason, 0, 1)) {
      reason += " with a reduction";
      return nullptr;
    }
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, 1, 1) ||
        !inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 2, 1))
      return nullptr;
    if (q.input_types[2] != q.input_types[0] && q.input_types[2] != DataType::Undefined &&
        q.input_types[0] != DataType::Undefined) {
      reason = "updates and data of different types";
      return nullptr;
    }
    PlanFn plan_of;
    if (nd) {
      plan_of = [reduction](const Shape& d, const Shape& i, const Shape& u, DataType t,
                            DataType it) { return nd_plan(d, i, u, t, it, reduction); };
    } else {
      const int64_t axis = q.info.attr_int("axis", 0);
      plan_of = [reduction, axis](const Shape& d, const Shape& i, const Shape& u, DataType t,
                                  DataType it) {
        return elements_plan(d, i, u, axis, t, it, reduction);
      };
    }
    const Shape *d = static_input_shape(q, 0), *i = static_input_shape(q, 1),
                *u = static_input_shape(q, 2);
    if (d && i && u && !plan_of(*d, *i, *u, q.input_types[0], q.input_types[1])) {
      reason =
          "shapes outside the GPU scatter kernel (rank above 6, or too many updates per "
          "element)";
      return nullptr;
    }
    return scatter(std::move(plan_of));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(scatter);
void register_scatter_ops(OpTable& t) {
  t.add("ScatterElements", scatter_factory(false));
  t.add("Scatter", scatter_factory(false));
  t.add("ScatterND", scatter_factory(true));
}

}  // namespace kiln::gpu_compute
