// Unary math: Abs, Neg, Reciprocal, Floor, Ceil, Round, Sqrt, Exp, Log, the trigonometric and
// hyperbolic functions, Erf, Sign, IsNaN, IsInf, Not, BitwiseNot.
#include <cmath>
#include <type_traits>

#include "backends/cpu/unary_kernel.h"
#include "backends/cpu/vector_math.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/wrapping_int.h"

namespace kiln {

namespace {

using cpu::Accepts;
using cpu::add_unary;
using cpu::kCheapGrain;
using cpu::kCostlyGrain;

// Output bool[shape of x] with out[i] = pred(x[i] as float or double), for the float types.
template <class Pred>
CpuKernel float_predicate_kernel(Pred pred) {
  return [pred](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        Tensor& y = ctx.allocate_output(0, DataType::Bool, x.shape());
        using C = cpu::compute_t<T>;
        cpu::map_elements(x.data<T>(), y.mutable_data<bool>(), x.element_count(), kCheapGrain,
                          [&pred](T v) { return pred(static_cast<C>(v)); });
      } else {
        cpu::fail_unsupported_type(ctx, x.dtype());
      }
    });
  };
}

void add_math_ops(OpRegistry& r) {
  // Integers (any signedness): |x| of the most negative value wraps to itself.
  add_unary<Accepts::FloatsAndInts>(
      r, "Abs",
      [](auto x) {
        using C = decltype(x);
        if constexpr (std::is_unsigned_v<C>) {
          return x;
        } else if constexpr (std::is_integral_v<C>) {
          return x < 0 ? wrapping_neg(x) : x;
        } else {
          return std::fabs(x);
        }
      },
      kCheapGrain);
  add_unary<Accepts::FloatsAndSignedInts>(
      r, "Neg", [](auto x) { return wrapping_neg(x); }, kCheapGrain);
  add_unary<Accepts::FloatsAndInts>(
      r, "Sign",
      [](auto x) {
        using C = decltype(x);
        if constexpr (std::is_floating_point_v<C>) {
          // NaN stays NaN, zeros keep their value.
          return x > 0 ? C(1) : x < 0 ? C(-1) : x;
        } else if constexpr (std::is_unsigned_v<C>) {
          return static_cast<C>(x > 0 ? 1 : 0);
        } else {
          return static_cast<C>(x > 0 ? 1 : (x < 0 ? -1 : 0));
        }
      },
      kCheapGrain);
  add_unary<Accepts::Floats>(
      r, "Reciprocal", [](auto x) { return decltype(x)(1) / x; }, kCheapGrain);
  add_unary<Accepts::Floats>(
      r, "Floor", [](auto x) { return std::floor(x); }, kCheapGrain);
  add_unary<Accepts::Floats>(
      r, "Ceil", [](auto x) { return std::ceil(x); }, kCheapGrain);
  // Halves round to even, as nearbyint does in the default rounding mode.
  add_unary<Accepts::Floats>(
      r, "Round", [](auto x) { return std::nearbyint(x); }, kCheapGrain);
  add_unary<Accepts::Floats>(
      r, "Sqrt", [](auto x) { return std::sqrt(x); }, kCheapGrain);
  add_unary<Accepts::Floats>(
      r, "Exp", [](auto x) { return std::exp(x); }, kCostlyGrain, &cpu::exp_f32);
  add_unary<Accepts::Floats>(
      r, "Log", [](auto x) { return std::log(x); }, kCostlyGrain, &cpu::log_f32);
  add_unary<Accepts::Floats>(r, "Sin", [](auto x) { return std::sin(x); });
  add_unary<Accepts::Floats>(r, "Cos", [](auto x) { return std::cos(x); });
  add_unary<Accepts::Floats>(r, "Tan", [](auto x) { return std::tan(x); });
  add_unary<Accepts::Floats>(r, "Asin", [](auto x) { return std::asin(x); });
  add_unary<Accepts::Floats>(r, "Acos", [](auto x) { return std::acos(x); });
  add_unary<Accepts::Floats>(r, "Atan", [](auto x) { return std::atan(x); });
  add_unary<Accepts::Floats>(r, "Sinh", [](auto x) { return std::sinh(x); });
  add_unary<Accepts::Floats>(r, "Cosh", [](auto x) { return std::cosh(x); });
  add_unary<Accepts::Floats>(r, "Asinh", [](auto x) { return std::asinh(x); });
  add_unary<Accepts::Floats>(r, "Acosh", [](auto x) { return std::acosh(x); });
  add_unary<Accepts::Floats>(r, "Atanh", [](auto x) { return std::atanh(x); });
  // Erf is defined on integers too (opset 9+): computed in double, truncated back.
  add_unary<Accepts::FloatsAndInts>(
      r, "Erf",
      [](auto x) {
        using C = decltype(x);
        if constexpr (std::is_integral_v<C>) {
          return static_cast<C>(std::erf(static_cast<double>(x)));
        } else {
          return std::erf(x);
        }
      },
      kCostlyGrain, &cpu::erf_f32);
}

void add_predicate_and_logic_ops(OpRegistry& r) {
  r.add("IsNaN", [](const NodeInfo&) -> CpuKernel {
    return float_predicate_kernel([](auto x) { return std::isnan(x); });
  });
  r.add("IsInf", [](const NodeInfo& info) -> CpuKernel {
    const bool positive = info.attr_int("detect_positive", 1) != 0;
    const bool negative = info.attr_int("detect_negative", 1) != 0;
    return float_predicate_kernel(
        [positive, negative](auto x) { return std::isinf(x) && (x > 0 ? positive : negative); });
  });
  r.add("Not", [](const NodeInfo&) -> CpuKernel {
    return [](OpContext& ctx) {
      const Tensor& x = ctx.input(0);
      if (x.dtype() != DataType::Bool) cpu::fail_unsupported_type(ctx, x.dtype());
      Tensor& y = ctx.allocate_output(0, DataType::Bool, x.shape());
      cpu::map_elements(x.data<bool>(), y.mutable_data<bool>(), x.element_count(), kCheapGrain,
                        [](bool v) { return !v; });
    };
  });
  r.add("BitwiseNot", [](const NodeInfo&) -> CpuKernel {
    return [](OpContext& ctx) {
      const Tensor& x = ctx.input(0);
      visit_dtype(x.dtype(), [&]<class T>() {
        if constexpr (is_plain_int_v<T>) {
          Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
          cpu::map_elements(x.data<T>(), y.mutable_data<T>(), x.element_count(), kCheapGrain,
                            [](T v) { return static_cast<T>(~v); });
        } else {
          cpu::fail_unsupported_type(ctx, x.dtype());
        }
      });
    };
  });
}

}  // namespace

KILN_CPU_OPS(elementwise_unary);
void register_elementwise_unary_ops(OpRegistry& registry) {
  add_math_ops(registry);
  add_predicate_and_logic_ops(registry);
}

}  // namespace kiln
