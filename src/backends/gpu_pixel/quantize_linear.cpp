// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear on the GPU-pixel backend. The
// quantized tensors are texel dtypes (texel_dtype.h): int8, uint8, int16, uint16, the 4- and
// 2-bit integers and the four float8 types, whose values textures hold exactly. Parameters are
// per tensor, per axis or blocked, as their definition (opdefs/quantize_linear.h) lays them out.
//
//   QuantizeLinear    float32 x and scale (dividing in float32): q = x / scale rounded
//                     correctly, then round_half_even(q) + zero_point clamped to the integer
//                     type, NaN giving its low end; to float8, q rounded to the type by the
//                     Cast kernel (convert.h) with `saturate`.
//   DequantizeLinear  (x - zero_point) * scale in float32 (float8: no zero point), with float32,
//                     float16 or bfloat16 scales; a float16 or bfloat16 output is rounded to its
//                     type by the Cast kernel.
//   DynamicQuantizeLinear  the range of x (and 0) by chunks, then scale and zero point as the CPU
//                     computes them, then QuantizeLinear's draw to uint8.
//
// GLSL ES only promises division to 2.5 ulp, so the quotients that decide a rounding are divided
// in integer arithmetic (divide_rn), correctly rounded as the CPU's float division.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "core/tensor_impl.h"
#include "kiln/error.h"
#include "opdefs/quantize_linear.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// a / b in float32, rounded to nearest even, by long division of the significands. Results below
// float32's normal range are rounded to its subnormals. NaN as the IEEE division gives it.
constexpr const char* kDivide = R"(
bool is_nan_bits(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }

float divide_rn(float a, float b) {
  uint ua = floatBitsToUint(a) & 0x7fffffffu;
  uint ub = floatBitsToUint(b) & 0x7fffffffu;
  uint sign = (floatBitsToUint(a) ^ floatBitsToUint(b)) & 0x80000000u;
  if (ua > 0x7f800000u || ub > 0x7f800000u) return nan_value();
  if (ua == 0x7f800000u) return ub == 0x7f800000u ? nan_value() : uintBitsToFloat(sign | ua);
  if (ub == 0x7f800000u) return uintBitsToFloat(sign);
  if (ub == 0u) return ua == 0u ? nan_value() : uintBitsToFloat(sign | 0x7f800000u);
  if (ua == 0u) return uintBitsToFloat(sign);
  // Significands in [2^23, 2^24), subnormals normalized.
  int ea = int(ua >> 23);
  int eb = int(ub >> 23);
  uint ma = ua & 0x7fffffu;
  uint mb = ub & 0x7fffffu;
  if (ea == 0) {
    ea = 1;
    while (ma < 0x800000u) { ma <<= 1; --ea; }
  } else {
    ma |= 0x800000u;
  }
  if (eb == 0) {
    eb = 1;
    while (mb < 0x800000u) { mb <<= 1; --eb; }
  } else {
    mb |= 0x800000u;
  }
  // q = floor(ma * 2^25 / mb), in [2^24, 2^26), and the remainder r.
  uint q = 0u;
  uint r = ma;
  if (r >= mb) { q = 1u; r -= mb; }
  for (int i = 0; i < 25; ++i) {
    r <<= 1;
    q <<= 1;
    if (r >= mb) { r -= mb; q |= 1u; }
  }
  int lsb = ea - eb - 25;  // the exponent of q's last bit
  int top = q >= 0x2000000u ? 25 : 24;
  // Keep 24 significant bits, fewer where the result is subnormal (last bit 2^-149).
  int keep = max(lsb + top - 23, -149);
  int shift = keep - lsb;
  if (shift > 26) return uintBitsToFloat(sign);  // below half the smallest subnormal
  uint m = q >> uint(shift);
  uint rest = q & ((1u << uint(shift)) - 1u);
  uint half_point = 1u << uint(shift - 1);
  if (rest > half_point || (rest == half_point && (r != 0u || (m & 1u) == 1u))) ++m;
  // m 2^keep: with keep = -149 the bits are m itself (a carry to 2^23 is the smallest normal).
  if (keep == -149) return uintBitsToFloat(sign | m);
  uint bits = (uint(keep + 150) << 23) + (m - 0x800000u);
  if (bits >= 0x7f800000u) return uintBitsToFloat(sign | 0x7f800000u);
  return uintBitsToFloat(sign | bits);
}
)";

