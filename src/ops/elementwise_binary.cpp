// Two-operand element-wise ops with multidirectional broadcasting: arithmetic (Add, Sub, Mul,
// Div, Pow, Mod), bit and logic ops, comparisons, and the variadic Min, Max, Sum and Mean.
//
// Integer semantics (ONNX leaves overflow open; kiln never runs into undefined behaviour):
//  - Add/Sub/Mul wrap around (two's complement), like ONNX Runtime on every platform;
//  - Div truncates towards zero like C, INT_MIN / -1 wraps to INT_MIN; a zero divisor is an
//    error, as is a zero divisor in Mod;
//  - Mod with fmod=0 takes the divisor's sign (Python's %), with fmod=1 the dividend's (C's %);
//    floating-point Mod requires fmod=1, as ONNX Runtime does;
//  - BitShift by the type's width or more gives 0;
//  - Pow with an integer base: exact repeated multiplication (wrapping) for exponents >= 0,
//    otherwise the double result converted like Cast (1, -1 stay exact; others truncate to 0).
// Min and Max propagate NaN. The storage-only float types (float16, bfloat16) compute in
// float and round once.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "backends/cpu/binary_broadcast.h"
#include "backends/cpu/cast_convert.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/bit_shift.h"
#include "ops/all_ops.h"
#include "ops/wrapping_int.h"

namespace kiln {
namespace {

using cpu::binary_broadcast;

// The types the arithmetic ops accept: built-in numbers and the two 16-bit float formats.
template <class T>
inline constexpr bool is_arith_v = is_plain_int_v<T> || std::is_floating_point_v<T> ||
                                   std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <class T>
inline constexpr bool is_float_arith_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// Applies f in float for the 16-bit float formats, directly otherwise.
template <class T, class F>
inline T via_float(T a, T b, F f) {
  if constexpr (is_small_float_v<T>) {
    return T(f(static_cast<float>(a), static_cast<float>(b)));
  } else {
    return f(a, b);
  }
}

struct AddOp {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (is_plain_int_v<T>) {
      return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
    } else {
      return via_float(a, b, [](auto x, auto y) { return x + y; });
    }
  }
};
struct SubOp {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (is_plain_int_v<T>) {
      return static_cast<T>(static_cast<wrap_t<T>>(a) - static_cast<wrap_t<T>>(b));
    } else {
      return via_float(a, b, [](auto x, auto y) { return x - y; });
    }
  }
};
struct MulOp {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (is_plain_int_v<T>) {
      return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
    } else {
      return via_float(a, b, [](auto x, auto y) { return x * y; });
    }
  }
};
struct DivOp {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (is_plain_int_v<T>) {
      // b != 0 was checked; only INT_MIN / -1 overflows: negate with wrapping instead.
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(a));
      }
      return static_cast<T>(a / b);
    } else {
      return via_float(a, b, [](auto x, auto y) { return x / y; });
    }
  }
};
template <class T>
inline T min_of(T a, T b) {
  if constexpr (is_float_arith_v<T>) {
    return via_float(a, b, [](auto x, auto y) { return (x < y || std::isnan(x)) ? x : y; });
  } else {
    return a < b ? a : b;
  }
}
template <class T>
inline T max_of(T a, T b) {
  if constexpr (is_float_arith_v<T>) {
    return via_float(a, b, [](auto x, auto y) { return (x > y || std::isnan(x)) ? x : y; });
  } else {
    return a > b ? a : b;
  }
}
struct MinOp {
  template <class T>
  static T apply(T a, T b) {
    return min_of(a, b);
  }
};
struct MaxOp {
  template <class T>
  static T apply(T a, T b) {
    return max_of(a, b);
  }
};

// Integer Mod; b != 0 was checked.
template <class T>
inline T int_mod(T a, T b, bool fmod) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;  // INT_MIN % -1 overflows
    T r = static_cast<T>(a % b);
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

// --- shared plumbing -------------------------------------------------------------------------

std::string type_error(const char* op, DataType t) {
  return std::string(op) + ": element type " + std::string(dtype_name(t)) + " is not supported";
}

void check_same_dtype(const OpContext& ctx, const char* op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    ctx.fail(std::string(op) + ": inputs must have the same element type, got " +
             std::string(dtype_name(a.dtype())) + " and " + std::string(dtype_name(b.dtype())));
  }
}

