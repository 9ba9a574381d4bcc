// ONNX Runtime's QLinearAdd and QLinearMul (com.microsoft): element-wise on two int8 or uint8
// tensors (numpy broadcasting) with per-tensor scales and zero points, requantized to C's.
//
//   QLinearAdd:  c = saturate(rint((a - za) * sa / sc + (b - zb) * sb / sc) + zc)
//   QLinearMul:  c = saturate(rint((a - za) * (b - zb) * (sa * sb / sc)) + zc)
//
// in float32 with the operation order of ONNX Runtime's x86 kernels (the scale ratios formed
// once, the zero points folded into one constant, fused multiply-adds for QLinearAdd), so the
// results agree with it bit for bit, ties rounding to even. Out-of-range values saturate.
#include <cmath>
#include <string>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/broadcast.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

enum Input : size_t { kA, kAScale, kAZero, kB, kBScale, kBZero, kCScale, kCZero };

// c for one pair of elements, given as integers already.
struct AddFormula {
  float ratio_a, ratio_b, fixed;
  AddFormula(const QuantScalar& a, const QuantScalar& b, const QuantScalar& c)
      : ratio_a(a.scale / c.scale), ratio_b(b.scale / c.scale) {
    fixed = static_cast<float>(c.zero_point) - (ratio_a * static_cast<float>(a.zero_point) +
                                                ratio_b * static_cast<float>(b.zero_point));
  }
  float operator()(int32_t a, int32_t b) const {
    return std::fma(static_cast<float>(a), ratio_a,
                    std::fma(static_cast<float>(b), ratio_b, fixed));
  }
  // Where one operand is the same along the innermost axis, ONNX Runtime folds it into the
  // constant first (a multiply and an add, then one fused multiply-add for the other operand).
  float scalar_b(int32_t a, int32_t b) const {
    return std::fma(static_cast<float>(a), ratio_a, fixed + static_cast<float>(b) * ratio_b);
  }
  float scalar_a(int32_t a, int32_t b) const {
    return std::fma(static_cast<float>(b), ratio_b, fixed + static_cast<float>(a) * ratio_a);
  }
};

struct MulFormula {
  int32_t za, zb;
  float ratio, zc;
  MulFormula(const QuantScalar& a, const QuantScalar& b, const QuantScalar& c)
      : za(a.zero_point),
        zb(b.zero_point),
        ratio(a.scale * b.scale / c.scale),
        zc(static_cast<float>(c.zero_point)) {}
  float operator()(int32_t a, int32_t b) const {
    return static_cast<float>((a - za) * (b - zb)) * ratio + zc;
  }
  float scalar_b(int32_t a, int32_t b) const { return (*this)(a, b); }
  float scalar_a(int32_t a, int32_t b) const { return (*this)(a, b); }
};

template <class T, class Formula>
void run_binary(const Tensor& a, const Tensor& b, const Formula& f, Tensor& c) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.mutable_data<T>();
  const int64_t n = c.element_count();
  const int64_t lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  auto clamp = [&](float v) { return static_cast<T>(rint_clamped(v, lo, hi)); };
  if (a.shape() == c.shape() && b.shape() == c.shape()) {
    parallel_for(n, 16384, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) pc[i] = clamp(f(pa[i], pb[i]));
    });
    return;
  }
  // General broadcast, walked by the shared odometer (serially: the same-shape case above is the
  // one that carries large tensors).
  const Shape& out = c.shape();
  const Shape sa = broadcast_strides(a.shape(), out), sb = broadcast_strides(b.shape(), out);
  const bool a_fixed = a.element_count() == 1 || (!out.empty() && sa.back() == 0);
  const bool b_fixed = b.element_count() == 1 || (!out.empty() && sb.back() == 0);
  auto store = [&](int64_t i, int32_t av, int32_t bv) {
    pc[i] = clamp(b_fixed ? f.scalar_b(av, bv) : (a_fixed ? f.scalar_a(av, bv) : f(av, bv)));
  };
  for_each_broadcast(out, sa, sb,
                     [&](int64_t i, int64_t oa, int64_t ob) { store(i, pa[oa], pb[ob]); });
}

template <class Formula>
CpuKernel make_qlinear_binary(const NodeInfo&) {
  return [](OpContext& ctx) {
    for (size_t i : {kA, kB}) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is required");
    }
    const Tensor& a = ctx.input(kA);
    const Tensor& b = ctx.input(kB);
    const DataType t = a.dtype();
    if ((t != DataType::Int8 && t != DataType::UInt8) || b.dtype() != t) {
      ctx.fail("A and B must both be int8 or both uint8, got " + std::string(dtype_name(t)) +
               " and " + std::string(dtype_name(b.dtype())));
    }
    const QuantScalar qa = quant_scalar(ctx, kAScale, kAZero, t, "A");
    const QuantScalar qb = quant_scalar(ctx, kBScale, kBZero, t, "B");
    const QuantScalar qc = quant_scalar(ctx, kCScale, kCZero, t, "C");
    Shape out;
    try {
      out = broadcast_shapes(a.shape(), b.shape(), ctx.node().op_type);
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
    Tensor& c = ctx.allocate_output(0, t, out);
    if (c.element_count() == 0) return;
    const Formula f(qa, qb, qc);
    if (t == DataType::Int8) {
      run_binary<int8_t>(a, b, f, c);
    } else {
      run_binary<uint8_t>(a, b, f, c);
    }
  };
}

}  // namespace

KILN_CPU_OPS(qlinear_binary);
void register_qlinear_binary_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "QLinearAdd", make_qlinear_binary<AddFormula>);
  registry.add(ir::kMicrosoftDomain, "QLinearMul", make_qlinear_binary<MulFormula>);
}

}  // namespace kiln
