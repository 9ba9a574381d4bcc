// Activations: Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Gelu, HardSigmoid, HardSwish, Mish,
// Softplus, Softsign, Sigmoid, Tanh, ThresholdedRelu, Shrink, Swish; and Clip and Where. Also
// ONNX Runtime's element-wise Gelu and QuickGelu (com.microsoft); the ones that add a bias first
// are bias_activations.cpp.
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "backends/cpu/elementwise_map.h"
#include "backends/cpu/gelu.h"
#include "backends/cpu/unary_kernel.h"
#include "backends/cpu/vector_math.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {

namespace {

using cpu::Accepts;
using cpu::add_unary;
using cpu::kCheapGrain;
using cpu::kCostlyGrain;
using cpu::unary_kernel;

// log(1 + e^x) without overflow for large x.
template <class C>
C softplus(C x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

template <class C>
C sigmoid(C x) {
  return C(1) / (C(1) + std::exp(-x));
}

// Registers an op whose kernel is built from its float attributes.
template <Accepts kAccepts, class MakeF>
void add_unary_with_attrs(OpRegistry& r, const char* op_type, MakeF make_f,
                          int64_t grain = kCostlyGrain) {
  r.add(op_type, [make_f, grain](const NodeInfo& info) -> CpuKernel {
    return unary_kernel<kAccepts>(make_f(info), grain);
  });
}

void add_simple_activations(OpRegistry& r) {
  // `x < 0 ? 0 : x` rather than max(x, 0): keeps NaN, and vectorises.
  add_unary<Accepts::FloatsAndSignedInts>(
      r, "Relu", [](auto x) { return x < 0 ? decltype(x)(0) : x; }, kCheapGrain);
  add_unary<Accepts::Floats>(
      r, "Sigmoid", [](auto x) { return sigmoid(x); }, kCostlyGrain, &cpu::sigmoid_f32);
  add_unary<Accepts::Floats>(
      r, "Tanh", [](auto x) { return std::tanh(x); }, kCostlyGrain, &cpu::tanh_f32);
  add_unary<Accepts::Floats>(r, "Softplus", [](auto x) { return softplus(x); });
  add_unary<Accepts::Floats>(
      r, "Softsign", [](auto x) { return x / (decltype(x)(1) + std::fabs(x)); }, kCheapGrain);
  add_unary<Accepts::Floats>(r, "Mish", [](auto x) { return x * std::tanh(softplus(x)); });
  add_unary<Accepts::Floats>(
      r, "HardSwish",
      [](auto x) {
        using C = decltype(x);
        const C v = x / C(6) + C(0.5);
        return x * (v < 0 ? C(0) : (v > 1 ? C(1) : v));
      },
      kCheapGrain);
}

void add_parameterised_activations(OpRegistry& r) {
  add_unary_with_attrs<Accepts::Floats>(
      r, "LeakyRelu",
      [](const NodeInfo& info) {
        const float alpha = info.attr_float("alpha", 0.01f);
        return [alpha](auto x) { return x < 0 ? decltype(x)(alpha) * x : x; };
      },
      kCheapGrain);
  add_unary_with_attrs<Accepts::Floats>(r, "Elu", [](const NodeInfo& info) {
    const float alpha = info.attr_float("alpha", 1.0f);
    return [alpha](auto x) { return x < 0 ? decltype(x)(alpha) * std::expm1(x) : x; };
  });
  add_unary_with_attrs<Accepts::Floats>(r, "Selu", [](const NodeInfo& info) {
    const float alpha = info.attr_float("alpha", 1.67326319217681884765625f);
    const float gamma = info.attr_float("gamma", 1.05070102214813232421875f);
    return [alpha, gamma](auto x) {
      using C = decltype(x);
      return x > 0 ? C(gamma) * x : C(gamma) * C(alpha) * std::expm1(x);
    };
  });
  add_unary_with_attrs<Accepts::Floats>(r, "Celu", [](const NodeInfo& info) {
    const float alpha = info.attr_float("alpha", 1.0f);
    if (alpha == 0.0f) info.fail("alpha must not be 0");
    return [alpha](auto x) {
      using C = decltype(x);
      return x > 0 ? x : C(alpha) * std::expm1(x / C(alpha));
    };
  });
  add_unary_with_attrs<Accepts::Floats>(
      r, "HardSigmoid",
      [](const NodeInfo& info) {
        const float alpha = info.attr_float("alpha", 0.2f);
        const float beta = info.attr_float("beta", 0.5f);
        return [alpha, beta](auto x) {
          using C = decltype(x);
          const C v = C(alpha) * x + C(beta);
          return v < 0 ? C(0) : (v > 1 ? C(1) : v);
        };
      },
      kCheapGrain);
  add_unary_with_attrs<Accepts::Floats>(
      r, "ThresholdedRelu",
      [](const NodeInfo& info) {
        const float alpha = info.attr_float("alpha", 1.0f);
        return [alpha](auto x) { return x > decltype(x)(alpha) ? x : decltype(x)(0); };
      },
      kCheapGrain);
  // Shrink is defined on every numeric type; integers compute in double and convert back.
  add_unary_with_attrs<Accepts::FloatsAndInts>(
      r, "Shrink",
      [](const NodeInfo& info) {
        const float bias = info.attr_float("bias", 0.0f);
        const float lambd = info.attr_float("lambd", 0.5f);
        return [bias, lambd](auto x) {
          using C = decltype(x);
          using F = std::conditional_t<std::is_integral_v<C>, double, C>;
          const F v = static_cast<F>(x);
          const F y = v < -F(lambd) ? v + F(bias) : (v > F(lambd) ? v - F(bias) : F(0));
          return static_cast<C>(y);
        };
      },
      kCheapGrain);
  // x * sigmoid(alpha * x): ai.onnx's Swish, and ONNX Runtime's QuickGelu with its default alpha.
  auto swish = [](float default_alpha) {
    return [default_alpha](const NodeInfo& info) -> CpuKernel {
      const float alpha = info.attr_float("alpha", default_alpha);
      return unary_kernel<Accepts::Floats>(
          [alpha](auto x) { return x * sigmoid(decltype(x)(alpha) * x); });
    };
  };
  r.add("Swish", swish(1.0f));
  r.add(ir::kMicrosoftDomain, "QuickGelu", swish(1.702f));
  // ONNX Runtime's Gelu is the exact form (it has no approximate attribute).
  r.add(ir::kMicrosoftDomain, "Gelu", [](const NodeInfo&) -> CpuKernel {
    return unary_kernel<Accepts::Floats>([](auto x) { return gelu_exact(x); }, kCostlyGrain,
                                         &cpu::gelu_f32);
  });
  r.add("Gelu", [](const NodeInfo& info) -> CpuKernel {
    const std::string approximate = info.attr_string("approximate", "none");
    if (approximate == "tanh") {
      return unary_kernel<Accepts::Floats>([](auto x) { return gelu_tanh(x); });
    }
    if (approximate != "none") {
      info.fail("approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
    }
    return unary_kernel<Accepts::Floats>([](auto x) { return gelu_exact(x); }, kCostlyGrain,
                                         &cpu::gelu_f32);
  });
}

// The inner-dimension strides of broadcast strides (0 for a scalar output).
template <size_t N>
std::array<int64_t, N> inner_strides(const std::array<Shape, N>& strides, size_t rank) {
  std::array<int64_t, N> s{};
  if (rank > 0) {
    for (size_t k = 0; k < N; ++k) s[k] = strides[k][rank - 1];
  }
  return s;
}

CpuKernel prelu_kernel(int opset) {
  return [opset](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor slope = ctx.input(1);
    // Before opset 7 there was no broadcasting rule, and exporters wrote a per-channel slope
    // as a 1-D [C] tensor: read it as [C, 1, ..., 1] so it applies along axis 1.
    if (opset < 7 && slope.rank() == 1 && x.rank() >= 2 && slope.shape()[0] != 1 &&
        slope.shape()[0] == x.shape()[1]) {
      Shape channel_shape;
      channel_shape.resize(x.rank() - 1, 1);
      channel_shape[0] = slope.shape()[0];
      slope = slope.reshaped(channel_shape);
    }
    if (slope.dtype() != x.dtype()) {
      ctx.fail("slope has type " + std::string(dtype_name(slope.dtype())) + " but X has " +
               std::string(dtype_name(x.dtype())));
    }
    // Unidirectional broadcasting: slope broadcasts to X, never the other way.
    const Shape shapes[2] = {x.shape(), slope.shape()};
    Shape out;
    if (!cpu::broadcast_into(shapes, 2, out) || out != x.shape()) {
      ctx.fail("slope shape " + slope.shape().to_string() + " cannot be broadcast to X shape " +
               x.shape().to_string());
    }
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (cpu::accepts_v<Accepts::FloatsAndInts, T>) {
        using C = cpu::compute_t<T>;
        Tensor& y = ctx.allocate_output(0, x.dtype(), out);
        const T* px = x.data<T>();
        const T* ps = slope.data<T>();
        T* py = y.mutable_data<T>();
        auto prelu = [](T v, T s) {
          const C c = static_cast<C>(v);
          return c < 0 ? static_cast<T>(static_cast<C>(s) * c) : v;
        };
        const int64_t n = x.element_count();
        if (slope.element_count() == 1) {
          const T s = ps[0];
          cpu::map_elements(px, py, n, kCheapGrain, [&](T v) { return prelu(v, s); });
        } else if (slope.shape() == out) {
          cpu::split_range(n, kCheapGrain, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) py[i] = prelu(px[i], ps[i]);
          });
        } else {
          const std::array<Shape, 2> strides = {broadcast_strides(x.shape(), out),
                                                broadcast_strides(slope.shape(), out)};
          const auto inner = inner_strides(strides, out.size());
          cpu::for_each_broadcast_row<2>(
              out, strides, kCheapGrain,
              [&](int64_t o, const std::array<int64_t, 2>& off, int64_t count) {
                for (int64_t i = 0; i < count; ++i) {
                  py[o + i] = prelu(px[off[0] + i * inner[0]], ps[off[1] + i * inner[1]]);
                }
              });
        }
      } else {
        cpu::fail_unsupported_type(ctx, x.dtype());
      }
    });
  };
}