// Element i's parameter index (QuantParamLayout::param_index), and the draws. DEQUANTIZE or
// quantizing (TO_FLOAT: the quotient only, for the float8 rounding draw); ZERO_POINT when there
// is one.
constexpr const char* kQuantize = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D scale;
uniform int scale_width;
#ifdef ZERO_POINT
uniform highp sampler2D zero_point;
uniform int zero_point_width;
uniform int u_zp_scalar;
#endif
uniform int u_extent;
uniform int u_inner;
uniform int u_block;
uniform int u_outer_stride;
uniform int u_axis_stride;
uniform int u_inner_stride;
uniform float u_lo;
uniform float u_hi;

int param_index(int i) {
  int run = i / u_inner;
  int ii = i - run * u_inner;
  int o = run / u_extent;
  int a = run - o * u_extent;
  return o * u_outer_stride + (a / u_block) * u_axis_stride + ii * u_inner_stride;
}

float zero_point_at(int p) {
#ifdef ZERO_POINT
  return fetch_element(zero_point, zero_point_width, u_zp_scalar != 0 ? 0 : p);
#else
  return 0.0;
#endif
}

float element(int i) {
  int p = param_index(i);
  float v = fetch_element(x, x_width, i);
  float s = fetch_element(scale, scale_width, p);
#if defined(DEQUANTIZE)
#ifdef ZERO_POINT
  v = v - zero_point_at(p);
#endif
  return v * s;
#else
  float q = divide_rn(v, s);
#if defined(TO_FLOAT)
  return q;
#else
  if (is_nan_bits(q)) return u_lo;
  float r = roundEven(q) + zero_point_at(p);
  return r <= u_lo ? u_lo : (r >= u_hi ? u_hi : r);
#endif
#endif
}
)";

// DynamicQuantizeLinear's range: the minimum and maximum of chunk `line` and 0, NaN skipped.
constexpr const char* kRangeChunks = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_count;
uniform int u_chunk;

vec2 line_stats(int line) {
  float lo = 0.0;
  float hi = 0.0;
  int end = min(u_count, (line + 1) * u_chunk);
  for (int i = line * u_chunk; i < end; ++i) {
    float v = fetch_element(x, x_width, i);
    if (is_nan_bits(v)) continue;
    lo = min(lo, v);
    hi = max(hi, v);
  }
  return vec2(lo, hi);
}
)";

// DynamicQuantizeLinear's scale (u_which 0) or zero point (1) from the chunks' ranges, as
// quantization_common.cpp's dynamic_quant_params.
constexpr const char* kDynamicParams = R"(
uniform highp sampler2D ranges;
uniform int ranges_width;
uniform int u_chunks;
uniform int u_which;

float element(int e) {
  float lo = 0.0;
  float hi = 0.0;
  for (int k = 0; k < u_chunks; ++k) {
    lo = min(lo, fetch_element(ranges, ranges_width, 2 * k));
    hi = max(hi, fetch_element(ranges, ranges_width, 2 * k + 1));
  }
  float s = hi == lo ? 1.0 : divide_rn(hi - lo, 255.0);
  if (u_which == 0) return s;
  float z = 0.0 - divide_rn(lo, s);
  if (is_nan_bits(z)) return 0.0;  // both infinities: inf / inf
  return roundEven(min(max(z, 0.0), 255.0));
}
)";

// Where each element's parameters are, and the integer range of the quantized type (unused when
// dequantizing or quantizing to a float type).
struct QuantDraw {
  QuantParamLayout layout;
  bool scalar_zero_point = true;
  IntRange range;
};

class QuantizeLinear {
 public:
  explicit QuantizeLinear(Context& context) : context_(context) {}

