// ConvInteger and QLinearConv: convolutions of quantized (int8/uint8) images and weights with
// exact integer accumulation.
//
//   ConvInteger  y = conv(x - x_zero_point, w - w_zero_point)                       (int32)
//   QLinearConv  y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B)
//                                             * (x_scale * w_scale / y_scale)) + y_zp)
//
// Padding is zero after the zero point is subtracted, i.e. the zero point before. The weights'
// zero point and scale are per tensor or per output channel. The products run in
// backends/cpu/conv_int.h with exact, wrapping int32 accumulation.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/cpu/conv_int.h"
#include "kernels/op_registry.h"
#include "opdefs/window.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

// The conv loop nest keeps per-axis state in fixed arrays.
constexpr size_t kMaxSpatialRank = 12;

struct IntConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
};

IntConvAttrs parse_attrs(const NodeInfo& info) {
  IntConvAttrs a;
  a.window = parse_window_attrs(info);
  a.group = info.attr_int("group", 1);
  if (a.group < 1) info.fail("group must be >= 1, not " + std::to_string(a.group));
  return a;
}

bool is_8bit(DataType t) { return t == DataType::Int8 || t == DataType::UInt8; }

Shape spatial(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

// Checks X and W against each other and the attributes; the problem and Y's shape.
ConvProblem plan(const OpContext& ctx, const IntConvAttrs& at, const Tensor& x, const Tensor& w,
                 Shape& y_shape) {
  if (!is_8bit(x.dtype()) || !is_8bit(w.dtype())) ctx.fail("x and w must be int8 or uint8");
  if (x.rank() < 3)
    ctx.fail("x must have rank >= 3 (N, C, spatial...), got " + x.shape().to_string());
  if (x.rank() - 2 > kMaxSpatialRank) ctx.fail("x has too many spatial axes");
  if (w.rank() != x.rank()) {
    ctx.fail("w " + w.shape().to_string() + " must have the rank of x " + x.shape().to_string());
  }
  const int64_t channels = x.shape()[1], out_channels = w.shape()[0];
  // A huge group overflows w's channels times group (and could wrap onto x's channel count).
  int64_t grouped = 0;
  if (channels % at.group != 0 || out_channels % at.group != 0 ||
      __builtin_mul_overflow(w.shape()[1], at.group, &grouped) || grouped != channels) {
    ctx.fail("x " + x.shape().to_string() + " and w " + w.shape().to_string() +
             " do not fit group " + std::to_string(at.group));
  }
  const Shape kernel = spatial(w.shape());
  if (!at.window.kernel_shape.empty() && Shape(at.window.kernel_shape) != kernel) {
    ctx.fail("kernel_shape " + Shape(at.window.kernel_shape).to_string() + " does not match w " +
             w.shape().to_string());
  }
  ConvProblem p;
  p.geometry = resolve_window(at.window, spatial(x.shape()), kernel, ctx.node());
  p.batch = x.shape()[0];
  p.in_channels = channels;
  p.out_channels = out_channels;
  p.group = at.group;
  y_shape = Shape{p.batch, out_channels};
  for (int64_t d : p.geometry.out) y_shape.push_back(d);
  return p;
}

// An optional zero point: one value (`per_channel` 0) or one per output channel; 0 if absent.
std::vector<int32_t> zero_point(const OpContext& ctx, size_t index, DataType operand,
                                int64_t per_channel, const char* what) {
  if (!ctx.has_input(index)) return {0};
  const Tensor& z = ctx.input(index);
  if (z.dtype() != operand) {
    ctx.fail(std::string(what) + " is " + std::string(dtype_name(z.dtype())) +
             " but its operand is " + std::string(dtype_name(operand)));
  }
  // per_channel 0 asks for exactly one value: an empty [0] tensor must not pass as "one per
  // channel" (the caller reads element 0).
  if (z.element_count() != 1 &&
      (per_channel == 0 || z.rank() != 1 || z.element_count() != per_channel)) {
    ctx.fail(std::string(what) + " of shape " + z.shape().to_string() +
             (per_channel > 0 ? " is neither a single value nor one per output channel"
                              : " must be a single value"));
  }
  std::vector<int32_t> out;
  for (double v : values_as_double(z)) out.push_back(static_cast<int32_t>(v));
  return out;
}

// y = conv(x - zx, w - zw[m]) + bias[m] in int32 (wrapping). The shifted operands are
// differences of two values of one 8-bit type, so they fit int16.
void integer_conv(const ConvProblem& p, const Tensor& x, const Tensor& w, int32_t zx,
                  const std::vector<int32_t>& zw, const int32_t* bias, int32_t* y) {
  std::vector<int16_t> xs(static_cast<size_t>(x.element_count()));
  std::vector<int16_t> ws(static_cast<size_t>(w.element_count()));
  auto shift = [](const Tensor& t, int16_t* out, auto&& zero_of) {
    if (t.dtype() == DataType::Int8) {
      const int8_t* s = t.data<int8_t>();
      for (int64_t i = 0; i < t.element_count(); ++i) {
        out[i] = static_cast<int16_t>(int32_t{s[i]} - zero_of(i));
      }
    } else {
      const uint8_t* u = t.data<uint8_t>();
      for (int64_t i = 0; i < t.element_count(); ++i) {
        out[i] = static_cast<int16_t>(int32_t{u[i]} - zero_of(i));
      }
    }
  };
  shift(x, xs.data(), [&](int64_t) { return zx; });
  const int64_t per_channel =
      std::max<int64_t>(1, p.out_channels == 0 ? 1 : w.element_count() / p.out_channels);
  shift(w, ws.data(), [&](int64_t i) { return zw.size() == 1 ? zw[0] : zw[i / per_channel]; });
  cpu::conv_int32(p, xs.data(), ws.data(), bias, y);
}

CpuKernel make_conv_integer(const NodeInfo& info) {
  const IntConvAttrs at = parse_attrs(info);
  return [at](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    Shape y_shape;
    const ConvProblem p = plan(ctx, at, x, w, y_shape);
    const std::vector<int32_t> zx = zero_point(ctx, 2, x.dtype(), 0, "x_zero_point");
    const std::vector<int32_t> zw = zero_point(ctx, 3, w.dtype(), p.out_channels, "w_zero_point");
    Tensor& y = ctx.allocate_output(0, DataType::Int32, y_shape);
    if (y.element_count() == 0) return;
    integer_conv(p, x, w, zx[0], zw, nullptr, y.mutable_data<int32_t>());
  };
}

enum QInput : size_t { kX, kXScale, kXZero, kW, kWScale, kWZero, kYScale, kYZero, kBias };

CpuKernel make_qlinear_conv(const NodeInfo& info) {
  const IntConvAttrs at = parse_attrs(info);
  return [at](OpContext& ctx) {
    for (size_t i : {kX, kXScale, kW, kWScale, kYScale}) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is required");
    }
    const Tensor& x = ctx.input(kX);
    const Tensor& w = ctx.input(kW);
    Shape y_shape;
    const ConvProblem p = plan(ctx, at, x, w, y_shape);
    const int64_t M = p.out_channels;
    const std::vector<int32_t> zx = zero_point(ctx, kXZero, x.dtype(), 0, "x_zero_point");
    const std::vector<int32_t> zw = zero_point(ctx, kWZero, w.dtype(), M, "w_zero_point");
    const DataType out_type = ctx.has_input(kYZero) ? ctx.input(kYZero).dtype() : x.dtype();
    if (!is_8bit(out_type)) ctx.fail("y_zero_point must be int8 or uint8");
    const double zy =
        ctx.has_input(kYZero) ? zero_point(ctx, kYZero, out_type, 0, "y_zero_point")[0] : 0.0;
    const int32_t* bias = nullptr;
    if (ctx.has_input(kBias)) {
      const Tensor& b = ctx.input(kBias);
      if (b.dtype() != DataType::Int32 || b.rank() != 1 || b.shape()[0] != M) {
        ctx.fail("B must be an int32 vector of " + std::to_string(M) + " values, got " +
                 std::string(dtype_name(b.dtype())) + " " + b.shape().to_string());
      }
      bias = b.data<int32_t>();
    }
    const Tensor& w_scale = ctx.input(kWScale);
    for (size_t i : {kXScale, kWScale, kYScale}) {
      if (ctx.input(i).dtype() != DataType::Float32) ctx.fail("scales must be float32");
    }
    if (w_scale.element_count() != 1 && (w_scale.rank() != 1 || w_scale.element_count() != M)) {
      ctx.fail("w_scale of shape " + w_scale.shape().to_string() +
               " is neither a single value nor one per output channel");
    }
    const double sx = scalar_value(ctx, ctx.input(kXScale), "x_scale");
    const double sy = scalar_value(ctx, ctx.input(kYScale), "y_scale");
    // The requantization multiplier per output channel, rounded to float32 at each step.
    std::vector<double> multiplier;
    for (double sw : values_as_double(w_scale)) {
      const double s = round_to_precision(sx * sw, DataType::Float32);
      multiplier.push_back(round_to_precision(s / sy, DataType::Float32));
    }

    Tensor& y = ctx.allocate_output(0, out_type, y_shape);
    const int64_t count = y.element_count();
    if (count == 0) return;
    std::vector<int32_t> acc(static_cast<size_t>(count));
    integer_conv(p, x, w, zx[0], zw, bias, acc.data());
    const int64_t plane = count / (p.batch * M);
    requantize(
        acc.data(),
        [&](int64_t i) {
          return multiplier.size() == 1 ? multiplier[0] : multiplier[(i / plane) % M];
        },
        zy, y);
  };
}

}  // namespace

KILN_CPU_OPS(conv_integer);
void register_conv_integer_ops(OpRegistry& registry) {
  registry.add("ConvInteger", make_conv_integer);
  registry.add("QLinearConv", make_qlinear_conv);
}

}  // namespace kiln
