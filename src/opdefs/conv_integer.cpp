#include "opdefs/conv_integer.h"

#include <string>

#include "opdefs/quantize_linear.h"

namespace kiln {
namespace {

bool is_8bit(DataType t) { return t == DataType::Int8 || t == DataType::UInt8; }

Shape spatial(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

// Checks x and w against each other and the attributes; the problem and y's shape.
void plan(const NodeInputs& in, const ConvAttrs& at, const Tensor& x, const Tensor& w,
          IntConvParams& q) {
  if (!is_8bit(x.dtype()) || !is_8bit(w.dtype())) in.fail("x and w must be int8 or uint8");
  if (x.rank() < 3)
    in.fail("x must have rank >= 3 (N, C, spatial...), got " + x.shape().to_string());
  if (x.rank() - 2 > kIntConvMaxSpatialRank) in.fail("x has too many spatial axes");
  if (w.rank() != x.rank()) {
    in.fail("w " + w.shape().to_string() + " must have the rank of x " + x.shape().to_string());
  }
  const int64_t channels = x.shape()[1], out_channels = w.shape()[0];
  // A huge group overflows w's channels times group (and could wrap onto x's channel count).
  int64_t grouped = 0;
  if (channels % at.group != 0 || out_channels % at.group != 0 ||
      __builtin_mul_overflow(w.shape()[1], at.group, &grouped) || grouped != channels) {
    in.fail("x " + x.shape().to_string() + " and w " + w.shape().to_string() +
            " do not fit group " + std::to_string(at.group));
  }
  const Shape kernel = spatial(w.shape());
  if (!at.window.kernel_shape.empty() && Shape(at.window.kernel_shape) != kernel) {
    in.fail("kernel_shape " + Shape(at.window.kernel_shape).to_string() + " does not match w " +
            w.shape().to_string());
  }
  ConvProblem& p = q.problem;
  p.geometry = resolve_window(at.window, spatial(x.shape()), kernel, in.node);
  p.batch = x.shape()[0];
  p.in_channels = channels;
  p.out_channels = out_channels;
  p.group = at.group;
  q.y_shape = Shape{p.batch, out_channels};
  for (int64_t d : p.geometry.out) q.y_shape.push_back(d);
}

// An optional zero point: one value (`per_channel` 0) or one per output channel; 0 if absent.
std::vector<int32_t> zero_point(const NodeInputs& in, size_t index, DataType operand,
                                int64_t per_channel, const char* what) {
  if (!in.has_input(index)) return {0};
  const Tensor& z = in.inputs[index];
  if (z.dtype() != operand) {
    in.fail(std::string(what) + " is " + std::string(dtype_name(z.dtype())) +
            " but its operand is " + std::string(dtype_name(operand)));
  }
  // per_channel 0 asks for exactly one value: an empty [0] tensor must not pass as "one per
  // channel" (the caller reads element 0).
  if (z.element_count() != 1 &&
      (per_channel == 0 || z.rank() != 1 || z.element_count() != per_channel)) {
    in.fail(std::string(what) + " of shape " + z.shape().to_string() +
            (per_channel > 0 ? " is neither a single value nor one per output channel"
                             : " must be a single value"));
  }
  std::vector<int32_t> out;
  for (int64_t i = 0; i < z.element_count(); ++i) {
    out.push_back(operand == DataType::Int8 ? int32_t{z.data<int8_t>()[i]}
                                            : int32_t{z.data<uint8_t>()[i]});
  }
  return out;
}

}  // namespace

IntConvParams resolve_conv_integer(const NodeInputs& inputs, const ConvAttrs& attrs) {
  const Tensor& x = inputs.input(0);
  const Tensor& w = inputs.input(1);
  IntConvParams q;
  plan(inputs, attrs, x, w, q);
  q.x_zero = zero_point(inputs, 2, x.dtype(), 0, "x_zero_point")[0];
  q.w_zero = zero_point(inputs, 3, w.dtype(), q.problem.out_channels, "w_zero_point");
  return q;
}

IntConvParams resolve_qlinear_conv(const NodeInputs& inputs, const ConvAttrs& attrs) {
  for (size_t i : {kQConvX, kQConvXScale, kQConvW, kQConvWScale, kQConvYScale}) {
    if (!inputs.has_input(i)) inputs.fail("input " + std::to_string(i) + " is required");
  }
  const Tensor& x = inputs.inputs[kQConvX];
  const Tensor& w = inputs.inputs[kQConvW];
  IntConvParams q;
  plan(inputs, attrs, x, w, q);
  const int64_t M = q.problem.out_channels;
  q.x_zero = zero_point(inputs, kQConvXZero, x.dtype(), 0, "x_zero_point")[0];
  q.w_zero = zero_point(inputs, kQConvWZero, w.dtype(), M, "w_zero_point");
  q.out_type = inputs.has_input(kQConvYZero) ? inputs.inputs[kQConvYZero].dtype() : x.dtype();
  if (!is_8bit(q.out_type)) inputs.fail("y_zero_point must be int8 or uint8");
  q.y_zero = inputs.has_input(kQConvYZero)
                 ? zero_point(inputs, kQConvYZero, q.out_type, 0, "y_zero_point")[0]
                 : 0;
  if (inputs.has_input(kQConvBias)) {
    const Tensor& b = inputs.inputs[kQConvBias];
    if (b.dtype() != DataType::Int32 || b.rank() != 1 || b.shape()[0] != M) {
      inputs.fail("B must be an int32 vector of " + std::to_string(M) + " values, got " +
                  std::string(dtype_name(b.dtype())) + " " + b.shape().to_string());
    }
    q.has_bias = true;
  }
  for (size_t i : {kQConvXScale, kQConvWScale, kQConvYScale}) {
    if (inputs.inputs[i].dtype() != DataType::Float32) inputs.fail("scales must be float32");
  }
  const Tensor& w_scale = inputs.inputs[kQConvWScale];
  if (w_scale.element_count() != 1 && (w_scale.rank() != 1 || w_scale.element_count() != M)) {
    inputs.fail("w_scale of shape " + w_scale.shape().to_string() +
                " is neither a single value nor one per output channel");
  }
  auto single = [&](size_t i, const char* what) -> double {
    const Tensor& t = inputs.inputs[i];
    if (t.element_count() != 1) {
      inputs.fail(std::string(what) + " must hold a single value, got shape " +
                  t.shape().to_string());
    }
    return t.data<float>()[0];
  };
  const double sx = single(kQConvXScale, "x_scale");
  const double sy = single(kQConvYScale, "y_scale");
  // The requantization multiplier per output channel, rounded to float32 at each step.
  for (int64_t i = 0; i < w_scale.element_count(); ++i) {
    const double s = round_to_precision(sx * w_scale.data<float>()[i], DataType::Float32);
    q.multiplier.push_back(round_to_precision(s / sy, DataType::Float32));
  }
  return q;
}

}  // namespace kiln
