// MatMul, Gemm, MatMulInteger and Einsum; and ONNX Runtime's FusedMatMul (com.microsoft).
//
// Float32 products go through kiln's GEMM (weights known at load time are packed once there);
// the other element types use a plain reference loop that accumulates in float for the 16-bit
// floats and in the element type otherwise. Einsum's parsing is its definition's
// (opdefs/einsum.h), its contraction backends/cpu/einsum.h's.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/activation_epilogue.h"
#include "backends/cpu/einsum.h"
#include "backends/cpu/gemm.h"
#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/fused_activation.h"
#include "opdefs/matmul_bias.h"
#include "opdefs/qlinear_matmul.h"
#include "ops/all_ops.h"
#include "ops/integer_product.h"
#include "ops/matmul_geometry.h"
#include "ops/op_utils.h"
#include "ops/shared_packed_weights.h"

namespace kiln {
namespace {

template <class T>
using Acc = std::conditional_t<is_small_float_v<T>, float, T>;

template <class T>
constexpr bool is_matmul_type_v = (is_float_like_v<T> || is_plain_int_v<T>);

template <class T>
Acc<T> widen(T v) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// A per-thread row of accumulators that only grows, so steady-state runs do not allocate.
template <class A>
A* scratch_row(int64_t n) {
  thread_local std::vector<A> row;
  if (row.size() < static_cast<size_t>(n)) row.resize(static_cast<size_t>(n));
  return row.data();
}

// C (M x N, ldc) = alpha * op(A) * op(B) + beta * C for any supported type: row by row, with
// the k loop outside the n loop so that B and C are read contiguously when not transposed.
// beta == 0 means C is not read.
template <class T>
void reference_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, Acc<T> alpha,
                    const T* A, int64_t lda, const T* B, int64_t ldb, Acc<T> beta, T* C,
                    int64_t ldc) {
  using A_t = Acc<T>;
  const int64_t grain =
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, N * std::max<int64_t>(K, 1)));
  parallel_for(M, grain, [&](int64_t begin, int64_t end) {
    A_t* acc = scratch_row<A_t>(N);
    for (int64_t m = begin; m < end; ++m) {
      std::fill_n(acc, N, A_t(0));
      for (int64_t k = 0; k < K; ++k) {
        const A_t a = widen(trans_a ? A[k * lda + m] : A[m * lda + k]);
        if (trans_b) {
          for (int64_t n = 0; n < N; ++n) acc[n] += a * widen(B[n * ldb + k]);
        } else {
          const T* b = B + k * ldb;
          for (int64_t n = 0; n < N; ++n) acc[n] += a * widen(b[n]);
        }
      }
      T* c = C + m * ldc;
      for (int64_t n = 0; n < N; ++n) {
        A_t v = alpha * acc[n];
        if (beta != A_t(0)) v += beta * widen(c[n]);
        c[n] = static_cast<T>(v);
      }
    }
  });
}

bool is_supported_matmul_dtype(DataType t) {
  return visit_dtype(t, [&]<class T>() { return is_matmul_type_v<T>; });
}

bool is_float_type(DataType t) {
  return visit_dtype(t, [&]<class T>() { return is_float_like_v<T>; });
}

// --- MatMul -------------------------------------------------------------------------------

// MatMul is the plain product; ONNX Runtime's FusedMatMul (com.microsoft) adds alpha and the
// transposition of either operand's last two dimensions (an operand of rank 1 is never
// transposed).
struct MatMulAttrs {
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f;
  bool floats_only = false;  // FusedMatMul is defined for float types only
  // kiln::MatMulBias (opdefs/matmul_bias.h): input 2, a float32 [N] bias added to every row;
  // input 3, a residual of the output's shape; then the activation.
  bool epilogue = false;
  ActivationAttrs activation;
};

