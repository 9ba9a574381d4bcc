// ONNX Runtime's quantized products with a float result (com.microsoft):
//
//   MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?)
//   DynamicQuantizeMatMul(A, B, b_scale, b_zero_point?, bias?)    A float32, quantized here
//
//   Y[m, n] = float(acc[m, n]) * (a_scale * b_scale[n]) + bias[n]
//
// where acc is the exact integer product of A and B less their zero points (integer_product.h).
// DynamicQuantizeMatMul first quantizes A to uint8 as DynamicQuantizeLinear does (one scale and
// zero point for all of A). A's scale and zero point are per tensor, B's per tensor or per
// column (one value per column of B, shared by every batch matrix); bias has one value per
// column. The multiplier is formed in float32 and applied to the int32 sum as ONNX Runtime does.
#include <algorithm>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/integer_product.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

bool is_8bit(DataType t) { return t == DataType::Int8 || t == DataType::UInt8; }

// One value, or (per_column) one per column of B.
std::vector<double> params(const OpContext& ctx, size_t index, int64_t columns, bool per_column,
                           const char* what) {
  const Tensor& t = ctx.input(index);
  const int64_t n = t.element_count();
  if (n == 1 || (per_column && n == columns && t.rank() <= 2)) return values_as_double(t);
  ctx.fail(std::string(what) + " of shape " + t.shape().to_string() + " is neither one value" +
           (per_column ? " nor one per column of b (" + std::to_string(columns) + ")" : ""));
}

std::vector<double> zero_points(const OpContext& ctx, size_t index, DataType operand,
                                int64_t columns, bool per_column, const char* what) {
  if (index == kNoInput || !ctx.has_input(index)) return {0.0};
  if (ctx.input(index).dtype() != operand) {
    ctx.fail(std::string(what) + " is " + std::string(dtype_name(ctx.input(index).dtype())) +
             " but its operand is " + std::string(dtype_name(operand)));
  }
  return params(ctx, index, columns, per_column, what);
}

void check_float32(const OpContext& ctx, size_t index, const char* what) {
  const DataType t = ctx.input(index).dtype();
  if (t != DataType::Float32) {
    ctx.fail(std::string(what) + " must be float32, got " + std::string(dtype_name(t)));
  }
}

// Where a product's operands and parameters are.
struct Inputs {
  size_t b, b_scale, b_zero, bias;
};

// Y = float(acc) * (a_scale * b_scale[n]) + bias[n] for a quantized A (uint8 or int8).
void product_to_float(OpContext& ctx, const Tensor& a, float a_scale, double a_zero,
                      const Inputs& in) {
  const Tensor& b = ctx.input(in.b);
  if (!is_8bit(b.dtype())) {
    ctx.fail("b must be int8 or uint8, got " + std::string(dtype_name(b.dtype())));
  }
  const MatMulGeometry p = matmul_geometry(ctx, a.shape(), b.shape());
  check_float32(ctx, in.b_scale, "b_scale");
  const std::vector<double> b_scale = params(ctx, in.b_scale, p.N, true, "b_scale");
  const std::vector<double> zb = zero_points(ctx, in.b_zero, b.dtype(), p.N, true, "b_zero_point");
  const float* bias = nullptr;
  if (ctx.has_input(in.bias)) {
    const Tensor& t = ctx.input(in.bias);
    if (t.dtype() != DataType::Float32 || t.rank() != 1 || t.shape()[0] != p.N) {
      ctx.fail("bias must be float32 [" + std::to_string(p.N) + "] (one per column of b), got " +
               std::string(dtype_name(t.dtype())) + t.shape().to_string());
    }
    bias = t.data<float>();
  }
  Tensor& y = ctx.allocate_output(0, DataType::Float32, p.out);
  const int64_t count = y.element_count();
  if (count == 0) return;
  std::vector<float> multiplier(b_scale.size());
  for (size_t n = 0; n < b_scale.size(); ++n) {
    multiplier[n] = a_scale * static_cast<float>(b_scale[n]);
  }
  std::vector<int32_t> acc(static_cast<size_t>(count));
  integer_product(p, a, b, {a_zero}, zb, acc.data());
  float* out = y.mutable_data<float>();
  const int64_t N = p.N;
  parallel_for(count / N, std::max<int64_t>(1, 16384 / N), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      for (int64_t n = 0; n < N; ++n) {
        const int64_t i = row * N + n;
        float v = static_cast<float>(acc[i]) * multiplier[multiplier.size() == 1 ? 0 : n];
        if (bias) v += bias[n];
        out[i] = v;
      }
    }
  });
}

CpuKernel make_matmul_integer_to_float(const NodeInfo&) {
  return [](OpContext& ctx) {
    for (size_t i : {0, 1, 2, 3}) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is required");
    }
    const Tensor& a = ctx.input(0);
    if (!is_8bit(a.dtype())) {
      ctx.fail("a must be int8 or uint8, got " + std::string(dtype_name(a.dtype())));
    }
    // A's parameters scale whole rows of the sum only when they are one value (ONNX Runtime
    // supports no other form either).
    check_float32(ctx, 2, "a_scale");
    const auto a_scale = static_cast<float>(params(ctx, 2, 0, false, "a_scale")[0]);
    const double za = zero_points(ctx, 4, a.dtype(), 0, false, "a_zero_point")[0];
    product_to_float(ctx, a, a_scale, za, Inputs{1, 3, 5, 6});
  };
}

CpuKernel make_dynamic_quantize_matmul(const NodeInfo&) {
  return [](OpContext& ctx) {
    for (size_t i : {0, 1, 2}) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is required");
    }
    const Tensor& a = ctx.input(0);
    if (a.dtype() != DataType::Float32) {
      ctx.fail("a must be float32, got " + std::string(dtype_name(a.dtype())));
    }
    const DynamicQuantParams q = dynamic_quant_params(a.data<float>(), a.element_count());
    Tensor qa = Tensor::zeros(DataType::UInt8, a.shape());
    dynamic_quantize_u8(a.data<float>(), a.element_count(), q, qa.mutable_data<uint8_t>());
    product_to_float(ctx, qa, q.scale, q.zero_point, Inputs{1, 2, 3, 4});
  };
}

}  // namespace

KILN_CPU_OPS(matmul_integer_to_float);
void register_matmul_integer_to_float_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "MatMulIntegerToFloat", make_matmul_integer_to_float);
  registry.add(ir::kMicrosoftDomain, "DynamicQuantizeMatMul", make_dynamic_quantize_matmul);
}

}  // namespace kiln