// Multidirectional broadcast of `a` and `b` into `out`; false when incompatible. Unlike
// broadcast_shapes it builds no error text on the (allocation-free) success path.
bool broadcast_pair(const Shape& a, const Shape& b, Shape& out) {
  const size_t rank = std::max(a.size(), b.size());
  out.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

Shape output_shape(const OpContext& ctx, const Tensor& a, const Tensor& b) {
  Shape out;
  if (!broadcast_pair(a.shape(), b.shape(), out)) {
    ctx.fail("shapes " + a.shape().to_string() + " and " + b.shape().to_string() +
             " cannot be broadcast together");
  }
  return out;
}

template <class T>
void check_no_zero_divisor(const OpContext& ctx, const char* op, const Tensor& b) {
  const T* p = b.data<T>();
  const int64_t n = b.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] == 0) ctx.fail(std::string(op) + ": integer division by zero");
  }
}

// A kernel for a same-type op whose output has the inputs' type. `Allowed<T>` picks the types.
template <class Op, template <class> class Allowed>
CpuKernel same_type_kernel(const char* op) {
  return [op](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    check_same_dtype(ctx, op, a, b);
    const Shape shape = output_shape(ctx, a, b);
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (Allowed<T>::value) {
        if constexpr (std::is_same_v<Op, DivOp> && is_plain_int_v<T>) {
          check_no_zero_divisor<T>(ctx, op, b);
        }
        Tensor& out = ctx.allocate_output(0, a.dtype(), shape);
        binary_broadcast(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.mutable_data<T>(),
                         shape, [](const T& x, const T& y) { return Op::template apply<T>(x, y); });
      } else {
        ctx.fail(type_error(op, a.dtype()));
      }
    });
  };
}

template <class T>
struct ArithTypes : std::bool_constant<is_arith_v<T>> {};
template <class T>
struct IntTypes : std::bool_constant<is_plain_int_v<T>> {};
template <class T>
struct BoolType : std::bool_constant<std::is_same_v<T, bool>> {};

// A kernel for a same-type op with a bool output (comparisons, Equal).
template <template <class> class Allowed, class Compare>
CpuKernel compare_kernel(const char* op, Compare compare) {
  return [op, compare](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    check_same_dtype(ctx, op, a, b);
    const Shape shape = output_shape(ctx, a, b);
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (Allowed<T>::value) {
        Tensor& out = ctx.allocate_output(0, DataType::Bool, shape);
        binary_broadcast(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.mutable_data<bool>(),
                         shape, [&](const T& x, const T& y) -> bool {
                           if constexpr (is_small_float_v<T>) {
                             return compare(static_cast<float>(x), static_cast<float>(y));
                           } else {
                             return compare(x, y);
                           }
                         });
      } else {
        ctx.fail(type_error(op, a.dtype()));
      }
    });
  };
}

template <class T>
struct EquatableTypes : std::bool_constant<is_arith_v<T> || std::is_same_v<T, bool> ||
                                           std::is_same_v<T, std::string>> {};

// --- Mod, BitShift, Pow ----------------------------------------------------------------------

CpuKernel make_mod(const NodeInfo& info) {
  const bool fmod = info.attr_int("fmod", 0) != 0;
  return [fmod](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    check_same_dtype(ctx, "Mod", a, b);
    const Shape shape = output_shape(ctx, a, b);
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (is_arith_v<T>) {
        if constexpr (is_float_arith_v<T>) {
          if (!fmod) ctx.fail("Mod: floating-point inputs require the attribute fmod=1");
        } else {
          check_no_zero_divisor<T>(ctx, "Mod", b);
        }
        Tensor& out = ctx.allocate_output(0, a.dtype(), shape);
        binary_broadcast(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.mutable_data<T>(),
                         shape, [fmod](const T& x, const T& y) -> T {
                           if constexpr (is_float_arith_v<T>) {
                             return via_float(x, y, [](auto p, auto q) { return std::fmod(p, q); });
                           } else {
                             return int_mod(x, y, fmod);
                           }
                         });
      } else {
        ctx.fail(type_error("Mod", a.dtype()));
      }
    });
  };
}

CpuKernel make_bitshift(const NodeInfo& info) {
  const bool left = parse_bit_shift_left(info);
  return [left](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    check_same_dtype(ctx, "BitShift", a, b);
    const Shape shape = output_shape(ctx, a, b);
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (is_plain_int_v<T> && std::is_unsigned_v<T>) {
        Tensor& out = ctx.allocate_output(0, a.dtype(), shape);
        auto shift = [left](const T& x, const T& s) -> T {
          if (s >= sizeof(T) * 8) return 0;
          const wrap_t<T> v = x;
          return static_cast<T>(left ? v << s : v >> s);
        };
        binary_broadcast(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.mutable_data<T>(),
                         shape, shift);
      } else {
        ctx.fail(type_error("BitShift", a.dtype()));
      }
    });
  };
}