// Reads an optional Clip bound (a one-element tensor of X's type).
template <class T>
bool read_bound(const OpContext& ctx, size_t index, const char* name, T& value) {
  if (!ctx.has_input(index)) return false;
  const Tensor& t = ctx.input(index);
  if (t.dtype() != dtype_of<T>) {
    ctx.fail(std::string(name) + " has type " + std::string(dtype_name(t.dtype())) +
             " but input has " + std::string(dtype_name(dtype_of<T>)));
  }
  if (t.element_count() != 1) {
    ctx.fail(std::string(name) + " must be a scalar, got shape " + t.shape().to_string());
  }
  value = t.data<T>()[0];
  return true;
}

CpuKernel clip_kernel(const NodeInfo& info) {
  // Before opset 11 the bounds are float attributes defaulting to the float range; from 11
  // they are optional scalar inputs, and an absent bound does not clip.
  const bool bounds_are_attrs = info.opset() < 11;
  const float attr_min = info.attr_float("min", std::numeric_limits<float>::lowest());
  const float attr_max = info.attr_float("max", std::numeric_limits<float>::max());
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (cpu::accepts_v<Accepts::FloatsAndInts, T>) {
        using C = cpu::compute_t<T>;
        C lo, hi;
        if (bounds_are_attrs) {
          if (!is_float_like_v<T>) cpu::fail_unsupported_type(ctx, x.dtype());  // float-only then
          lo = static_cast<C>(attr_min);
          hi = static_cast<C>(attr_max);
        } else {
          if constexpr (std::is_floating_point_v<C>) {
            lo = -std::numeric_limits<C>::infinity();
            hi = std::numeric_limits<C>::infinity();
          } else {
            lo = std::numeric_limits<C>::lowest();
            hi = std::numeric_limits<C>::max();
          }
          T bound;
          if (read_bound(ctx, 1, "min", bound)) lo = static_cast<C>(bound);
          if (read_bound(ctx, 2, "max", bound)) hi = static_cast<C>(bound);
        }
        Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
        // min(max(x, lo), hi): when lo > hi every element becomes hi, as the spec says; NaN
        // passes through.
        cpu::map_elements(x.data<T>(), y.mutable_data<T>(), x.element_count(), kCheapGrain,
                          [lo, hi](T v) {
                            C c = static_cast<C>(v);
                            c = c < lo ? lo : c;
                            c = c > hi ? hi : c;
                            return static_cast<T>(c);
                          });
      } else {
        cpu::fail_unsupported_type(ctx, x.dtype());
      }
    });
  };
}

