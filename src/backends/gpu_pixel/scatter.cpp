// ScatterElements, Scatter (deprecated) and ScatterND as one draw: each output element starts
// from data's element and applies, in the CPU's order, every update that lands on it, so
// duplicate indices and order-dependent reductions (float add and mul) give the CPU's result.
// The host works out from the (host-held) indices where each update goes: data viewed as
// [targets, slice], update u (a slice of `slice` elements) lands on target index_at(u). That is
// one element per update for ScatterElements (slice 1) and one slice per index tuple for
// ScatterND. The targets travel as uniforms (host_indices.h); a fragment scans all of them, so
// the fragment loop budget bounds the updates too. Reductions take float32 data; without one
// the draw copies, so every texture dtype goes through. Shapes or indices the ops reject run on
// the CPU, whose kernel reports them.
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/host_indices.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "opdefs/broadcast.h"
#include "opdefs/scatter_reduction.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp sampler2D data;
uniform int data_width;
uniform highp sampler2D updates;
uniform int updates_width;
uniform int u_slice;    // elements per target
uniform int u_updates;  // targets listed in u_index, one per update slice

float combine(float v, float u) {
#if defined(ADD)
  return v + u;
#elif defined(MUL)
  return v * u;
#elif defined(MAX)
  return (isnan(u) || u > v) ? u : v;  // a NaN update wins, as on the CPU
#elif defined(MIN)
  return (isnan(u) || u < v) ? u : v;
#else
  return u;
#endif
}

float element(int i) {
  int target = i / u_slice;
  int e = i - target * u_slice;
  float v = fetch_element(data, data_width, i);
  for (int u = 0; u < u_updates; ++u) {
    if (index_at(u) == target) v = combine(v, fetch_element(updates, updates_width, u * u_slice + e));
  }
  return v;
}
)";

const char* reduction_define(ScatterReduction r) {
  switch (r) {
    case ScatterReduction::Add:
      return "ADD";
    case ScatterReduction::Mul:
      return "MUL";
    case ScatterReduction::Max:
      return "MAX";
    case ScatterReduction::Min:
      return "MIN";
    case ScatterReduction::None:
      break;
  }
  return "";
}

// Where one run's updates land: update slice u on the output's target targets[u].
struct ScatterPlan {
  std::vector<int> targets;
  int64_t slice = 1;
};

class Scatter {
 public:
  explicit Scatter(Context& context) : context_(context) {}

  void record(const TextureTensor& data, const TextureTensor& updates, const ScatterPlan& plan,
              ScatterReduction reduction, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    ProgramVariant variant;
    variant.add(reduction != ScatterReduction::None, reduction_define(reduction));
    const Program& program =
        context_.programs().get("scatter", variant.name, variant.defines,
                                std::string(kIndexUniformsGlsl) + kShader + kElementMain);
    const int updates_count = static_cast<int>(plan.targets.size());
    std::vector<DrawInput> inputs = {{"data", &data}};
    // An empty updates tensor has no texture: nothing is scanned then.
    if (updates_count > 0) inputs.push_back({"updates", &updates});
    draw(
        context_, program, y, inputs,
        [&] {
          program.set("u_slice", static_cast<int>(plan.slice));
          program.set("u_updates", updates_count);
          set_index_uniforms(context_, program, plan.targets);
        },
        4 * static_cast<int64_t>(updates_count));
  }

 private:
  Context& context_;
};

// ScatterElements: update p lands on p's coordinates with the axis one replaced by indices[p].
ScatterPlan elements_plan(const Shape& data, const Shape& indices, const Shape& updates,
                          const std::vector<int64_t>& values, int64_t axis_attr) {
  if (updates != indices) run_rejected_shapes_on_cpu();
  ScatterPlan plan;
  plan.targets = elements_offsets(data, indices, values, axis_attr);
  return plan;
}