  enum class Mode { Dequantize, QuantizeToInt, QuantizeQuotient };

  void record(Mode mode, const QuantDraw& d, const TextureTensor& x, const TextureTensor& scale,
              const TextureTensor* zero_point, TextureTensor& y) const {
    const std::string where = "quantization on OpenGL ES";
    check(x.element_count() == y.element_count() && x.element_count() <= kIndexLimit,
          where + ": x and y differ in size, or exceed 32-bit indexing");
    if (y.element_count() == 0) return;
    ProgramVariant variant;
    variant.add(mode == Mode::Dequantize, "DEQUANTIZE");
    variant.add(mode == Mode::QuantizeQuotient, "TO_FLOAT");
    variant.add(zero_point != nullptr, "ZERO_POINT");
    const Program& program =
        context_.programs().get("quantize_linear", variant.name, variant.defines,
                                std::string(kDivide) + kQuantize + kElementMain);
    std::vector<DrawInput> inputs = {{"x", &x}, {"scale", &scale}};
    if (zero_point) inputs.push_back({"zero_point", zero_point});
    const QuantParamLayout& l = d.layout;
    draw(
        context_, program, y, inputs,
        [&] {
          program.set("u_extent", static_cast<int>(std::max<int64_t>(l.extent, 1)));
          program.set("u_inner", static_cast<int>(std::max<int64_t>(l.inner, 1)));
          program.set("u_block", static_cast<int>(l.block));
          program.set("u_outer_stride", static_cast<int>(l.outer_stride));
          program.set("u_axis_stride", static_cast<int>(l.axis_stride));
          program.set("u_inner_stride", static_cast<int>(l.inner_stride));
          program.set("u_zp_scalar", d.scalar_zero_point ? 1 : 0);
          program.set("u_lo", static_cast<float>(d.range.lo));
          program.set("u_hi", static_cast<float>(d.range.hi));
        },
        // The long division's loops, per element.
        4 * 80);
  }

  // DynamicQuantizeLinear's scale and zero point of x (nullptr when empty) into one-element
  // tensors.
  void record_dynamic_params(const TextureTensor* x, TextureTensor& scale,
                             TextureTensor& zero_point) const {
    const int64_t count = x ? x->element_count() : 0;
    check(count <= kIndexLimit, "DynamicQuantizeLinear on OpenGL ES: x exceeds 32-bit indexing");
    const auto chunk = std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(count)))));
    const int64_t chunks = (count + chunk - 1) / chunk;
    TextureTensor ranges(context_, 2 * std::max<int64_t>(chunks, 1));
    if (chunks > 0) {
      const Program& program = context_.programs().get(
          "dynamic_quantize_ranges", "", "", std::string(kDivide) + kRangeChunks + kLineStatsMain);
      const DrawInput inputs[] = {{"x", x}};
      draw(
          context_, program, ranges, inputs,
          [&] {
            program.set("u_count", static_cast<int>(count));
            program.set("u_chunk", static_cast<int>(chunk));
          },
          kStatsLinesPerFragment * chunk);
    }
    const Program& program = context_.programs().get(
        "dynamic_quantize_params", "", "", std::string(kDivide) + kDynamicParams + kElementMain);
    const DrawInput inputs[] = {{"ranges", &ranges}};
    int which = 0;
    for (TextureTensor* out : {&scale, &zero_point}) {
      draw(
          context_, program, *out, inputs,
          [&] {
            program.set("u_chunks", static_cast<int>(chunks));
            program.set("u_which", which);
          },
          chunks + 4 * 80);
      ++which;
    }
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

bool is_float8(DataType t) {
  return t == DataType::Float8E4M3FN || t == DataType::Float8E4M3FNUZ ||
         t == DataType::Float8E5M2 || t == DataType::Float8E5M2FNUZ;
}

