// TensorScatter as a draw: the copies that write the update into the cache are the definition's
// (opdefs/tensor_scatter.h), planned from the host-held write_indices. A draw writes whole output
// texels, so the copies are drawn as a gather: the host turns them into a source map (for each
// output element, the update element that lands on it, or -1 to keep past_cache's), uploaded as
// an integer texture, and each output element reads its source. The map costs an int32 per cache
// element per run, host work the size of the cache (as the CPU kernel's copy of it). Copies only,
// so every texture dtype goes through; int64 elements are copied word by word.
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "backends/gpu_pixel/texture.h"
#include "core/tensor_impl.h"
#include "opdefs/tensor_scatter.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER past;
uniform int past_width;
uniform highp VALUE_SAMPLER update;
uniform int update_width;
uniform highp isampler2D source;  // per output element: its update element, or -1
uniform int source_width;
uniform int u_words;  // texture components per element: 2 for int64

VALUE element(int w) {
  int e = w / u_words;
  int s = fetch_element(source, source_width, e);
  if (s < 0) return fetch_element(past, past_width, w);
  return fetch_element(update, update_width, s * u_words + (w - e * u_words));
}
)";

// For each of `count` output elements, the input element the copies write to it (the last copy
// wins), -1 where none does.
std::vector<int32_t> source_map(const std::vector<StridedCopy>& copies, int64_t count) {
  std::vector<int32_t> source(static_cast<size_t>(count), -1);
  for (const StridedCopy& c : copies) {
    const size_t rank = c.shape.size();
    std::vector<int64_t> at(rank, 0);
    int64_t in = c.in_offset, out = c.out_offset;
    const int64_t elements = Shape(c.shape).element_count();
    for (int64_t k = 0; k < elements; ++k) {
      source[static_cast<size_t>(out)] = static_cast<int32_t>(in);
      // The next index in row-major order, moving both offsets along.
      for (size_t d = rank; d-- > 0;) {
        in += c.in_strides[d];
        out += c.out_strides[d];
        if (++at[d] < c.shape[d]) break;
        in -= c.in_strides[d] * c.shape[d];
        out -= c.out_strides[d] * c.shape[d];
        at[d] = 0;
      }
    }
  }
  return source;
}

class TensorScatterDraw {
 public:
  explicit TensorScatterDraw(Context& context) : context_(context) {}

  // y = past with the update's elements at `source`'s positions.
  void record(const TextureTensor& past, const TextureTensor& update,
              const std::vector<int32_t>& source, int words, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    TextureTensor map(context_, static_cast<int64_t>(source.size()), TextureFormat::Rgba32I);
    upload(map, source);
    const ProgramVariant variant = values_variant(y.format());
    const Program& program = context_.programs().get(
        "tensor_scatter", variant.name, variant.defines, std::string(kShader) + kElementMain);
    const DrawInput inputs[] = {{"past", &past}, {"update", &update}, {"source", &map}};
    draw(context_, program, y, inputs, [&] { program.set("u_words", words); });
  }

 private:
  Context& context_;
};

OpFactory tensor_scatter_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    tensor_scatter::Attributes attrs;
    if (!texel_inputs(q, reason, 0, 2) || !host_inputs(q, 2, reason) ||
        !attributes_accepted([&] { attrs = tensor_scatter::parse_attributes(q.info); }, reason))
      return nullptr;
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      std::vector<Tensor> inputs = run_inputs(r);
      if (r.has_input(2)) inputs[2] = r.host(2);
      const std::vector<StridedCopy> copies =
          tensor_scatter::plan_update_copies({*node.node, inputs}, attrs);
      const DataType dtype = r.dtype(0);
      if (r.dtype(1) != dtype)
        throw RunOnCpu(RunTimeCause::InputKind, "update and past_cache of different types");
      const Shape& shape = r.shape(0);
      if (shape.element_count() * words_per_element(dtype) > INT32_MAX)
        throw RunOnCpu(RunTimeCause::DeviceLimit, "a tensor exceeds 32-bit indexing");
      TextureTensor& y = r.output(0, shape, dtype);
      if (shape.element_count() == 0) return;
      const TextureTensor& past = r.texture(0);
      // An empty update has no texture and no copies: past stands in for it, never read.
      const TextureTensor& update = r.shape(1).element_count() > 0 ? r.texture(1) : past;
      r.kernel<TensorScatterDraw>().record(past, update, source_map(copies, shape.element_count()),
                                           words_per_element(dtype), y);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(tensor_scatter);
void register_tensor_scatter_ops(OpTable& t) { t.add("TensorScatter", tensor_scatter_factory()); }

}  // namespace kiln::gpu_pixel
