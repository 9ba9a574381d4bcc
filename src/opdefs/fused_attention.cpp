#include "opdefs/fused_attention.h"

#include <algorithm>
#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/broadcast.h"
#include "opdefs/node_info.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// Whether `perm` (empty: identity) reorders the `rank` axes of an input.
bool is_permutation_of(const std::vector<int64_t>& perm, size_t rank) {
  if (perm.empty()) return true;
  if (perm.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) return false;
    seen[static_cast<size_t>(p)] = true;
  }
  return true;
}

size_t axis_of(const std::vector<int64_t>& perm, size_t i) {
  return perm.empty() ? i : static_cast<size_t>(perm[i]);
}

// An operand as its logical tensor: the input's dims and strides in `perm`'s order.
struct Logical {
  std::vector<int64_t> dims, strides;
  size_t batch_rank() const { return dims.size() - 2; }
  int64_t rows() const { return dims[dims.size() - 2]; }
  int64_t columns() const { return dims.back(); }
};

Logical logical(const ir::Node& node, const char* what, const Shape& shape,
                const std::vector<int64_t>& perm) {
  if (shape.rank() < 2 || shape.rank() > 4) {
    throw Error(node.describe() + ": " + what + " must have rank 2 to 4, got " + shape.to_string());
  }
  if (!is_permutation_of(perm, shape.rank())) {
    throw Error(node.describe() + ": the perm of " + what + " does not reorder its " +
                std::to_string(shape.rank()) + " axes");
  }
  const Shape strides = strides_of(shape);
  Logical l;
  for (size_t i = 0; i < shape.rank(); ++i) {
    l.dims.push_back(shape[axis_of(perm, i)]);
    l.strides.push_back(strides[axis_of(perm, i)]);
  }
  return l;
}

// The batch and head strides of `l` broadcast to `batch` (right-aligned, stride 0 where `l` has
// size 1 or no axis); kiln::Error when a size neither matches nor is 1.
void broadcast_batch(const ir::Node& node, const char* what, const Logical& l,
                     const std::vector<int64_t>& batch, AttentionStrides& s) {
  int64_t strides[2] = {0, 0};  // of the batch and head slots
  const size_t offset = batch.size() - l.batch_rank();
  for (size_t i = 0; i < l.batch_rank(); ++i) {
    const size_t out = i + offset;
    if (l.dims[i] != batch[out] && l.dims[i] != 1) {
      throw Error(node.describe() + ": " + what +
                  "'s batch axes do not broadcast with the others'");
    }
    strides[out + 2 - batch.size()] = l.dims[i] == 1 ? 0 : l.strides[i];
  }
  s.batch = strides[0];
  s.head = strides[1];
  s.row = l.strides[l.dims.size() - 2];
  s.column = l.strides.back();
}

std::vector<ValueInfo> fused_attention_rule(const InferenceContext& ctx) {
  const ValueInfo* q = ctx.input(0);
  if (!q) return {};
  const FusedAttentionAttrs a = parse_fused_attention_attrs(ctx.info());
  const std::vector<int64_t>* perms[] = {&a.q_perm, &a.k_perm, &a.v_perm, nullptr};
  std::vector<std::vector<Dim>> operands;
  for (size_t i = 0; i < 4; ++i) {
    if (i == 3 && (ctx.num_inputs() < 4 || ctx.node().inputs[3].empty())) break;
    const std::vector<Dim>* shape = ctx.shape(i);
    // A 1-D mask is one row for every query.
    const size_t min_rank = i == 3 ? 1 : 2;
    if (!shape || shape->size() < min_rank || shape->size() > 4) return {dtype_only(q->dtype)};
    const std::vector<int64_t> none;
    const std::vector<int64_t>& perm = perms[i] ? *perms[i] : none;
    if (!is_permutation_of(perm, shape->size())) return {dtype_only(q->dtype)};
    std::vector<Dim> dims;
    for (size_t d = 0; d < shape->size(); ++d) dims.push_back((*shape)[axis_of(perm, d)]);
    operands.push_back(std::move(dims));
  }
  size_t rank = 2;
  for (const auto& o : operands) rank = std::max(rank, o.size());
  std::vector<Dim> result(rank - 2, fixed_dim(1));
  for (const auto& o : operands) {
    for (size_t i = 0; i + 2 < o.size(); ++i) {
      Dim& out = result[i + rank - o.size()];
      out = broadcast_dim(out, o[i]);
    }
  }
  result.push_back(operands[0][operands[0].size() - 2]);  // q_len
  result.push_back(operands[2].back());                   // v_head_size
  if (!is_permutation_of(a.y_perm, rank)) return {dtype_only(q->dtype)};
  std::vector<Dim> y;
  for (size_t i = 0; i < rank; ++i) y.push_back(result[axis_of(a.y_perm, i)]);
  return {tensor_type(q->dtype, y)};
}

}  // namespace