// The quantized types the kernel takes: the integers of 16 bits or fewer and the float8 types
// (float4e2m1 has no rounding draw).
bool is_quantized_texel_type(DataType t) {
  IntRange range;
  return is_float8(t) || (quantized_int_range(t, range) && t != DataType::Int32 &&
                          t != DataType::UInt32 && t != DataType::Int64 && t != DataType::UInt64);
}

// The parameters' layout for x and the scale's shape, with the zero point's shape (nullptr when
// absent) fitting the scale; nullopt with `why` otherwise (the CPU kernel reports it) or when x
// exceeds 32-bit indexing.
std::optional<QuantDraw> plan(const QuantAttrs& a, const Shape& x, const Shape& scale,
                              const Shape* zero_point, std::string& why) {
  const std::optional<QuantParamLayout> l =
      quant_param_layout(x, scale, a.axis, a.block_size, "scale", why);
  if (!l) return std::nullopt;
  if (zero_point && *zero_point != scale && zero_point->element_count() != 1) {
    why = "a zero point of another shape than the scale's";
    return std::nullopt;
  }
  if (x.element_count() > kIndexLimit) {
    why = "x beyond 32-bit indexing";
    return std::nullopt;
  }
  QuantDraw d;
  d.layout = *l;
  d.scalar_zero_point = !zero_point || zero_point->element_count() == 1;
  return d;
}

// With the shapes fixed at load time, whether the kernel covers them (else `reason` says why).
bool static_shapes_covered(const DevicePlacementQuery& q, const QuantAttrs& attrs,
                           std::string& reason) {
  const Shape *x = static_input_shape(q, 0), *scale = static_input_shape(q, 1),
              *zero_point = static_input_shape(q, 2);
  if (!x || !scale || (q.info.has_input(2) && !zero_point)) return true;  // decided per run
  return plan(attrs, *x, *scale, zero_point, reason).has_value();
}

QuantDraw planned(OpRecorder& r, const QuantAttrs& attrs) {
  std::string why;
  const std::optional<QuantDraw> d =
      plan(attrs, r.shape(0), r.shape(1), r.has_input(2) ? &r.shape(2) : nullptr, why);
  if (!d) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, why);
  return *d;
}

// A float8 quantization has no offset: the CPU kernel reports a zero point other than 0, so a
// nonzero one (or one computed on the GPU, which is never read back) runs there.
void expect_zero_float8_offset(OpRecorder& r) {
  if (!r.has_input(2)) return;
  const Tensor& zp = r.input(2);
  if (zp.impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues, "a float8 zero point computed on the GPU");
  for (float v : to_texel_values(zp)) {
    if (v != 0.0f)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "a float8 zero point other than 0; the CPU kernel reports it");
  }
}

RecordFn quantize(QuantAttrs attrs, DataType out) {
  return [=](OpRecorder& r) {
    QuantDraw d = planned(r, attrs);
    using Mode = QuantizeLinear::Mode;
    const TextureTensor& x = r.texture(0);
    const TextureTensor& scale = r.texture(1);
    if (is_float8(out)) {
      expect_zero_float8_offset(r);
      TextureTensor quotient = r.temporary(x.element_count());
      r.kernel<QuantizeLinear>().record(Mode::QuantizeQuotient, d, x, scale, nullptr, quotient);
      TextureTensor& y = r.output(0, r.shape(0), out);
      if (y.element_count() > 0)
        r.kernel<Convert>().record(*convert_to(out), quotient, y, attrs.saturate);
      return;
    }
    quantized_int_range(out, d.range);
    const TextureTensor* zero_point = r.has_input(2) ? &r.texture(2) : nullptr;
    r.kernel<QuantizeLinear>().record(Mode::QuantizeToInt, d, x, scale, zero_point,
                                      r.output(0, r.shape(0), out));
  };
}