// x^y for an integer base.
template <class T, class E>
T int_pow(T x, E y) {
  if constexpr (is_plain_int_v<E>) {
    if (y >= 0) {
      wrap_t<T> result = 1, base = static_cast<wrap_t<T>>(x);
      for (std::make_unsigned_t<E> e = static_cast<std::make_unsigned_t<E>>(y); e != 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<T>(result);
    }
  }
  return cpu::float_to_int<T>(std::pow(static_cast<double>(x), to_double(y)));
}

template <class T, class E>
T pow_element(T x, E y) {
  if constexpr (is_plain_int_v<T>) {
    return int_pow(x, y);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::pow(x, to_double(y));
  } else if constexpr (is_float_arith_v<E> && !std::is_same_v<E, double>) {
    // float (or 16-bit float) base and exponent: float's pow, rounded once for 16-bit bases.
    return T(std::pow(static_cast<float>(x), static_cast<float>(y)));
  } else {
    // Integer or double exponents keep their precision through double.
    return T(
        static_cast<float>(std::pow(static_cast<double>(static_cast<float>(x)), to_double(y))));
  }
}

template <class T>
struct PowBaseTypes : std::bool_constant<is_arith_v<T>> {};

CpuKernel make_pow(const NodeInfo& info) {
  // A constant scalar exponent of 2, 3, 1 or 0.5 on a float32 base skips pow().
  double const_exponent = std::nan("");
  if (const Tensor* e = info.constant_input(1); e && e->element_count() == 1) {
    visit_dtype(e->dtype(), [&]<class E>() {
      if constexpr (is_arith_v<E>) const_exponent = to_double(e->data<E>()[0]);
    });
  }
  return [const_exponent](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Shape shape = output_shape(ctx, a, b);
    if (a.dtype() == DataType::Float32 && shape == a.shape() &&
        (const_exponent == 2.0 || const_exponent == 3.0 || const_exponent == 1.0 ||
         const_exponent == 0.5)) {
      const float* x = a.data<float>();
      float* y = ctx.allocate_output(0, DataType::Float32, shape).mutable_data<float>();
      const float p = static_cast<float>(const_exponent);
      const Shape one{};
      binary_broadcast(x, shape, &p, one, y, shape, [](float v, float e) {
        if (e == 2.0f) return v * v;
        if (e == 3.0f) return v * v * v;
        if (e == 1.0f) return v;
        // pow(x, 0.5) differs from sqrt only at -0 (gives +0) and -inf (gives +inf).
        return v == -INFINITY ? INFINITY : std::sqrt(v) + 0.0f;
      });
      return;
    }
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (is_arith_v<T>) {
        visit_dtype(b.dtype(), [&]<class E>() {
          if constexpr (is_arith_v<E>) {
            Tensor& out = ctx.allocate_output(0, a.dtype(), shape);
            binary_broadcast(
                a.data<T>(), a.shape(), b.data<E>(), b.shape(), out.mutable_data<T>(), shape,
                [](const T& x, const E& y) { return pow_element(x, y); }, cpu::kBinaryGrain / 8);
          } else {
            ctx.fail(type_error("Pow (exponent)", b.dtype()));
          }
        });
      } else {
        ctx.fail(type_error("Pow", a.dtype()));
      }
    });
  };
}

// --- variadic Min, Max, Sum, Mean ------------------------------------------------------------