CpuKernel make_matmul_with(const NodeInfo& info, MatMulAttrs attrs) {
  std::shared_ptr<const PackedWeights> weights;
  const Tensor* b_const = info.constant_input(1);
  if (b_const && b_const->dtype() == DataType::Float32 && b_const->rank() >= 1 &&
      b_const->rank() <= 2 && b_const->element_count() > 0) {
    const bool tb = attrs.trans_b && b_const->rank() == 2;
    const int64_t rows = b_const->shape()[0];
    const int64_t cols = b_const->rank() == 1 ? 1 : b_const->shape()[1];
    // op(B) is K x N: B itself, or B transposed.
    weights = shared_packed_b(*b_const, tb, tb ? cols : rows, tb ? rows : cols, cols);
  }
  return [weights, attrs](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) {
      ctx.fail("operands have different types: " + std::string(dtype_name(a.dtype())) + " and " +
               std::string(dtype_name(b.dtype())));
    }
    if (!is_supported_matmul_dtype(a.dtype()) || (attrs.floats_only && !is_float_type(a.dtype()))) {
      ctx.fail("does not support " + std::string(dtype_name(a.dtype())) + " operands");
    }
    // The geometry of op(A) * op(B); the operands keep their stored layout.
    Shape as = a.shape(), bs = b.shape();
    const bool ta = attrs.trans_a && as.size() >= 2, tb = attrs.trans_b && bs.size() >= 2;
    if (ta) std::swap(as[as.size() - 1], as[as.size() - 2]);
    if (tb) std::swap(bs[bs.size() - 1], bs[bs.size() - 2]);
    const MatMulGeometry g = matmul_geometry(ctx, as, bs);
    Tensor& y = ctx.allocate_output(0, a.dtype(), g.out);
    const int64_t M = g.M, N = g.N, K = g.K;
    const int64_t lda = ta ? M : K, ldb = tb ? K : N;
    if (y.element_count() == 0) return;
    const int64_t batches = g.batch.element_count();
    const float* bias = nullptr;
    const Tensor* residual = nullptr;
    if (attrs.epilogue) {
      if (a.dtype() != DataType::Float32) {
        ctx.fail("takes float32 operands, got " + std::string(dtype_name(a.dtype())));
      }
      if (ctx.has_input(2)) {
        const Tensor& c = ctx.input(2);
        if (c.dtype() != DataType::Float32 || c.element_count() != N || c.rank() != 1) {
          ctx.fail("takes a float32 bias of shape [" + std::to_string(N) + "], got " +
                   std::string(dtype_name(c.dtype())) + c.shape().to_string());
        }
        bias = c.data<float>();
      }
      if (ctx.has_input(3)) {
        residual = &ctx.input(3);
        if (residual->dtype() != DataType::Float32 || residual->shape() != g.out) {
          ctx.fail("takes a float32 residual of the output's shape " + g.out.to_string() +
                   ", got " + std::string(dtype_name(residual->dtype())) +
                   residual->shape().to_string());
        }
      }
    }

    if (a.dtype() == DataType::Float32) {
      const float* pa = a.data<float>();
      const float* pb = b.data<float>();
      float* py = y.mutable_data<float>();
      cpu::GemmEpilogue epilogue;
      epilogue.alpha = attrs.alpha;
      if (bias) {
        epilogue.bias_kind = cpu::GemmBias::kPerColumn;
        epilogue.bias = bias;
      }
      if (residual) {
        // Z is added as beta * C: Y starts as Z.
        std::copy_n(residual->data<float>(), y.element_count(), py);
        epilogue.beta = 1.0f;
      }
      cpu::set_gemm_activation(attrs.activation, epilogue);
      if (!g.b_has_batch && !ta) {
        // One B for every batch: A's batches (contiguous, as only A has batch dimensions)
        // stack into one tall matrix and the output is one [batches * M, N] block.
        if (weights && weights->shape == b.shape()) {
          cpu::sgemm_packed(false, batches * M, pa, K, weights->packed, py, N, epilogue);
        } else {
          cpu::sgemm(false, tb, batches * M, N, K, pa, K, pb, ldb, py, N, epilogue);
        }
        return;
      }
      auto product = [&](int64_t i) {
        const BatchOffsets o = batch_offsets(g, i);
        cpu::sgemm(ta, tb, M, N, K, pa + o.a, lda, pb + o.b, ldb, py + i * M * N, N, epilogue);
      };
      if (M * N * K < 64 * 64 * 64) {
        // Many small products: one whole GEMM per task beats splitting each one.
        parallel_for(batches, 1, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) product(i);
        });
      } else {
        for (int64_t i = 0; i < batches; ++i) product(i);
      }
      return;
    }
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (is_matmul_type_v<T>) {
        const T* pa = a.data<T>();
        const T* pb = b.data<T>();
        T* py = y.mutable_data<T>();
        for (int64_t i = 0; i < batches; ++i) {
          const BatchOffsets o = batch_offsets(g, i);
          reference_gemm<T>(ta, tb, M, N, K, static_cast<Acc<T>>(attrs.alpha), pa + o.a, lda,
                            pb + o.b, ldb, Acc<T>(0), py + i * M * N, N);
        }
      }
    });
  };
}