RecordFn dequantize(QuantAttrs attrs, DataType out) {
  return [=](OpRecorder& r) {
    const QuantDraw d = planned(r, attrs);
    const bool float8 = is_float8(r.input(0).dtype());
    if (float8) expect_zero_float8_offset(r);
    const TextureTensor& x = r.texture(0);
    const TextureTensor& scale = r.texture(1);
    // Subtracting a float8 zero point (+0) would turn -0 into +0: the CPU leaves it out too.
    const TextureTensor* zero_point = r.has_input(2) && !float8 ? &r.texture(2) : nullptr;
    using Mode = QuantizeLinear::Mode;
    if (out == DataType::Float32) {
      r.kernel<QuantizeLinear>().record(Mode::Dequantize, d, x, scale, zero_point,
                                        r.output(0, r.shape(0)));
      return;
    }
    // float16 and bfloat16: the float32 product rounded once to the output type.
    TextureTensor product = r.temporary(x.element_count());
    r.kernel<QuantizeLinear>().record(Mode::Dequantize, d, x, scale, zero_point, product);
    TextureTensor& y = r.output(0, r.shape(0), out);
    if (y.element_count() > 0) r.kernel<Convert>().record(*convert_to(out), product, y);
  };
}

OpFactory quantize_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason, 0, 2)) return nullptr;
    const QuantAttrs attrs = parse_quant_attrs(q.info, true);
    if (attrs.precision != DataType::Undefined && attrs.precision != DataType::Float32) {
      reason = "no GPU kernel dividing in " + type_name(attrs.precision);
      return nullptr;
    }
    const DataType out = quantize_output_type(
        attrs.output_dtype, q.info.has_input(2) ? std::optional(q.input_types[2]) : std::nullopt);
    if (!is_quantized_texel_type(out)) {
      reason = "no GPU kernel quantizing to " + type_name(out);
      return nullptr;
    }
    if (!static_shapes_covered(q, attrs, reason)) return nullptr;
    return quantize(attrs, out);
  };
}

OpFactory dequantize_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    static constexpr DataType kScales[] = {DataType::Float32, DataType::Float16,
                                           DataType::BFloat16};
    if (input_outside_dtypes(q, kScales, 1, 1)) {
      reason = "scales of " + type_name(q.input_types[1]) + " stay on the CPU";
      return nullptr;
    }
    const QuantAttrs attrs = parse_quant_attrs(q.info, false);
    const DataType in = q.input_types[0];
    if (!is_quantized_texel_type(in) || (q.info.has_input(2) && q.input_types[2] != in)) {
      reason = "no GPU kernel dequantizing " + type_name(in);
      return nullptr;
    }
    // The output type: output_dtype, else the scale's.
    const DataType out =
        attrs.output_dtype == DataType::Undefined ? q.input_types[1] : attrs.output_dtype;
    if (out != DataType::Float32 && out != DataType::Float16 && out != DataType::BFloat16) {
      reason = "no GPU kernel dequantizing to " + type_name(out);
      return nullptr;
    }
    if (!static_shapes_covered(q, attrs, reason)) return nullptr;
    return dequantize(attrs, out);
  };
}

RecordFn dynamic_quantize() {
  return [](OpRecorder& r) {
    const TextureTensor* x = r.shape(0).element_count() > 0 ? &r.texture(0) : nullptr;
    if (r.shape(0).element_count() > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "x beyond 32-bit indexing");
    TextureTensor& scale = r.output(1, Shape{});
    TextureTensor& zero_point = r.output(2, Shape{}, DataType::UInt8);
    TextureTensor& y = r.output(0, r.shape(0), DataType::UInt8);
    r.kernel<QuantizeLinear>().record_dynamic_params(x, scale, zero_point);
    if (!x) return;
    QuantDraw d;
    d.range = {0, 255};  // per tensor: the default layout
    r.kernel<QuantizeLinear>().record(QuantizeLinear::Mode::QuantizeToInt, d, *x, scale,
                                      &zero_point, y);
  };
}

OpFactory dynamic_quantize_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    return dynamic_quantize();
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(quantize_linear);
void register_quantize_linear_ops(OpTable& t) {
  t.add("QuantizeLinear", quantize_factory());
  t.add("DequantizeLinear", dequantize_factory());
  t.add("DynamicQuantizeLinear", dynamic_quantize_factory());
}

}  // namespace kiln::gpu_pixel
