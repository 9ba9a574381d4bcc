#include "backends/gpu_pixel/unary_elementwise.h"

#include <string>

#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// OP_CODE (a UnaryOp value) selects the op at compile time: one small program per op, built on
// first use. The op's formula comes from its row of the shared unary_ops.inc, placed between
// kApplyBegin and kApplyEnd; the compiler folds away the other rows (Mesa compiles these programs
// as fast as ones given only their own row).
constexpr const char* kApplyBegin = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform float u_alpha;  // the op's first parameter (unary_ops.inc)
uniform float u_beta;   // its second

float apply(float v) {
  float alpha = u_alpha;
  float beta = u_beta;
#define KILN_UNARY_OP(op, code, onnx, alpha_attr, alpha_default, beta_attr, beta_default, on_nan, value) if (OP_CODE == code) { if (isnan(v)) return on_nan; return value; }
)";

constexpr const char* kApplyEnd = R"(
#undef KILN_UNARY_OP
  return v;  // the host checks the op code, so no other value reaches here
}

void main() {
  vec4 v = fetch_texel(x, x_width, output_texel());
  out_texel = finish_texel(vec4(apply(v.x), apply(v.y), apply(v.z), apply(v.w)));
}
)";

}  // namespace

void UnaryElementwise::record(const UnaryParams& params, const TextureTensor& x,
                              TextureTensor& y) const {
  check_unary_params(params, "unary op on OpenGL ES");
  const char* name = to_string(params.op);
  const std::string where = std::string(name) + " on OpenGL ES";
  check(x.element_count() == y.element_count(),
        where + ": input of " + std::to_string(x.element_count()) + " elements, output of " +
            std::to_string(y.element_count()));
  if (x.element_count() == 0) return;
  static const std::string body =
      std::string(shader_math_glsl()) + kApplyBegin + std::string(unary_ops_glsl()) + kApplyEnd;
  const Program& program = context_.programs().get(
      "unary_elementwise", name,
      "#define OP_CODE " + std::to_string(static_cast<uint32_t>(params.op)) + "\n", body);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs, [&] {
    program.set("u_alpha", params.alpha);
    program.set("u_beta", params.beta);
  });
}

}  // namespace kiln::gpu_pixel
