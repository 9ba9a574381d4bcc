// DeformConv as a draw for float32 inputs: the geometry and checks are the definition's
// (opdefs/deform_conv.h); each output element (n, oc, oh, ow) sums, channel by channel of its
// group and tap by tap (the CPU kernel's order), the tap's weight times X read bilinearly at the
// tap's position displaced by its offset (zero outside the image), scaled by the mask when there
// is one, starting from the bias.
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "opdefs/deform_conv.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D w;
uniform int w_width;
uniform highp sampler2D offsets;
uniform int offsets_width;
#if defined(HAS_BIAS)
uniform highp sampler2D bias;
uniform int bias_width;
#endif
#if defined(HAS_MASK)
uniform highp sampler2D mask;
uniform int mask_width;
#endif
uniform ivec3 u_in;   // C, H, W
uniform ivec3 u_out;  // C, H, W
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
uniform ivec2 u_dilation;
uniform ivec2 u_pad;
uniform int u_in_per_group;
uniform int u_out_per_group;
uniform int u_in_per_offset_group;
uniform int u_offset_group;

// X at (yy, xx) of the plane starting at `plane`, bilinearly, zero outside the image.
float sample_at(int plane, float yy, float xx) {
  float h = float(u_in.y), wd = float(u_in.z);
  if (!(yy > -1.0 && yy < h && xx > -1.0 && xx < wd)) return 0.0;  // also NaN
  float y0f = floor(yy), x0f = floor(xx);
  int y0 = int(y0f), x0 = int(x0f);
  float ly = yy - y0f, lx = xx - x0f;
  float v = 0.0;
  for (int dy = 0; dy < 2; ++dy) {
    int yi = y0 + dy;
    if (yi < 0 || yi >= u_in.y) continue;
    float wy = dy != 0 ? ly : 1.0 - ly;
    for (int dx = 0; dx < 2; ++dx) {
      int xi = x0 + dx;
      if (xi < 0 || xi >= u_in.z) continue;
      v += wy * (dx != 0 ? lx : 1.0 - lx) * fetch_element(x, x_width, plane + yi * u_in.z + xi);
    }
  }
  return v;
}

float element(int e) {
  int plane_out = u_out.y * u_out.z;
  int pos = e % plane_out;
  int oc = (e / plane_out) % u_out.x;
  int n = e / (plane_out * u_out.x);
  int oh = pos / u_out.z, ow = pos % u_out.z;
  int taps = u_kernel.x * u_kernel.y;
  int group = oc / u_out_per_group;
  int off_base = n * u_offset_group * 2 * taps * plane_out + pos;
  int mask_base = n * u_offset_group * taps * plane_out + pos;
#if defined(HAS_BIAS)
  float acc = fetch_element(bias, bias_width, oc);
#else
  float acc = 0.0;
#endif
  for (int ci = 0; ci < u_in_per_group; ++ci) {
    int c = group * u_in_per_group + ci;
    int og = c / u_in_per_offset_group;
    int plane = (n * u_in.x + c) * u_in.y * u_in.z;
    for (int k = 0; k < taps; ++k) {
      int i = k / u_kernel.y, j = k % u_kernel.y;
      float dy = fetch_element(offsets, offsets_width, off_base + ((og * taps + k) * 2) * plane_out);
      float dx =
          fetch_element(offsets, offsets_width, off_base + ((og * taps + k) * 2 + 1) * plane_out);
      float yy = float(oh * u_stride.x - u_pad.x + i * u_dilation.x) + dy;
      float xx = float(ow * u_stride.y - u_pad.y + j * u_dilation.y) + dx;
      float v = sample_at(plane, yy, xx);
#if defined(HAS_MASK)
      v *= fetch_element(mask, mask_width, mask_base + (og * taps + k) * plane_out);
#endif
      acc += fetch_element(w, w_width, (oc * u_in_per_group + ci) * taps + k) * v;
    }
  }
  return acc;
}
)";