CpuKernel make_matmul(const NodeInfo& info) { return make_matmul_with(info, {}); }

CpuKernel make_matmul_bias(const NodeInfo& info) {
  if (info.num_inputs() < 2 || info.num_inputs() > 4) {
    info.fail("takes A, B, a bias and a residual (the last two optional)");
  }
  MatMulAttrs attrs;
  attrs.epilogue = true;
  attrs.activation = parse_activation_attrs(info);
  return make_matmul_with(info, attrs);
}

CpuKernel make_fused_matmul(const NodeInfo& info) {
  MatMulAttrs attrs;
  attrs.floats_only = true;
  attrs.trans_a = info.attr_int("transA", 0) != 0;
  attrs.trans_b = info.attr_int("transB", 0) != 0;
  attrs.alpha = info.attr_float("alpha", 1.0f);
  for (const char* batch_attr : {"transBatchA", "transBatchB"}) {
    if (info.attr_int(batch_attr, 0) != 0) {
      info.fail(std::string(batch_attr) + "=1 (moving the batch dimensions) is not supported");
    }
  }
  return make_matmul_with(info, attrs);
}

// --- Gemm ---------------------------------------------------------------------------------

struct GemmAttrs {
  float alpha = 1.0f, beta = 1.0f;
  bool trans_a = false, trans_b = false;
};

// C must broadcast to [M, N] in one direction (numpy rules, right-aligned).
void check_c_shape(const OpContext& ctx, const Shape& c, int64_t M, int64_t N) {
  const bool ok = c.size() <= 2 && (c.size() < 1 || c.back() == N || c.back() == 1) &&
                  (c.size() < 2 || c[0] == M || c[0] == 1);
  if (!ok) {
    ctx.fail("C of shape " + c.to_string() + " does not broadcast to the output [" +
             std::to_string(M) + ", " + std::to_string(N) + "]");
  }
}

// Y[m, n] = C broadcast to [M, N].
template <class T>
void broadcast_c(const T* c, const Shape& c_shape, int64_t M, int64_t N, T* y) {
  const int64_t rs = c_shape.size() == 2 && c_shape[0] != 1 ? c_shape.back() : 0;
  const int64_t cs = !c_shape.empty() && c_shape.back() != 1 ? 1 : 0;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) y[m * N + n] = c[m * rs + n * cs];
  }
}

