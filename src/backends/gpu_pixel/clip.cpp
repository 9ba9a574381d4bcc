// Clip: float32 with constant bounds (attributes before opset 11, constant inputs after) through
// the unary kernel (gpu_common/unary_ops.inc); from opset 11 with bounds computed at run time, or
// of another texture dtype, a draw that reads each bound present from its one-element texture (or
// a host value, uploaded) and applies them as the CPU does, the lower one first (so min > max gives
// max) and a NaN bound ignored, a NaN input kept.
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/unary_elementwise.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
#ifdef HAS_MIN
uniform highp sampler2D lo;
uniform int lo_width;
#endif
#ifdef HAS_MAX
uniform highp sampler2D hi;
uniform int hi_width;
#endif

float element(int e) {
  float v = fetch_element(x, x_width, e);
#ifdef HAS_MIN
  float a = fetch_element(lo, lo_width, 0);
  // isnan spelled out: the compiler may turn a select on a comparison into max(), which drops a
  // NaN input.
  if (!isnan(v) && !isnan(a)) v = max(v, a);
#endif
#ifdef HAS_MAX
  float b = fetch_element(hi, hi_width, 0);
  if (!isnan(v) && !isnan(b)) v = min(v, b);
#endif
  return v;
}
)";

class ClipWithBoundTextures {
 public:
  explicit ClipWithBoundTextures(Context& context) : context_(context) {}

  // y = Clip(x, lo, hi); a null bound is absent.
  void record(const TextureTensor& x, const TextureTensor* lo, const TextureTensor* hi,
              TextureTensor& y) const {
    if (y.element_count() == 0) return;
    ProgramVariant variant;
    variant.add(lo != nullptr, "HAS_MIN");
    variant.add(hi != nullptr, "HAS_MAX");
    const Program& program = context_.programs().get("clip_bounds", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    std::vector<DrawInput> inputs = {{"x", &x}};
    if (lo) inputs.push_back({"lo", lo});
    if (hi) inputs.push_back({"hi", hi});
    draw(context_, program, y, inputs);
  }

 private:
  Context& context_;
};

// The result is always an input value (x or a bound), so every texture dtype goes through
// exactly: float16 and the small integers too.
void record_clip_with_bound_inputs(OpRecorder& r) {
  const DataType dtype = r.input(0).dtype();
  const TextureTensor* bounds[2] = {nullptr, nullptr};
  for (size_t k = 1; k <= 2; ++k) {
    if (!r.has_input(k)) continue;
    if (r.input(k).dtype() != dtype || r.shape(k).element_count() != 1)
      throw RunOnCpu(RunTimeCause::InputKind,
                     "a Clip bound that is no one-element tensor of X's dtype; the CPU kernel "
                     "reports it");
    bounds[k - 1] = &r.texture(k);
  }
  const TextureTensor& x = r.texture(0);
  r.kernel<ClipWithBoundTextures>().record(x, bounds[0], bounds[1], r.output(0, r.shape(0), dtype));
}

OpFactory clip_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.info.opset() < 11 || (!q.input_types.empty() && q.input_types[0] == DataType::Float32)) {
      if (!float_inputs(q, reason)) return nullptr;
      std::string bounds_not_constant;
      if (const std::optional<UnaryParams> params = unary_params(q.info, bounds_not_constant)) {
        return [p = *params](OpRecorder& r) {
          const TextureTensor& x = r.texture(0);
          r.kernel<UnaryElementwise>().record(p, x, r.output(0, r.shape(0)));
        };
      }
      if (q.info.opset() < 11) {
        reason = bounds_not_constant;
        return nullptr;
      }
    }
    if (!texel_inputs(q, reason)) return nullptr;
    return record_clip_with_bound_inputs;
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(clip);
void register_clip_ops(OpTable& t) { t.add("Clip", clip_factory()); }

}  // namespace kiln::gpu_pixel
