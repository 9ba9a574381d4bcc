// Col2Im on the GPU-pixel backend: float32 columns folded back into images of up to 3 spatial
// axes, with the geometry its definition (opdefs/col2im.h) resolves for the CPU kernel too. The
// image and block shapes are host values (shape-deciding).
//
// One draw, a gather: each output pixel adds the column entries of every sliding block that
// covers it, in the CPU's order (block offsets in row-major order). The CPU adds in double; the
// sum here is kept to about twice float's precision (wide_float.h) and rounded once.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/wide_float.h"
#include "opdefs/col2im.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr size_t kMaxSpatialAxes = 3;

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_rank;  // spatial axes, 1..3
uniform int u_block_size;
uniform int u_columns;
uniform int u_image_size;
uniform ivec3 u_image;
uniform ivec3 u_block;
uniform ivec3 u_dilation;
uniform ivec3 u_pad_begin;
uniform ivec3 u_stride;
uniform ivec3 u_positions;

float element(int e) {
  int plane = e / u_image_size;
  ivec3 q = ivec3(0);
  int rest = e % u_image_size;
  for (int d = u_rank - 1; d >= 0; --d) {
    q[d] = rest % u_image[d];
    rest /= u_image[d];
  }
  int base = plane * u_block_size * u_columns;
  Wide acc = Wide(0.0, 0.0);
  for (int k = 0; k < u_block_size; ++k) {
    // Block offset b (row-major over the block's axes) and the sliding position it implies.
    int kr = k;
    int column = 0;
    int scale = 1;
    bool covers = true;
    for (int d = u_rank - 1; d >= 0; --d) {
      int b = kr % u_block[d];
      kr /= u_block[d];
      int t = q[d] + u_pad_begin[d] - b * u_dilation[d];
      if (t < 0 || t % u_stride[d] != 0 || t / u_stride[d] >= u_positions[d]) {
        covers = false;
        break;
      }
      column += (t / u_stride[d]) * scale;
      scale *= u_positions[d];
    }
    if (covers) {
      acc = wide_add(acc, Wide(fetch_element(x, x_width, base + k * u_columns + column), 0.0),
                     false);
    }
  }
  return wide_value(acc);
}
)";

class Col2Im {
 public:
  explicit Col2Im(Context& context) : context_(context) {}

  void record(const Col2ImGeometry& g, const TextureTensor& x, TextureTensor& y) const {
    const std::string where = "Col2Im on OpenGL ES";
    const auto rank = static_cast<int>(g.image.size());
    expect_element_count(x, g.planes * g.block_size * g.columns, where, "input");
    expect_element_count(y, g.planes * g.image_size, where, "output");
    if (y.element_count() == 0) return;
    const Program& program = context_.programs().get(
        "col2im", "", "", std::string(kWideFloatGlsl) + kShader + kElementMain);
    auto axes = [&](const Shape& v, int fill) {
      int out[3] = {fill, fill, fill};
      for (int d = 0; d < rank; ++d) out[d] = static_cast<int>(v[d]);
      return std::vector<int>(out, out + 3);
    };
    const DrawInput inputs[] = {{"x", &x}};
    auto set3 = [&](const char* name, const std::vector<int>& v) {
      glUniform3i(program.location(name), v[0], v[1], v[2]);
    };
    draw(
        context_, program, y, inputs,
        [&] {
          set_wide_float_uniforms(program);
          program.set("u_rank", rank);
          program.set("u_block_size", static_cast<int>(g.block_size));
          program.set("u_columns", static_cast<int>(g.columns));
          program.set("u_image_size", static_cast<int>(std::max<int64_t>(g.image_size, 1)));
          set3("u_image", axes(g.image, 1));
          set3("u_block", axes(g.block, 1));
          set3("u_dilation", axes(g.dilation, 1));
          set3("u_pad_begin", axes(g.pad_begin, 0));
          set3("u_stride", axes(g.stride, 1));
          set3("u_positions", axes(g.positions, 1));
        },
        // Per element: the rank's index loop, and per block offset the loop over its axes.
        4 * (rank + g.block_size * (1 + rank)));
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

// RunOnCpu where the geometry is beyond the kernel.
void check_geometry(const Col2ImGeometry& g, int64_t in_elements) {
  if (g.image.size() > kMaxSpatialAxes)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more than 3 spatial axes");
  if (g.planes * g.image_size > kIndexLimit || in_elements > kIndexLimit)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
  for (size_t d = 0; d < g.image.size(); ++d) {
    // The shader's signed position arithmetic: padded extents within 31 bits.
    if (g.image[d] + g.pad_begin[d] > kIndexLimit ||
        g.dilation[d] * (g.block[d] - 1) > kIndexLimit || g.stride[d] > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "padding or dilation beyond 32-bit positions");
  }
}

RecordFn col2im(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_col2im_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({1, 2});
    const Col2ImGeometry g = resolve_col2im(NodeInputs{*node.node, inputs}, attrs);
    check_geometry(g, r.shape(0).element_count());
    if (g.out_shape.element_count() > 0 && r.shape(0).element_count() == 0)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "an image of no columns");
    TextureTensor& y = r.output(0, g.out_shape);
    if (g.out_shape.element_count() == 0) return;
    r.kernel<Col2Im>().record(g, r.texture(0), y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(col2im);
void register_col2im_ops(OpTable& t) {
  t.add("Col2Im", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    return col2im(q.info);
  });
}

}  // namespace kiln::gpu_pixel
