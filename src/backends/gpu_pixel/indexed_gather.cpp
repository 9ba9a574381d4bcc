// GatherElements and GatherND as one draw: each output element copies the data element at an
// offset worked out on the host from the (host-held) indices. Compress, whose condition is a host
// value, is a Gather (gather.h) of the slices it keeps. The offsets travel as uniforms
// (host_indices.h), one per run of `inner` consecutive output elements: per element for
// GatherElements, per index tuple (whose slice is contiguous in data) for GatherND. Copies only,
// so every texture dtype goes through. Shapes or indices the ops reject run on the CPU, whose
// kernel reports them; more offsets than the uniforms hold run there too.
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/gather.h"
#include "backends/gpu_pixel/host_indices.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_inner;  // consecutive output elements that share an offset

float element(int i) {
  return fetch_element(x, x_width, index_at(i / u_inner) + i % u_inner);
}
)";

// What one run copies: y element i is x element offsets[i / inner] + i % inner.
struct OffsetPlan {
  Shape out_shape;
  std::vector<int> offsets;
  int64_t inner = 1;
};

class OffsetGather {
 public:
  explicit OffsetGather(Context& context) : context_(context) {}

  void record(const TextureTensor& x, const OffsetPlan& plan, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    const Program& program = context_.programs().get(
        "offset_gather", "", "", std::string(kIndexUniformsGlsl) + kShader + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(context_, program, y, inputs, [&] {
      program.set("u_inner", static_cast<int>(plan.inner));
      set_index_uniforms(context_, program, plan.offsets);
    });
  }

 private:
  Context& context_;
};

// GatherElements: y[p] = data[p with its axis coordinate replaced by indices[p]].
OffsetPlan gather_elements_plan(const Shape& data, const Shape& indices,
                                const std::vector<int64_t>& values, int64_t axis_attr) {
  OffsetPlan plan;
  plan.out_shape = indices;
  plan.offsets = elements_offsets(data, indices, values, axis_attr);
  return plan;
}

// GatherND: the indices' last dim k is a tuple into data's dims after batch_dims; each tuple
// picks the contiguous slice of data's remaining dims.
OffsetPlan gather_nd_plan(const Shape& data, const Shape& indices,
                          const std::vector<int64_t>& values, int64_t batch_dims) {
  const auto r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(indices.size());
  if (r < 1 || q < 1 || batch_dims < 0 || batch_dims >= std::min(r, q))
    run_rejected_shapes_on_cpu();
  const int64_t k = indices[q - 1];
  if (k < 1 || k > r - batch_dims) run_rejected_shapes_on_cpu();
  for (int64_t d = 0; d < batch_dims; ++d)
    if (data[d] != indices[d]) run_rejected_shapes_on_cpu();
  OffsetPlan plan;
  int64_t batches = 1, tuples = 1;
  for (int64_t d = 0; d < q - 1; ++d) {
    plan.out_shape.push_back(indices[d]);
    (d < batch_dims ? batches : tuples) *= indices[d];
  }
  for (int64_t d = batch_dims + k; d < r; ++d) {
    plan.out_shape.push_back(data[d]);
    plan.inner *= data[d];
  }
  check_index_uniforms_fit(data, batches * tuples);
  const Shape strides = strides_of(data);
  const int64_t batch_stride = batch_dims > 0 ? strides[batch_dims - 1] : 0;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = b * batch_stride;
      const int64_t first = (b * tuples + t) * k;
      for (int64_t j = 0; j < k; ++j) {
        const auto d = static_cast<size_t>(batch_dims + j);
        offset += wrapped_host_index(values[first + j], data[d]) * strides[d];
      }
      plan.offsets.push_back(static_cast<int>(offset));
    }
  }
  return plan;
}

using PlanFn = OffsetPlan (*)(const Shape&, const Shape&, const std::vector<int64_t>&, int64_t);

// Data (of a texture dtype) in input 0, host indices in input 1; `attr` is the op's integer
// attribute (axis or batch_dims). With the indices' shape known at load time, a node needing
// more offsets than the uniforms hold stays on the CPU from the start.
OpFactory offset_gather_factory(PlanFn plan_of, const char* attr,
                                int64_t (*offsets_of)(const Shape&)) {
  return [=](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !index_input_on_host(q, 1, reason)) return nullptr;
    const int64_t value = q.info.attr_int(attr, 0);
    if (const Shape* indices = static_input_shape(q, 1);
        indices && !index_uniforms_fit(static_cast<size_t>(offsets_of(*indices)))) {
      reason = "more index offsets than " + std::to_string(kIndexUniforms) +
               " (the uniforms hold that many)";
      return nullptr;
    }
    return [=](OpRecorder& r) {
      const std::vector<int64_t> values = host_index_values(r.host(1));
      const OffsetPlan plan = plan_of(r.shape(0), r.shape(1), values, value);
      const TextureTensor& x = r.texture(0);
      r.kernel<OffsetGather>().record(x, plan, r.output(0, plan.out_shape, r.input(0).dtype()));
    };
  };
}

// Offsets a GatherElements needs: one per index; a GatherND (with no batch dims, the most it can
// be): one per tuple.
int64_t element_offsets(const Shape& indices) { return indices.element_count(); }
int64_t tuple_offsets(const Shape& indices) {
  if (indices.empty() || indices.back() == 0) return 0;
  return indices.element_count() / indices.back();
}

// Compress(input, condition): the slices along `axis` (of the flattened input without one) whose
// condition is true, as a Gather of their positions.
OpFactory compress_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    const bool has_axis = q.info.has_attr("axis");
    const int64_t axis_attr = q.info.attr_int("axis", 0);
    return [=](OpRecorder& r) {
      const Tensor& condition = r.input(1);
      const Shape x_shape = has_axis ? r.shape(0) : Shape{r.shape(0).element_count()};
      const auto rank = static_cast<int64_t>(x_shape.size());
      if (condition.dtype() != DataType::Bool || condition.shape().size() != 1 ||
          axis_attr < -rank || axis_attr >= rank)
        run_rejected_shapes_on_cpu();
      const int64_t axis = has_axis ? (axis_attr < 0 ? axis_attr + rank : axis_attr) : 0;
      std::vector<int64_t> picked;
      const bool* keep = condition.data<bool>();
      for (int64_t i = 0; i < condition.element_count(); ++i) {
        if (!keep[i]) continue;
        if (i >= x_shape[static_cast<size_t>(axis)])
          throw RunOnCpu(RunTimeCause::InputValues,
                         "the condition selects beyond the axis; the CPU reports it");
        picked.push_back(i);
      }
      if (!gather_supported(static_cast<int64_t>(picked.size())))
        throw RunOnCpu(RunTimeCause::DeviceLimit, "more kept slices than Gather's uniforms hold");
      const Shape picked_shape{static_cast<int64_t>(picked.size())};
      const Shape y_shape = gather_shape(x_shape, picked_shape, axis);
      const TextureTensor& x = r.texture(0);
      r.kernel<Gather>().record(x, x_shape, picked, picked_shape, axis,
                                r.output(0, y_shape, r.input(0).dtype()));
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(indexed_gather);
void register_indexed_gather_ops(OpTable& t) {
  t.add("GatherElements", offset_gather_factory(gather_elements_plan, "axis", element_offsets));
  t.add("GatherND", offset_gather_factory(gather_nd_plan, "batch_dims", tuple_offsets));
  t.add("Compress", compress_factory());
}

}  // namespace kiln::gpu_pixel