// Gemm, and kiln::FusedGemm with its activation (opdefs/matmul_bias.h).
CpuKernel make_gemm_with(const NodeInfo& info, const ActivationAttrs& activation) {
  GemmAttrs at;
  at.alpha = info.attr_float("alpha", 1.0f);
  at.beta = info.attr_float("beta", 1.0f);
  at.trans_a = info.attr_int("transA", 0) != 0;
  at.trans_b = info.attr_int("transB", 0) != 0;
  // Before opset 7 C broadcasts only with broadcast=1; kiln accepts a broadcastable C either
  // way, since a model that relies on the error is not a model anyone runs.

  std::shared_ptr<const PackedWeights> weights;
  const Tensor* b_const = info.constant_input(1);
  if (b_const && b_const->dtype() == DataType::Float32 && b_const->rank() == 2 &&
      b_const->element_count() > 0) {
    const Shape& shape = b_const->shape();
    const int64_t K = at.trans_b ? shape[1] : shape[0];
    const int64_t N = at.trans_b ? shape[0] : shape[1];
    weights = shared_packed_b(*b_const, at.trans_b, K, N, shape[1]);
  }
  // A constant per-column C (shape [N] or [1, N]) becomes the epilogue's bias, pre-scaled by
  // beta, so that the common Linear layer is one fused GEMM.
  std::shared_ptr<const std::vector<float>> bias;
  const Tensor* c_const = info.constant_input(2);
  if (c_const && c_const->dtype() == DataType::Float32 && c_const->rank() >= 1 &&
      c_const->rank() <= 2 && (c_const->rank() == 1 || c_const->shape()[0] == 1) &&
      c_const->shape().back() > 1) {
    auto v = std::make_shared<std::vector<float>>(c_const->to_vector<float>());
    for (float& x : *v) x *= at.beta;
    bias = std::move(v);
  }

  return [at, weights, bias, activation](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) {
      ctx.fail("A and B must be 2-D, got " + a.shape().to_string() + " and " +
               b.shape().to_string());
    }
    if (a.dtype() != b.dtype()) {
      ctx.fail("A and B have different types: " + std::string(dtype_name(a.dtype())) + " and " +
               std::string(dtype_name(b.dtype())));
    }
    if (!is_supported_matmul_dtype(a.dtype()) ||
        (activation.activation != FusedActivation::kNone && a.dtype() != DataType::Float32)) {
      ctx.fail("does not support " + std::string(dtype_name(a.dtype())) + " operands");
    }
    const int64_t M = at.trans_a ? a.shape()[1] : a.shape()[0];
    const int64_t K = at.trans_a ? a.shape()[0] : a.shape()[1];
    const int64_t kb = at.trans_b ? b.shape()[1] : b.shape()[0];
    const int64_t N = at.trans_b ? b.shape()[0] : b.shape()[1];
    if (K != kb) {
      ctx.fail("inner dimensions differ: A is " + a.shape().to_string() +
               (at.trans_a ? " (transposed)" : "") + ", B is " + b.shape().to_string() +
               (at.trans_b ? " (transposed)" : ""));
    }
    const bool has_c = ctx.has_input(2) && at.beta != 0.0f;
    if (ctx.has_input(2)) {
      const Tensor& c = ctx.input(2);
      if (c.dtype() != a.dtype()) ctx.fail("C's type differs from A's");
      check_c_shape(ctx, c.shape(), M, N);
    }
    Tensor& y = ctx.allocate_output(0, a.dtype(), Shape{M, N});
    if (M * N == 0) return;
    const int64_t lda = a.shape()[1], ldb = b.shape()[1];

    if (a.dtype() == DataType::Float32) {
      const float* pa = a.data<float>();
      float* py = y.mutable_data<float>();
      cpu::GemmEpilogue ep;
      ep.alpha = at.alpha;
      if (has_c) {
        const Tensor& c = ctx.input(2);
        const Shape& cs = c.shape();
        const bool per_column = !cs.empty() && cs.back() == N && (cs.size() == 1 || cs[0] == 1);
        const bool per_row = cs.size() == 2 && cs[0] == M && cs[1] == 1 && M > 1;
        if (per_column && bias && static_cast<int64_t>(bias->size()) == N) {
          ep.bias_kind = cpu::GemmBias::kPerColumn;
          ep.bias = bias->data();
        } else if (per_column && at.beta == 1.0f) {
          ep.bias_kind = cpu::GemmBias::kPerColumn;
          ep.bias = c.data<float>();
        } else if (per_row && at.beta == 1.0f) {
          ep.bias_kind = cpu::GemmBias::kPerRow;
          ep.bias = c.data<float>();
        } else {
          broadcast_c(c.data<float>(), cs, M, N, py);
          ep.beta = at.beta;
        }
      }
      cpu::set_gemm_activation(activation, ep);
      if (weights && weights->shape == b.shape()) {
        cpu::sgemm_packed(at.trans_a, M, pa, lda, weights->packed, py, N, ep);
      } else {
        cpu::sgemm(at.trans_a, at.trans_b, M, N, K, pa, lda, b.data<float>(), ldb, py, N, ep);
      }
      return;
    }
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (is_matmul_type_v<T>) {
        T* py = y.mutable_data<T>();
        if (has_c) broadcast_c(ctx.input(2).data<T>(), ctx.input(2).shape(), M, N, py);
        reference_gemm<T>(at.trans_a, at.trans_b, M, N, K, static_cast<Acc<T>>(at.alpha),
                          a.data<T>(), lda, b.data<T>(), ldb,
                          has_c ? static_cast<Acc<T>>(at.beta) : Acc<T>(0), py, N);
      }
    });
  };
}