CpuKernel where_kernel() {
  return [](OpContext& ctx) {
    const Tensor& cond = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (cond.dtype() != DataType::Bool) {
      ctx.fail("condition must be bool, got " + std::string(dtype_name(cond.dtype())));
    }
    if (x.dtype() != y.dtype()) {
      ctx.fail("X and Y must have the same type, got " + std::string(dtype_name(x.dtype())) +
               " and " + std::string(dtype_name(y.dtype())));
    }
    const Shape shapes[3] = {cond.shape(), x.shape(), y.shape()};
    Shape out;
    if (!cpu::broadcast_into(shapes, 3, out)) {
      ctx.fail("shapes " + cond.shape().to_string() + ", " + x.shape().to_string() + " and " +
               y.shape().to_string() + " cannot be broadcast together");
    }
    visit_dtype(x.dtype(), [&]<class T>() {
      Tensor& result = ctx.allocate_output(0, x.dtype(), out);
      const bool* pc = cond.data<bool>();
      const T* px = x.data<T>();
      const T* py = y.data<T>();
      T* po = result.mutable_data<T>();
      if (cond.shape() == out && x.shape() == out && y.shape() == out) {
        cpu::split_range(out.element_count(), kCheapGrain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) po[i] = pc[i] ? px[i] : py[i];
        });
        return;
      }
      const std::array<Shape, 3> strides = {broadcast_strides(cond.shape(), out),
                                            broadcast_strides(x.shape(), out),
                                            broadcast_strides(y.shape(), out)};
      const auto inner = inner_strides(strides, out.size());
      cpu::for_each_broadcast_row<3>(
          out, strides, kCheapGrain,
          [&](int64_t o, const std::array<int64_t, 3>& off, int64_t count) {
            for (int64_t i = 0; i < count; ++i) {
              po[o + i] =
                  pc[off[0] + i * inner[0]] ? px[off[1] + i * inner[1]] : py[off[2] + i * inner[2]];
            }
          });
    });
  };
}

}  // namespace

KILN_CPU_OPS(activation);
void register_activation_ops(OpRegistry& registry) {
  add_simple_activations(registry);
  add_parameterised_activations(registry);
  registry.add("PRelu",
               [](const NodeInfo& info) -> CpuKernel { return prelu_kernel(info.opset()); });
  registry.add("Clip", [](const NodeInfo& info) -> CpuKernel { return clip_kernel(info); });
  registry.add("Where", [](const NodeInfo&) -> CpuKernel { return where_kernel(); });
}

}  // namespace kiln
