// ONNX Runtime's element-wise ops that add a bias (and a residual) before their function, as its
// transformer optimizer fuses them (com.microsoft):
//
//   FastGelu(X, bias?)    gelu_tanh(X + bias)
//   BiasGelu(A, B)        gelu_exact(A + B)
//   BiasAdd(X, bias, skip) X + bias + skip
//
// bias is 1-D over X's last dimension; skip has X's shape. The sum is formed in the compute
// type (float for the 16-bit floats) and rounded once, at the output.
#include <string>

#include "backends/cpu/elementwise_map.h"
#include "backends/cpu/gelu.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

enum class BiasedOp { FastGelu, BiasGelu, BiasAdd };

struct Operands {
  const Tensor* bias = nullptr;
  const Tensor* skip = nullptr;
};

// bias must be [X's last dim], skip X's shape, both of X's type.
Operands check_operands(const OpContext& ctx, const Tensor& x, size_t bias_index,
                        size_t skip_index) {
  Operands o;
  if (x.rank() == 0) ctx.fail("input must have at least one dimension, got a scalar");
  const int64_t width = x.shape().back();
  if (ctx.has_input(bias_index)) {
    o.bias = &ctx.input(bias_index);
    if (o.bias->dtype() != x.dtype()) {
      ctx.fail("bias must have the input's element type, got " + o.bias->to_string(0));
    }
    if (o.bias->shape() != Shape{width}) {
      ctx.fail("bias must be 1-D of the input's last dimension " + std::to_string(width) +
               ", got shape " + o.bias->shape().to_string());
    }
  }
  if (skip_index != 0) {
    o.skip = &ctx.input(skip_index);
    if (o.skip->dtype() != x.dtype() || o.skip->shape() != x.shape()) {
      ctx.fail("skip must have the input's type and shape " + x.to_string(0) + ", got " +
               o.skip->to_string(0));
    }
  }
  return o;
}

template <class T, class F>
void run_biased(const Tensor& x, const Operands& o, Tensor& y, const F& f) {
  using C = cpu::compute_t<T>;
  const int64_t n = x.element_count();
  const int64_t width = x.shape().back();
  const T* in = x.data<T>();
  const T* bias = o.bias ? o.bias->data<T>() : nullptr;
  const T* skip = o.skip ? o.skip->data<T>() : nullptr;
  T* out = y.mutable_data<T>();
  cpu::split_range(n, cpu::kCostlyGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      C v = static_cast<C>(in[i]);
      if (bias) v += static_cast<C>(bias[i % width]);
      if (skip) v += static_cast<C>(skip[i]);
      out[i] = static_cast<T>(f(v));
    }
  });
}

CpuKernel make_biased(const NodeInfo& info, BiasedOp op) {
  const size_t needed = op == BiasedOp::FastGelu ? 1 : op == BiasedOp::BiasGelu ? 2 : 3;
  if (info.num_inputs() < needed) {
    info.fail("expects " + std::to_string(needed) + " inputs, got " +
              std::to_string(info.num_inputs()));
  }
  return [op](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const size_t skip_index = op == BiasedOp::BiasAdd ? 2 : 0;
    if (op != BiasedOp::FastGelu && !ctx.has_input(1)) ctx.fail("input 1 (bias) is required");
    const Operands o = check_operands(ctx, x, 1, skip_index);
    visit_float(ctx, x.dtype(), "input", [&]<class T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      switch (op) {
        case BiasedOp::FastGelu:
          return run_biased<T>(x, o, y, [](auto v) { return gelu_tanh(v); });
        case BiasedOp::BiasGelu:
          return run_biased<T>(x, o, y, [](auto v) { return gelu_exact(v); });
        case BiasedOp::BiasAdd:
          return run_biased<T>(x, o, y, [](auto v) { return v; });
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(bias_activations);
void register_bias_activations_ops(OpRegistry& registry) {
  for (auto [name, biased] :
       {std::pair{"FastGelu", BiasedOp::FastGelu}, std::pair{"BiasGelu", BiasedOp::BiasGelu},
        std::pair{"BiasAdd", BiasedOp::BiasAdd}}) {
    // A copy to capture: clang rejects capturing a structured binding before C++20's P1091.
    const BiasedOp op = biased;
    registry.add(ir::kMicrosoftDomain, name,
                 [op](const NodeInfo& info) { return make_biased(info, op); });
  }
}

}  // namespace kiln