FusedAttentionAttrs parse_fused_attention_attrs(const NodeInfo& info) {
  FusedAttentionAttrs a;
  a.scale = info.attr_float("scale", 1.0f);
  a.q_perm = info.attr_ints("q_perm");
  a.k_perm = info.attr_ints("k_perm");
  a.v_perm = info.attr_ints("v_perm");
  a.y_perm = info.attr_ints("y_perm");
  return a;
}

FusedAttentionGeometry resolve_fused_attention(const ir::Node& node, const FusedAttentionAttrs& a,
                                               const Shape& q, const Shape& k, const Shape& v,
                                               const Shape* mask) {
  const Logical lq = logical(node, "Q", q, a.q_perm);
  const Logical lk = logical(node, "K", k, a.k_perm);
  const Logical lv = logical(node, "V", v, a.v_perm);
  // A 1-D mask is one row for every query.
  const Shape mask_2d = mask && mask->rank() == 1 ? Shape{1, (*mask)[0]} : mask ? *mask : Shape{};
  const Logical lm = mask ? logical(node, "the mask", mask_2d, {}) : Logical{};
  FusedAttentionGeometry g;
  g.q_len = lq.rows();
  g.kv_len = lk.rows();
  g.head_size = lq.columns();
  g.v_head_size = lv.columns();
  if (lk.columns() != g.head_size || lv.rows() != g.kv_len) {
    throw Error(node.describe() + ": Q " + q.to_string() + ", K " + k.to_string() + " and V " +
                v.to_string() + " do not multiply (after their perms)");
  }
  if (mask && ((lm.rows() != 1 && lm.rows() != g.q_len) || lm.columns() != g.kv_len)) {
    throw Error(node.describe() + ": the mask " + mask->to_string() +
                " does not broadcast to the scores [..., " + std::to_string(g.q_len) + ", " +
                std::to_string(g.kv_len) + "]");
  }

  size_t rank = std::max({lq.dims.size(), lk.dims.size(), lv.dims.size()});
  if (mask) rank = std::max(rank, lm.dims.size());
  std::vector<int64_t> batch(rank - 2, 1);
  for (const Logical* l : {&lq, &lk, &lv, mask ? &lm : nullptr}) {
    if (!l) continue;
    for (size_t i = 0; i < l->batch_rank(); ++i) {
      int64_t& out = batch[i + batch.size() - l->batch_rank()];
      if (out == 1) out = l->dims[i];
    }
  }
  broadcast_batch(node, "Q", lq, batch, g.q);
  broadcast_batch(node, "K", lk, batch, g.k);
  broadcast_batch(node, "V", lv, batch, g.v);
  if (mask) broadcast_batch(node, "the mask", lm, batch, g.mask);
  if (mask && lm.rows() == 1) g.mask.row = 0;
  if (batch.size() == 2) g.batch = batch[0];
  if (!batch.empty()) g.heads = batch.back();

  // Y: the result [batch..., q_len, v_head_size] written through y_perm.
  const bool keeps_last = a.y_perm.empty() || a.y_perm.back() == static_cast<int64_t>(rank) - 1;
  if (!is_permutation_of(a.y_perm, rank) || !keeps_last) {
    throw Error(node.describe() + ": y_perm must reorder the output's " + std::to_string(rank) +
                " axes and keep the last one last");
  }
  std::vector<int64_t> result = batch;
  result.push_back(g.q_len);
  result.push_back(g.v_head_size);
  for (size_t i = 0; i < rank; ++i) g.y_shape.push_back(result[axis_of(a.y_perm, i)]);
  const Shape y_strides = strides_of(g.y_shape);
  Logical ly;
  ly.dims = result;
  ly.strides.resize(rank);
  for (size_t i = 0; i < rank; ++i) ly.strides[axis_of(a.y_perm, i)] = y_strides[i];
  broadcast_batch(node, "Y", ly, batch, g.y);
  return g;
}

KILN_OP_DEFS(fused_attention);
void define_fused_attention_ops(OpDefs& defs) {
  defs.define(kKilnDomain, kFusedAttentionOp).infer = fused_attention_rule;
}

}  // namespace kiln
