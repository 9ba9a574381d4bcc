// Trilu as one draw, for every texture dtype: float32, float16 and the other float-texture
// dtypes, and int32, uint32 and int64 in the integer textures (texel_dtype.h). Each output word
// is the input's word where its element lies in the kept triangle of its matrix (the last two
// axes), else zero; an int64's two words go together, so zero is both. The triangle and the
// diagonal offset come from the definition (opdefs/trilu.h), whose kiln::Error for a bad input
// is the run's error.
#include <string>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"
#include "opdefs/trilu.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// Built with the values variant of the tensor's texture; UPPER keeps column - row >= k, else
// column - row <= k.
constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform int u_words;  // texture words per element: 2 for int64, else 1
uniform int u_rows;
uniform int u_cols;
uniform int u_k;      // clamped by the definition to [-rows - 1, cols + 1]

VALUE element(int w) {
  int e = w / u_words;
  int column = e % u_cols;
  int row = (e / u_cols) % u_rows;
#ifdef UPPER
  bool keep = column - row >= u_k;
#else
  bool keep = column - row <= u_k;
#endif
  return keep ? fetch_element(x, x_width, w) : VALUE(0);
}
)";

class Trilu {
 public:
  explicit Trilu(Context& context) : context_(context) {}

  // y = the kept triangles of x, a tensor of `dtype` whose matrices are plan.rows x plan.cols.
  void record(bool upper, const TriluPlan& plan, DataType dtype, const TextureTensor& x,
              TextureTensor& y) const {
    const std::string where = "Trilu on OpenGL ES";
    check(x.format() == y.format(), where + ": the input and output textures differ in format");
    check(y.element_count() <= kIndexLimit, where + ": more words than 32-bit indexing reaches");
    expect_element_count(x, y.element_count(), where, "the input");
    if (y.element_count() == 0) return;
    ProgramVariant variant = values_variant(y.format());
    variant.add(upper, "UPPER");
    const Program& program = context_.programs().get("trilu", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(context_, program, y, inputs, [&] {
      program.set("u_words", words_per_element(dtype));
      program.set("u_rows", static_cast<int>(plan.rows));
      program.set("u_cols", static_cast<int>(plan.cols));
      program.set("u_k", static_cast<int>(plan.k));
    });
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

// X of a texture dtype; k (input 1) a host value.
OpFactory trilu_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    const TriluAttrs attrs = parse_trilu_attrs(q.info);
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const std::vector<Tensor> inputs = r.rule_inputs({1});
      const TriluPlan plan = resolve_trilu(NodeInputs{*node.node, inputs});
      const DataType dtype = r.dtype(0);
      TextureTensor& y = r.output(0, r.shape(0), dtype);
      if (r.shape(0).element_count() == 0) return;
      r.kernel<Trilu>().record(attrs.upper, plan, dtype, r.texture(0), y);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(trilu);
void register_trilu_ops(OpTable& t) { t.add("Trilu", trilu_factory()); }

}  // namespace kiln::gpu_pixel
