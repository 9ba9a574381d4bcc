// ConvInteger and QLinearConv: convolutions of quantized (int8/uint8) images and weights with
// exact integer accumulation.
//
//   ConvInteger  y = conv(x - x_zero_point, w - w_zero_point)                       (int32)
//   QLinearConv  y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B)
//                                             * (x_scale * w_scale / y_scale)) + y_zp)
//
// Padding is zero after the zero point is subtracted, i.e. the zero point before. The weights'
// zero point and scale are per tensor or per output channel. The operands' checks, zero points and
// multipliers are the definition's (opdefs/conv_integer.h); the products run in
// backends/cpu/conv_int.h with exact, wrapping int32 accumulation.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/cpu/conv_int.h"
#include "kernels/op_registry.h"
#include "opdefs/conv_integer.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

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
  const ConvAttrs at = parse_conv_attrs(info, false);
  return [at](OpContext& ctx) {
    const IntConvParams q = resolve_conv_integer(NodeInputs{ctx.node(), ctx.inputs()}, at);
    Tensor& y = ctx.allocate_output(0, DataType::Int32, q.y_shape);
    if (y.element_count() == 0) return;
    integer_conv(q.problem, ctx.input(0), ctx.input(1), q.x_zero, q.w_zero, nullptr,
                 y.mutable_data<int32_t>());
  };
}

CpuKernel make_qlinear_conv(const NodeInfo& info) {
  const ConvAttrs at = parse_conv_attrs(info, false);
  return [at](OpContext& ctx) {
    const IntConvParams q = resolve_qlinear_conv(NodeInputs{ctx.node(), ctx.inputs()}, at);
    const int32_t* bias = q.has_bias ? ctx.input(kQConvBias).data<int32_t>() : nullptr;
    Tensor& y = ctx.allocate_output(0, q.out_type, q.y_shape);
    const int64_t count = y.element_count();
    if (count == 0) return;
    std::vector<int32_t> acc(static_cast<size_t>(count));
    integer_conv(q.problem, ctx.input(kQConvX), ctx.input(kQConvW), q.x_zero, q.w_zero, bias,
                 acc.data());
    const int64_t M = q.problem.out_channels;
    const int64_t plane = count / (q.problem.batch * M);
    requantize(
        acc.data(),
        [&](int64_t i) {
          return q.multiplier.size() == 1 ? q.multiplier[0] : q.multiplier[(i / plane) % M];
        },
        q.y_zero, y);
  };
}

}  // namespace

KILN_CPU_OPS(conv_integer);
void register_conv_integer_ops(OpRegistry& registry) {
  registry.add("ConvInteger", make_conv_integer);
  registry.add("QLinearConv", make_qlinear_conv);
}

}  // namespace kiln
