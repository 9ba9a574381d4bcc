// IsNaN and IsInf: a bool (0 or 1) per element of a float32, float16 or bfloat16 texture, which
// holds those values exactly as float32. The tests look at the bits, which no compiler
// reassociation or fast-math assumption can change.
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform bool u_positive;  // IsInf's detect_positive
uniform bool u_negative;  // IsInf's detect_negative

float element(int e) {
  float v = fetch_element(x, x_width, e);
  uint magnitude = floatBitsToUint(v) & 0x7fffffffu;
#if defined(IS_NAN)
  return magnitude > 0x7f800000u ? 1.0 : 0.0;
#else
  bool negative = (floatBitsToUint(v) >> 31) != 0u;
  bool detected = negative ? u_negative : u_positive;
  return magnitude == 0x7f800000u && detected ? 1.0 : 0.0;
#endif
}
)";

class FloatTest {
 public:
  explicit FloatTest(Context& context) : context_(context) {}

  // y = IsNaN(x), or IsInf(x) detecting the signs asked for.
  void record(bool is_nan, bool positive, bool negative, const TextureTensor& x,
              TextureTensor& y) const {
    if (y.element_count() == 0) return;
    ProgramVariant variant;
    variant.add(is_nan, "IS_NAN");
    const Program& program = context_.programs().get("float_test", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(context_, program, y, inputs, [&] {
      program.set("u_positive", positive ? 1 : 0);
      program.set("u_negative", negative ? 1 : 0);
    });
  }

 private:
  Context& context_;
};

OpFactory float_test_factory(bool is_nan) {
  return [is_nan](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16,
                                           DataType::BFloat16};
    if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, 0, 1)) {
      reason = std::string(dtype_name(q.input_types[*k])) + " inputs stay on the CPU";
      return nullptr;
    }
    const bool positive = q.info.attr_int("detect_positive", 1) != 0;
    const bool negative = q.info.attr_int("detect_negative", 1) != 0;
    return [=](OpRecorder& r) {
      const TextureTensor& x = r.texture(0);
      r.kernel<FloatTest>().record(is_nan, positive, negative, x,
                                   r.output(0, r.shape(0), DataType::Bool));
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(float_tests);
void register_float_tests_ops(OpTable& t) {
  t.add("IsNaN", float_test_factory(true));
  t.add("IsInf", float_test_factory(false));
}

}  // namespace kiln::gpu_pixel
