#include "opdefs/causal_conv_with_state.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln::causal_conv {
namespace {

bool is_float(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16 ||
         t == DataType::Float64;
}

}  // namespace

Attributes parse_attributes(const NodeInfo& info) {
  const std::string activation = info.attr_string("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish") {
    info.fail("activation must be none, silu or swish, got \"" + activation + "\"");
  }
  return {.silu = activation != "none"};
}

Dims check_inputs(const NodeInputs& ctx) {
  const Tensor &x = ctx.input(kInput), &w = ctx.input(kWeight);
  if (!is_float(x.dtype())) {
    ctx.fail("input must be float16, bfloat16, float32 or float64, got " +
             std::string(dtype_name(x.dtype())));
  }
  if (w.dtype() != x.dtype()) ctx.fail("weight must have the input's element type");
  if (x.rank() != 3)
    ctx.fail("input must be [batch, channels, length], got " + x.shape().to_string());
  const Dims d{x.shape()[0], x.shape()[1], x.shape()[2], w.rank() == 3 ? w.shape()[2] : 0};
  if (w.shape() != Shape{d.channels, 1, d.kernel} || d.kernel < 1) {
    ctx.fail("weight must be [" + std::to_string(d.channels) + ", 1, kernel_size >= 1], got " +
             w.shape().to_string());
  }
  if (ctx.has_input(kBias)) {
    const Tensor& bias = ctx.input(kBias);
    if (bias.dtype() != x.dtype() || bias.shape() != Shape{d.channels}) {
      ctx.fail("bias must be [" + std::to_string(d.channels) + "] of the input's element type");
    }
  }
  if (ctx.has_input(kPastState)) {
    const Tensor& past = ctx.input(kPastState);
    if (past.dtype() != x.dtype() || past.shape() != d.state_shape()) {
      ctx.fail("past_state must be " + d.state_shape().to_string() +
               " of the input's element type, got " + past.shape().to_string());
    }
  }
  return d;
}

}  // namespace kiln::causal_conv
