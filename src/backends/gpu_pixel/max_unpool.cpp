// MaxUnpool as a draw: its attributes and shapes are the definition's (opdefs/max_unpool.h). A
// draw writes whole output texels, so the scatter is drawn as a gather: the host works out from
// the (host-held) indices which output element each input element lands on, the targets travel
// as uniforms (host_indices.h), and each output element scans them all and keeps the last input
// element that names it (the CPU kernel's result for repeated indices), zero when none does.
// Copies only, so every texture dtype goes through; int64 values are copied word by word.
// Indices outside the unpooled shape run on the CPU, whose kernel reports them.
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/host_indices.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "opdefs/broadcast.h"
#include "opdefs/max_unpool.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform int u_words;   // texture components per element: 2 for int64
uniform int u_inputs;  // input elements, each with its output target in u_index

VALUE element(int w) {
  int e = w / u_words;
  int word = w - e * u_words;
  VALUE v = VALUE(0);
  for (int u = 0; u < u_inputs; ++u) {
    if (index_at(u) == e) v = fetch_element(x, x_width, u * u_words + word);
  }
  return v;
}
)";

class MaxUnpoolDraw {
 public:
  explicit MaxUnpoolDraw(Context& context) : context_(context) {}

  // y = x's elements at `targets` (one output offset per input element), zero elsewhere.
  void record(const TextureTensor& x, const std::vector<int>& targets, int words,
              TextureTensor& y) const {
    if (y.element_count() == 0) return;
    const ProgramVariant variant = values_variant(y.format());
    const Program& program =
        context_.programs().get("max_unpool", variant.name, variant.defines,
                                std::string(kIndexUniformsGlsl) + kShader + kElementMain);
    const int inputs_count = static_cast<int>(targets.size());
    std::vector<DrawInput> inputs;
    // An empty input has no texture: nothing is scanned then.
    if (inputs_count > 0) inputs.push_back({"x", &x});
    draw(
        context_, program, y, inputs,
        [&] {
          program.set("u_words", words);
          program.set("u_inputs", inputs_count);
          set_index_uniforms(context_, program, targets);
        },
        4 * static_cast<int64_t>(inputs_count));
  }

 private:
  Context& context_;
};

// The output offset of each index: the index addresses the unpooled shape, which sits in the
// leading corner of a larger output_shape.
std::vector<int> unpool_targets(const std::vector<int64_t>& indices, const MaxUnpoolShapes& s) {
  const int64_t total = s.unpooled.element_count();
  const Shape out_strides = strides_of(s.output);
  std::vector<int> targets;
  targets.reserve(indices.size());
  for (const int64_t index : indices) {
    if (index < 0 || index >= total)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "an index is outside the unpooled shape; the CPU kernel reports it");
    int64_t rest = index, offset = 0;
    for (size_t d = s.unpooled.size(); d-- > 0;) {
      offset += (rest % s.unpooled[d]) * out_strides[d];
      rest /= s.unpooled[d];
    }
    targets.push_back(static_cast<int>(offset));
  }
  return targets;
}

OpFactory max_unpool_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const MaxUnpoolAttrs attrs = parse_max_unpool_attrs(q.info);
    if (!texel_inputs(q, reason, 0, 1) || !index_input_on_host(q, 1, reason) ||
        !host_inputs(q, 2, reason))
      return nullptr;
    if (const Shape* x = static_input_shape(q, 0);
        x && !index_uniforms_fit(static_cast<size_t>(x->element_count()))) {
      reason = "more input elements than " + std::to_string(kIndexUniforms) +
               " (the index uniforms hold that many)";
      return nullptr;
    }
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const std::vector<Tensor> inputs = run_inputs(r);
      const MaxUnpoolShapes s = resolve_max_unpool(NodeInputs{*node.node, inputs}, attrs);
      check_index_uniforms_fit(s.output, r.shape(0).element_count());
      const DataType dtype = r.dtype(0);
      const std::vector<int> targets = unpool_targets(host_index_values(r.host(1)), s);
      TextureTensor& y = r.output(0, s.output, dtype);
      // An empty X has no texture; the draw then binds none and writes zeros.
      const TextureTensor& x = targets.empty() ? y : r.texture(0);
      r.kernel<MaxUnpoolDraw>().record(x, targets, words_per_element(dtype), y);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(max_unpool);
void register_max_unpool_ops(OpTable& t) { t.add("MaxUnpool", max_unpool_factory()); }

}  // namespace kiln::gpu_pixel