// Loop iterations per output element of one (channel, tap): the tap loop's own and the
// bilinear sample's two rows of two.
constexpr int64_t kStepsPerTap = 1 + 2 + 4;

// Whether every value fits the shader's 32-bit arithmetic.
bool fits_32_bits(const DeformGeometry& g, int64_t out_count, int64_t x_count,
                  int64_t offset_count) {
  for (int64_t v : {out_count, x_count, offset_count, g.stride_h * g.out_h + g.dil_h * g.k_h,
                    g.stride_w * g.out_w + g.dil_w * g.k_w, g.pad_h, g.pad_w}) {
    if (v > INT32_MAX) return false;
  }
  return true;
}

class DeformConvDraw {
 public:
  explicit DeformConvDraw(Context& context) : context_(context) {}

  // `bias` and `mask` may be null.
  void record(const DeformGeometry& g, const TextureTensor& x, const TextureTensor& w,
              const TextureTensor& offsets, const TextureTensor* bias, const TextureTensor* mask,
              TextureTensor& y) const {
    if (y.element_count() == 0) return;
    ProgramVariant variant;
    variant.add(bias != nullptr, "HAS_BIAS");
    variant.add(mask != nullptr, "HAS_MASK");
    const Program& program = context_.programs().get("deform_conv", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    std::vector<DrawInput> inputs = {{"x", &x}, {"w", &w}, {"offsets", &offsets}};
    if (bias) inputs.push_back({"bias", bias});
    if (mask) inputs.push_back({"mask", mask});
    auto i = [](int64_t v) { return static_cast<int>(v); };
    draw(
        context_, program, y, inputs,
        [&] {
          glUniform3i(program.location("u_in"), i(g.in_c), i(g.in_h), i(g.in_w));
          glUniform3i(program.location("u_out"), i(g.out_c), i(g.out_h), i(g.out_w));
          glUniform2i(program.location("u_kernel"), i(g.k_h), i(g.k_w));
          glUniform2i(program.location("u_stride"), i(g.stride_h), i(g.stride_w));
          glUniform2i(program.location("u_dilation"), i(g.dil_h), i(g.dil_w));
          glUniform2i(program.location("u_pad"), i(g.pad_h), i(g.pad_w));
          program.set("u_in_per_group", i(g.in_c / g.group));
          program.set("u_out_per_group", i(g.out_c / g.group));
          program.set("u_in_per_offset_group", i(g.in_c / g.offset_group));
          program.set("u_offset_group", i(g.offset_group));
        },
        4 * (g.in_c / g.group) * (1 + g.taps() * kStepsPerTap));
  }

 private:
  Context& context_;
};

OpFactory deform_conv_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const DeformConvAttrs attrs = parse_deform_conv_attrs(q.info);
    if (!float_inputs(q, reason)) return nullptr;
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const std::vector<Tensor> inputs = run_inputs(r);
      const DeformGeometry g = resolve_deform_conv(NodeInputs{*node.node, inputs}, attrs);
      const Shape out_shape{g.batch, g.out_c, g.out_h, g.out_w};
      if (!fits_32_bits(g, out_shape.element_count(), r.shape(0).element_count(),
                        r.shape(2).element_count()))
        throw RunOnCpu(RunTimeCause::DeviceLimit, "a tensor exceeds 32-bit indexing");
      TextureTensor& y = r.output(0, out_shape);
      if (out_shape.element_count() == 0) return;
      const TextureTensor* bias = r.has_input(3) ? &r.texture(3) : nullptr;
      const TextureTensor* mask = r.has_input(4) ? &r.texture(4) : nullptr;
      r.kernel<DeformConvDraw>().record(g, r.texture(0), r.texture(1), r.texture(2), bias, mask, y);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(deform_conv);
void register_deform_conv_ops(OpTable& t) { t.add("DeformConv", deform_conv_factory()); }

}  // namespace kiln::gpu_pixel