CpuKernel make_gemm(const NodeInfo& info) { return make_gemm_with(info, {}); }

CpuKernel make_fused_gemm(const NodeInfo& info) {
  return make_gemm_with(info, parse_activation_attrs(info));
}

// --- MatMulInteger -------------------------------------------------------------------------

CpuKernel make_matmul_integer(const NodeInfo&) {
  return [](OpContext& ctx) {
    const NodeInputs inputs{ctx.node(), ctx.inputs()};
    check_matmul_integer_operands(inputs);
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const MatMulGeometry g = matmul_geometry(ctx, a.shape(), b.shape());
    const int64_t a_batches = a.element_count() / std::max<int64_t>(1, g.M * g.K);
    const int64_t b_batches = b.element_count() / std::max<int64_t>(1, g.K * g.N);
    const std::vector<double> za = matmul_integer_zero_points(inputs, 2, g.M, a_batches);
    const std::vector<double> zb = matmul_integer_zero_points(inputs, 3, g.N, b_batches);
    Tensor& y = ctx.allocate_output(0, DataType::Int32, g.out);
    if (y.element_count() == 0) return;
    integer_product(g, a, b, za, zb, y.mutable_data<int32_t>());
  };
}

// --- Einsum -------------------------------------------------------------------------------

CpuKernel make_einsum(const NodeInfo& info) {
  std::shared_ptr<const EinsumEquation> eq;
  try {
    eq = std::make_shared<const EinsumEquation>(
        parse_einsum(info.attr_string("equation", ""), info.num_inputs()));
  } catch (const Error& e) {
    info.fail(e.what());
  }
  return [eq](OpContext& ctx) {
    // Operands as pointers; per-thread storage that only grows.
    thread_local std::vector<const Tensor*> operands;
    operands.clear();
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is missing");
      operands.push_back(&ctx.input(i));
      if (ctx.input(i).dtype() != ctx.input(0).dtype()) ctx.fail("operands have different types");
    }
    if (operands.empty()) ctx.fail("needs at least one operand");
    if (!is_supported_matmul_dtype(operands[0]->dtype())) {
      ctx.fail("does not support " + std::string(dtype_name(operands[0]->dtype())) + " operands");
    }
    try {
      const Shape out_shape = cpu::einsum_output_shape(*eq, operands);
      Tensor& y = ctx.allocate_output(0, operands[0]->dtype(), out_shape);
      cpu::einsum(*eq, operands, y);
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
  };
}

}  // namespace

KILN_CPU_OPS(matmul);
void register_matmul_ops(OpRegistry& registry) {
  registry.add("MatMul", make_matmul);
  registry.add(kKilnDomain, kMatMulBiasOp, make_matmul_bias);
  registry.add(kKilnDomain, kFusedGemmOp, make_fused_gemm);
  registry.add(ir::kMicrosoftDomain, "FusedMatMul", make_fused_matmul);
  registry.add("Gemm", make_gemm);
  registry.add("MatMulInteger", make_matmul_integer);
  registry.add("Einsum", make_einsum);
}

}  // namespace kiln