template <class Op, template <class> class Allowed, bool kMean = false>
CpuKernel variadic_kernel(const char* op) {
  return [op](OpContext& ctx) {
    const size_t n = ctx.num_inputs();
    if (n == 0 || !ctx.has_input(0)) ctx.fail(std::string(op) + ": needs at least one input");
    const Tensor& first = ctx.input(0);
    Shape shape = first.shape();
    for (size_t i = 1; i < n; ++i) {
      check_same_dtype(ctx, op, first, ctx.input(i));
      Shape next;
      if (!broadcast_pair(shape, ctx.input(i).shape(), next)) {
        ctx.fail("input shapes cannot be broadcast together: " + shape.to_string() + " and " +
                 ctx.input(i).shape().to_string());
      }
      shape = next;
    }
    visit_dtype(first.dtype(), [&]<class T>() {
      if constexpr (Allowed<T>::value) {
        if (n == 1) {
          ctx.set_output(0, first);  // the identity: share the input
          return;
        }
        Tensor& out = ctx.allocate_output(0, first.dtype(), shape);
        T* o = out.mutable_data<T>();
        auto f = [](const T& x, const T& y) { return Op::template apply<T>(x, y); };
        const Tensor& second = ctx.input(1);
        binary_broadcast(first.data<T>(), first.shape(), second.data<T>(), second.shape(), o, shape,
                         f);
        for (size_t i = 2; i < n; ++i) {
          const Tensor& next = ctx.input(i);
          binary_broadcast(static_cast<const T*>(o), shape, next.data<T>(), next.shape(), o, shape,
                           f);
        }
        if constexpr (kMean) {
          const T count = T(static_cast<float>(n));
          binary_broadcast(static_cast<const T*>(o), shape, &count, Shape{}, o, shape,
                           [](const T& x, const T& c) {
                             return via_float(x, c, [](auto p, auto q) { return p / q; });
                           });
        }
      } else {
        ctx.fail(type_error(op, first.dtype()));
      }
    });
  };
}

template <class T>
struct FloatTypes : std::bool_constant<is_float_arith_v<T>> {};

template <class Kernel>
KernelFactory fixed(Kernel kernel) {
  return [kernel](const NodeInfo&) -> CpuKernel { return kernel; };
}

struct AndOp {
  template <class T>
  static T apply(T a, T b) {
    return static_cast<T>(a & b);
  }
};
struct OrOp {
  template <class T>
  static T apply(T a, T b) {
    return static_cast<T>(a | b);
  }
};
struct XorOp {
  template <class T>
  static T apply(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};

}  // namespace

KILN_CPU_OPS(elementwise_binary);
void register_elementwise_binary_ops(OpRegistry& registry) {
  registry.add("Add", fixed(same_type_kernel<AddOp, ArithTypes>("Add")));
  registry.add("Sub", fixed(same_type_kernel<SubOp, ArithTypes>("Sub")));
  registry.add("Mul", fixed(same_type_kernel<MulOp, ArithTypes>("Mul")));
  registry.add("Div", fixed(same_type_kernel<DivOp, ArithTypes>("Div")));
  registry.add("Pow", make_pow);
  registry.add("Mod", make_mod);
  registry.add("BitShift", make_bitshift);

  registry.add("And", fixed(same_type_kernel<AndOp, BoolType>("And")));
  registry.add("Or", fixed(same_type_kernel<OrOp, BoolType>("Or")));
  registry.add("Xor", fixed(same_type_kernel<XorOp, BoolType>("Xor")));
  registry.add("BitwiseAnd", fixed(same_type_kernel<AndOp, IntTypes>("BitwiseAnd")));
  registry.add("BitwiseOr", fixed(same_type_kernel<OrOp, IntTypes>("BitwiseOr")));
  registry.add("BitwiseXor", fixed(same_type_kernel<XorOp, IntTypes>("BitwiseXor")));

  registry.add("Equal", fixed(compare_kernel<EquatableTypes>(
                            "Equal", [](const auto& x, const auto& y) { return x == y; })));
  registry.add("Less", fixed(compare_kernel<ArithTypes>(
                           "Less", [](const auto& x, const auto& y) { return x < y; })));
  registry.add("LessOrEqual",
               fixed(compare_kernel<ArithTypes>(
                   "LessOrEqual", [](const auto& x, const auto& y) { return x <= y; })));
  registry.add("Greater", fixed(compare_kernel<ArithTypes>(
                              "Greater", [](const auto& x, const auto& y) { return x > y; })));
  registry.add("GreaterOrEqual",
               fixed(compare_kernel<ArithTypes>(
                   "GreaterOrEqual", [](const auto& x, const auto& y) { return x >= y; })));

  registry.add("Min", fixed(variadic_kernel<MinOp, ArithTypes>("Min")));
  registry.add("Max", fixed(variadic_kernel<MaxOp, ArithTypes>("Max")));
  registry.add("Sum", fixed(variadic_kernel<AddOp, ArithTypes>("Sum")));
  registry.add("Mean", fixed(variadic_kernel<AddOp, FloatTypes, true>("Mean")));
}

}  // namespace kiln
