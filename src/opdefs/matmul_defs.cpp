// Gemm, MatMul (and ONNX Runtime's FusedMatMul) and the quantized MatMulInteger and QLinearMatMul
// (numpy matmul: 1-D operands are promoted and the promoted axis dropped again, batch axes
// broadcast).
#include <algorithm>

#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/matmul_bias.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

std::vector<ValueInfo> gemm_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a) return {};
  const std::vector<Dim>*sa = ctx.shape(0), *sb = ctx.shape(1);
  if (!sa || !sb || sa->size() != 2 || sb->size() != 2) return {dtype_only(a->dtype)};
  const Dim m = ctx.info().attr_int("transA", 0) ? (*sa)[1] : (*sa)[0];
  const Dim n = ctx.info().attr_int("transB", 0) ? (*sb)[0] : (*sb)[1];
  return {tensor_type(a->dtype, {m, n})};
}

// numpy matmul of inputs `ia` and `ib` as a tensor of `dtype`, with the last two dimensions of
// either operand transposed first when asked (never those of a 1-D operand).
std::vector<ValueInfo> matmul_of(const InferenceContext& ctx, size_t ia, size_t ib, DataType dtype,
                                 bool trans_a = false, bool trans_b = false) {
  const std::vector<Dim>*pa = ctx.shape(ia), *pb = ctx.shape(ib);
  if (!pa || !pb || pa->empty() || pb->empty()) return {dtype_only(dtype)};
  std::vector<Dim> sa = *pa, sb = *pb;
  if (trans_a && sa.size() >= 2) std::swap(sa[sa.size() - 1], sa[sa.size() - 2]);
  if (trans_b && sb.size() >= 2) std::swap(sb[sb.size() - 1], sb[sb.size() - 2]);
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), fixed_dim(1));
  if (b_vec) sb.push_back(fixed_dim(1));
  std::vector<Dim> out;
  const size_t ra = sa.size() - 2, rb = sb.size() - 2, r = std::max(ra, rb);
  for (size_t i = 0; i < r; ++i) {
    const Dim da = i < r - ra ? fixed_dim(1) : sa[i - (r - ra)];
    const Dim db = i < r - rb ? fixed_dim(1) : sb[i - (r - rb)];
    out.push_back(broadcast_dim(da, db));
  }
  if (!a_vec) out.push_back(sa[sa.size() - 2]);
  if (!b_vec) out.push_back(sb.back());
  return {tensor_type(dtype, out)};
}

std::vector<ValueInfo> matmul_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a || !ctx.input(1)) return {};
  return matmul_of(ctx, 0, 1, a->dtype);
}

// FusedMatMul (com.microsoft): alpha * op(A) * op(B).
std::vector<ValueInfo> fused_matmul_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a || !ctx.input(1)) return {};
  return matmul_of(ctx, 0, 1, a->dtype, ctx.info().attr_int("transA", 0) != 0,
                   ctx.info().attr_int("transB", 0) != 0);
}

// The integer product: int32 whatever the 8-bit operands.
std::vector<ValueInfo> matmul_integer_rule(const InferenceContext& ctx) {
  if (!ctx.input(0) || !ctx.input(1)) return {};
  return matmul_of(ctx, 0, 1, DataType::Int32);
}

// MatMulIntegerToFloat(A, B, ...) and DynamicQuantizeMatMul(A, B, ...) (com.microsoft): the
// product of A and B, in float32.
std::vector<ValueInfo> matmul_to_float_rule(const InferenceContext& ctx) {
  if (!ctx.input(0) || !ctx.input(1)) return {};
  return matmul_of(ctx, 0, 1, DataType::Float32);
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
// y has y_zero_point's type, a's when it is absent.
std::vector<ValueInfo> qlinear_matmul_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a || !ctx.input(3)) return {};
  const bool has_zero_point = ctx.num_inputs() > 7 && !ctx.node().inputs[7].empty();
  if (has_zero_point && !ctx.input(7)) return {};
  return matmul_of(ctx, 0, 3, has_zero_point ? ctx.input(7)->dtype : a->dtype);
}

// Det([*, M, M]): one determinant per matrix, [*].
std::vector<ValueInfo> det_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() < 2) return {dtype_only(x->dtype)};
  return {tensor_type(x->dtype, std::vector<Dim>(xs->begin(), xs->end() - 2))};
}

}  // namespace

KILN_OP_DEFS(matmul);
void define_matmul_ops(OpDefs& defs) {
  defs.define("Gemm").infer = gemm_rule;
  defs.define("MatMul").infer = matmul_rule;
  // The bias, the residual and the activation keep the product's shape.
  defs.define(kKilnDomain, kMatMulBiasOp).infer = matmul_rule;
  defs.define(kKilnDomain, kFusedGemmOp).infer = gemm_rule;
  defs.define(ir::kMicrosoftDomain, "FusedMatMul").infer = fused_matmul_rule;
  defs.define("MatMulInteger").infer = matmul_integer_rule;
  defs.define(ir::kMicrosoftDomain, "MatMulIntegerToFloat").infer = matmul_to_float_rule;
  defs.define(ir::kMicrosoftDomain, "DynamicQuantizeMatMul").infer = matmul_to_float_rule;
  defs.define("Det").infer = det_rule;
  defs.define("QLinearMatMul").infer = qlinear_matmul_rule;
}

}  // namespace kiln
