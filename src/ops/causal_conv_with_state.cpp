// CausalConvWithState (opset 27): the depthwise causal 1-D convolution of state-space and
// hybrid models, streamed: each channel is convolved with its own kernel over the carried
// state followed by the new input, and the last kernel_size - 1 positions are carried on.
//
//   padded  = concat(past_state, input) along time      (past_state defaults to zeros)
//   output[b, c, t] = act(bias[c] + sum_k weight[c, 0, k] * padded[b, c, t + k])
//   present_state   = padded[b, c, len - (kernel_size - 1) :]
//
// input [batch, channels, length], weight [channels, 1, kernel_size], bias [channels],
// past_state [batch, channels, kernel_size - 1]; act is none or silu (alias swish).
#include <cmath>
#include <string>
#include <type_traits>

#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/causal_conv_with_state.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

template <class T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

using causal_conv::Dims;

// One (batch, channel) row: the padded signal is read from past and input without building it.
template <class T>
void convolve_row(const Dims& d, bool silu, const T* input, const T* weight, const T* bias,
                  const T* past, T* out, T* present) {
  using C = Compute<T>;
  const int64_t carry = d.kernel - 1;
  auto padded = [&](int64_t i) -> C {
    return static_cast<C>(i < carry ? (past ? past[i] : T(0.0f)) : input[i - carry]);
  };
  for (int64_t t = 0; t < d.length; ++t) {
    C acc = bias ? static_cast<C>(*bias) : C(0);
    for (int64_t k = 0; k < d.kernel; ++k) acc += static_cast<C>(weight[k]) * padded(t + k);
    if (silu) acc = acc / (C(1) + std::exp(-acc));
    out[t] = from_double<T>(acc);
  }
  if (present) {
    for (int64_t i = 0; i < carry; ++i) present[i] = from_double<T>(padded(d.length + i));
  }
}

void run_causal_conv(OpContext& ctx, bool silu) {
  const Dims d = causal_conv::check_inputs({ctx.node(), ctx.inputs()});
  const Tensor &x = ctx.input(causal_conv::kInput), &w = ctx.input(causal_conv::kWeight);
  const Tensor* bias = ctx.has_input(causal_conv::kBias) ? &ctx.input(causal_conv::kBias) : nullptr;
  const Tensor* past =
      ctx.has_input(causal_conv::kPastState) ? &ctx.input(causal_conv::kPastState) : nullptr;
  const Shape state_shape = d.state_shape();
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  Tensor* present = ctx.wants_output(1) ? &ctx.allocate_output(1, x.dtype(), state_shape) : nullptr;
  const int64_t rows = d.batch * d.channels;
  const int64_t carry = d.kernel - 1;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      const T* xp = x.data<T>();
      const T* wp = w.data<T>();
      const T* bp = bias ? bias->data<T>() : nullptr;
      const T* pp = past ? past->data<T>() : nullptr;
      T* yp = y.mutable_data<T>();
      T* sp = present ? present->mutable_data<T>() : nullptr;
      const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, d.length * d.kernel));
      parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t c = r % d.channels;
          convolve_row(d, silu, xp + r * d.length, wp + c * d.kernel, bp ? bp + c : nullptr,
                       pp ? pp + r * carry : nullptr, yp + r * d.length,
                       sp ? sp + r * carry : nullptr);
        }
      });
    }
  });
}

CpuKernel make_causal_conv_with_state(const NodeInfo& info) {
  const bool silu = causal_conv::parse_attributes(info).silu;
  return [=](OpContext& ctx) { run_causal_conv(ctx, silu); };
}

}  // namespace

KILN_CPU_OPS(causal_conv_with_state);
void register_causal_conv_with_state_ops(OpRegistry& registry) {
  registry.add("CausalConvWithState", make_causal_conv_with_state);
}

}  // namespace kiln
