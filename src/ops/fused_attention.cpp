// kiln::FusedAttention (opdefs/fused_attention.h) on the CPU: the operands are read in place
// through the strides their perms give, and Y written in place through y_perm, so the numeric
// core is cpu::attention_f32 alone. An operand whose last axis is not contiguous (K given as
// K^T, a mask broadcast along the keys) is first gathered into scratch.
#include <string>

#include "backends/cpu/attention_kernel.h"
#include "backends/cpu/strided_copy.h"
#include "kernels/op_registry.h"
#include "opdefs/fused_attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"

namespace kiln {
namespace {

// The operand `t` as [batch, heads, rows, columns] with contiguous columns: in place when its
// columns already are, else gathered into the scratch tagged Tag.
template <class Tag>
AttentionStrides contiguous_columns(const FusedAttentionGeometry& g, const AttentionStrides& s,
                                    int64_t rows, int64_t columns, const float*& data) {
  if (s.column == 1 || columns <= 1) return s;
  float* gathered =
      attn::scratch<float, Tag>(static_cast<size_t>(g.batch * g.heads * rows * columns));
  cpu::strided_copy_to_contiguous(DataType::Float32, Shape{g.batch, g.heads, rows, columns},
                                  gathered, data, Shape{s.batch, s.head, s.row, s.column});
  data = gathered;
  return {g.heads * rows * columns, rows * columns, columns, 1};
}

void run_fused_attention(OpContext& ctx, const FusedAttentionAttrs& a) {
  const bool has_mask = ctx.has_input(3);
  const char* names[] = {"Q", "K", "V", "the mask"};
  for (size_t i = 0; i < (has_mask ? 4u : 3u); ++i) {
    if (ctx.input(i).dtype() != DataType::Float32) {
      ctx.fail(std::string(names[i]) + " must be float32, got " +
               std::string(dtype_name(ctx.input(i).dtype())));
    }
  }
  const Tensor &q = ctx.input(0), &k = ctx.input(1), &v = ctx.input(2);
  const FusedAttentionGeometry g = resolve_fused_attention(
      ctx.node(), a, q.shape(), k.shape(), v.shape(), has_mask ? &ctx.input(3).shape() : nullptr);
  Tensor& y = ctx.allocate_output(0, DataType::Float32, g.y_shape);
  if (y.element_count() == 0) return;

  struct QTag {};
  struct KTag {};
  struct VTag {};
  struct MaskTag {};
  const float *qd = q.data<float>(), *kd = k.data<float>(), *vd = v.data<float>();
  const AttentionStrides qs = contiguous_columns<QTag>(g, g.q, g.q_len, g.head_size, qd);
  const AttentionStrides ks = contiguous_columns<KTag>(g, g.k, g.kv_len, g.head_size, kd);
  const AttentionStrides vs = contiguous_columns<VTag>(g, g.v, g.kv_len, g.v_head_size, vd);
  cpu::MaskView mask;
  if (has_mask) {
    const float* md = ctx.input(3).data<float>();
    const AttentionStrides ms = contiguous_columns<MaskTag>(g, g.mask, g.q_len, g.kv_len, md);
    mask = {md, ms.batch, ms.head, ms.row, g.kv_len};
  }
  cpu::AttentionParams params;
  params.scale = a.scale;
  const cpu::AttentionShape shape{g.batch,  g.heads,     g.heads,      g.q_len,
                                  g.kv_len, g.head_size, g.v_head_size};
  cpu::attention_f32(shape, params, {qd, qs.batch, qs.head, qs.row},
                     {kd, ks.batch, ks.head, ks.row}, {vd, vs.batch, vs.head, vs.row}, mask,
                     {y.mutable_data<float>(), g.y.batch, g.y.head, g.y.row});
}

CpuKernel make_fused_attention(const NodeInfo& info) {
  const FusedAttentionAttrs a = parse_fused_attention_attrs(info);
  return [=](OpContext& ctx) { run_fused_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(fused_attention);
void register_fused_attention_ops(OpRegistry& registry) {
  registry.add(kKilnDomain, kFusedAttentionOp, make_fused_attention);
}

}  // namespace kiln
