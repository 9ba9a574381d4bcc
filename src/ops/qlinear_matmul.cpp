// QLinearMatMul: a matrix product of two quantized (int8/uint8) operands, requantized.
// (The exact integer product is integer_product.h's.)
//
//   acc[m, n] = sum_k (a[m, k] - a_zero_point) * (b[k, n] - b_zero_point)     (exact, int32)
//   y[m, n]   = saturate(round_half_even(acc * (a_scale * b_scale / y_scale)) + y_zero_point)
//
// Scales and zero points are per tensor, per row of A or per column of B. The multiplier is
// computed in the scales' own precision (float16 scales give a float16 multiplier, as in ONNX's
// reference) and applied to the int32 sum in double.
#include <algorithm>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/integer_product.h"
#include "ops/op_utils.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

enum Input : size_t { kA, kAScale, kAZero, kB, kBScale, kBZero, kYScale, kYZero };

bool is_8bit(DataType t) { return t == DataType::Int8 || t == DataType::UInt8; }

// A scale or zero point: one value, or `lines` values (rows of A, columns of B).
std::vector<double> line_params(const OpContext& ctx, size_t index, int64_t lines,
                                const char* what) {
  const Tensor& t = ctx.input(index);
  const int64_t n = t.element_count();
  if (n != 1 && (n != lines || t.rank() > 2)) {
    ctx.fail(std::string(what) + " of shape " + t.shape().to_string() +
             " is neither a single value nor one per " + (index < kB ? "row of a" : "column of b"));
  }
  return values_as_double(t);
}

// The zero point of operand `index`, checked against the operand's type; 0 when absent.
std::vector<double> zero_points(const OpContext& ctx, size_t index, DataType operand, int64_t lines,
                                const char* what) {
  if (!ctx.has_input(index)) return {0.0};
  if (ctx.input(index).dtype() != operand) {
    ctx.fail(std::string(what) + " is " + std::string(dtype_name(ctx.input(index).dtype())) +
             " but its operand is " + std::string(dtype_name(operand)));
  }
  return line_params(ctx, index, lines, what);
}

CpuKernel make_qlinear_matmul(const NodeInfo&) {
  return [](OpContext& ctx) {
    for (size_t i : {kA, kAScale, kB, kBScale, kYScale}) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is required");
    }
    const Tensor& a = ctx.input(kA);
    const Tensor& b = ctx.input(kB);
    if (!is_8bit(a.dtype()) || !is_8bit(b.dtype())) ctx.fail("a and b must be int8 or uint8");
    const MatMulGeometry p = matmul_geometry(ctx, a.shape(), b.shape());

    const DataType out_type = ctx.has_input(kYZero) ? ctx.input(kYZero).dtype() : a.dtype();
    if (!is_8bit(out_type)) ctx.fail("y_zero_point must be int8 or uint8");

    const DataType scale_type = ctx.input(kAScale).dtype();
    for (size_t i : {kAScale, kBScale, kYScale}) {
      const DataType t = ctx.input(i).dtype();
      if (t != DataType::Float32 && t != DataType::Float16 && t != DataType::BFloat16) {
        ctx.fail("scales must be float32, float16 or bfloat16, got " + std::string(dtype_name(t)));
      }
    }
    // Scales of one type multiply in that type; mixed types promote to float32.
    const bool same_type =
        ctx.input(kBScale).dtype() == scale_type && ctx.input(kYScale).dtype() == scale_type;
    const DataType precision = same_type ? scale_type : DataType::Float32;
    const std::vector<double> sa = line_params(ctx, kAScale, p.M, "a_scale");
    const std::vector<double> sb = line_params(ctx, kBScale, p.N, "b_scale");
    const double sy = scalar_value(ctx, ctx.input(kYScale), "y_scale");
    const std::vector<double> za = zero_points(ctx, kAZero, a.dtype(), p.M, "a_zero_point");
    const std::vector<double> zb = zero_points(ctx, kBZero, b.dtype(), p.N, "b_zero_point");
    const double zy =
        ctx.has_input(kYZero) ? scalar_value(ctx, ctx.input(kYZero), "y_zero_point") : 0.0;

    Tensor& y = ctx.allocate_output(0, out_type, p.out);
    const int64_t count = y.element_count();
    if (count == 0) return;
    std::vector<int32_t> acc(static_cast<size_t>(count));
    integer_product(p, a, b, za, zb, acc.data());

    // One multiplier per (row, column) pair that the scales distinguish.
    const int64_t rows = sa.size() == 1 ? 1 : p.M, cols = sb.size() == 1 ? 1 : p.N;
    std::vector<double> multiplier(static_cast<size_t>(rows * cols));
    for (int64_t m = 0; m < rows; ++m) {
      for (int64_t n = 0; n < cols; ++n) {
        const double s = round_to_precision(sa[m] * sb[n], precision);
        multiplier[m * cols + n] = round_to_precision(s / sy, precision);
      }
    }
    requantize(
        acc.data(),
        [&](int64_t i) {
          const int64_t n = i % p.N, m = (i / p.N) % p.M;
          return multiplier[(rows == 1 ? 0 : m) * cols + (cols == 1 ? 0 : n)];
        },
        zy, y);
  };
}

}  // namespace

KILN_CPU_OPS(qlinear_matmul);
void register_qlinear_matmul_ops(OpRegistry& registry) {
  registry.add("QLinearMatMul", make_qlinear_matmul);
}

}  // namespace kiln