// ScatterND: the indices' last dim k is a tuple into data's first k dims; updates hold one slice
// of data's remaining dims per tuple.
ScatterPlan nd_plan(const Shape& data, const Shape& indices, const Shape& updates,
                    const std::vector<int64_t>& values, int64_t) {
  if (data.empty() || indices.empty()) run_rejected_shapes_on_cpu();
  const int64_t k = indices.back();
  if (k < 1 || k > static_cast<int64_t>(data.size())) run_rejected_shapes_on_cpu();
  Shape expected(indices.begin(), indices.end() - 1);
  ScatterPlan plan;
  for (size_t d = static_cast<size_t>(k); d < data.size(); ++d) {
    expected.push_back(data[d]);
    plan.slice *= data[d];
  }
  if (updates != expected) run_rejected_shapes_on_cpu();
  const int64_t tuples = Shape(indices.begin(), indices.end() - 1).element_count();
  check_index_uniforms_fit(data, tuples);
  if (plan.slice == 0) return plan;  // nothing to update
  // Target of a tuple: its row-major position over data's first k dims.
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t target = 0;
    for (int64_t j = 0; j < k; ++j)
      target = target * data[j] + wrapped_host_index(values[t * k + j], data[j]);
    plan.targets.push_back(static_cast<int>(target));
  }
  return plan;
}

using PlanFn = ScatterPlan (*)(const Shape&, const Shape&, const Shape&,
                               const std::vector<int64_t>&, int64_t);

// Updates a GatherElements-style scatter lists: one per index; ScatterND: one per tuple.
int64_t element_updates(const Shape& indices) { return indices.element_count(); }
int64_t tuple_updates(const Shape& indices) {
  if (indices.empty() || indices.back() == 0) return 0;
  return indices.element_count() / indices.back();
}

OpFactory scatter_factory(PlanFn plan_of, int64_t (*updates_of)(const Shape&)) {
  return [=](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const ScatterReduction reduction = parse_scatter_reduction(q.info);
    const bool reduces = reduction != ScatterReduction::None;
    if (reduces ? !float_inputs(q, reason, 0, 1) || !float_inputs(q, reason, 2, 1)
                : !texel_inputs(q, reason, 0, 1) || !texel_inputs(q, reason, 2, 1))
      return nullptr;
    if (!index_input_on_host(q, 1, reason)) return nullptr;
    if (q.input_types.size() > 2 && q.input_types[0] != q.input_types[2] &&
        q.input_types[0] != DataType::Undefined && q.input_types[2] != DataType::Undefined) {
      reason = "updates and data of different types";
      return nullptr;
    }
    if (const Shape* indices = static_input_shape(q, 1);
        indices && !index_uniforms_fit(static_cast<size_t>(updates_of(*indices)))) {
      reason = "more updates than " + std::to_string(kIndexUniforms) +
               " (the index uniforms hold that many)";
      return nullptr;
    }
    const int64_t axis = q.info.attr_int("axis", 0);
    return [=](OpRecorder& r) {
      if (r.input(2).dtype() != r.input(0).dtype())
        throw RunOnCpu(RunTimeCause::InputKind, "updates and data of different types");
      const std::vector<int64_t> values = host_index_values(r.host(1));
      const ScatterPlan plan = plan_of(r.shape(0), r.shape(1), r.shape(2), values, axis);
      const TextureTensor& data = r.texture(0);
      const TextureTensor& updates = r.shape(2).element_count() > 0 ? r.texture(2) : data;
      r.kernel<Scatter>().record(data, updates, plan, reduction,
                                 r.output(0, r.shape(0), r.input(0).dtype()));
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(scatter);
void register_scatter_ops(OpTable& t) {
  t.add("ScatterElements", scatter_factory(elements_plan, element_updates));
  t.add("Scatter", scatter_factory(elements_plan, element_updates));
  t.add("ScatterND", scatter_factory(nd_plan, tuple_updates));
}

}  // namespace kiln::gpu_pixel
