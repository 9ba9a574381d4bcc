// Gemm and MatMul (numpy matmul: 1-D operands are promoted and the promoted axis dropped again,
// batch axes broadcast).
#include <algorithm>

#include "opdefs/all_defs.h"
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

std::vector<ValueInfo> matmul_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a || !ctx.input(1)) return {};
  const std::vector<Dim>*pa = ctx.shape(0), *pb = ctx.shape(1);
  if (!pa || !pb || pa->empty() || pb->empty()) return {dtype_only(a->dtype)};
  std::vector<Dim> sa = *pa, sb = *pb;
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
  return {tensor_type(a->dtype, out)};
}

}  // namespace

void define_matmul_ops(OpDefs& defs) {
  defs.define("Gemm").infer = gemm_rule;
  defs.define("MatMul").infer = matmul_rule;
}

}  // namespace kiln
