// Attention (com.microsoft): BERT's and GPT-2's self-attention with its input projection.
//
//   input [batch, seq, input_hidden] x weights [input_hidden, hidden + hidden + v_hidden]
//   (+ bias) gives Q, K and V (qkv_hidden_sizes when V's width differs); mask_index (int32) is
//   [batch] key lengths, [2 * batch] end positions then start positions (left padding),
//   [batch, total], [batch, seq, total] of 0/1, or [batch, 1, max, max] of 0/1 read at rows
//   past..past + seq; past [2, batch, num_heads, past, head] -> present [2, batch, num_heads,
//   past + seq, head]; attention_bias [batch or 1, num_heads or 1, seq, total]; unidirectional
//   hides later keys.
//
// ONNX Runtime's CPU kernel refuses the 4-D mask (its CUDA kernel reads it as here).
#include <cmath>
#include <string>

#include "backends/cpu/gemm.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/ms_attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/ms_attention_common.h"

namespace kiln {
namespace {

using attn::scratch;

enum Input : size_t {
  kInput,
  kWeights,
  kBias,
  kMaskIndex,
  kPast,
  kAttentionBias,
  kPastSequenceLength,
};

struct InTag {};
struct WeightTag {};
struct BiasTag {};
struct QkvTag {};
struct PastTag {};
struct PresentTag {};
struct OutTag {};

void run_ms_attention(OpContext& ctx, const MsAttentionAttrs& a) {
  if (ctx.has_input(kPastSequenceLength)) {
    ctx.fail("past_sequence_length (shared past/present buffers) is not supported");
  }
  const Tensor &x = ctx.input(kInput), &w = ctx.input(kWeights);
  attn::require_float(ctx, x, "input");
  if (w.dtype() != x.dtype()) ctx.fail("weights must have the input's element type");
  const Shape &xs = x.shape(), &ws = w.shape();
  if (xs.size() != 3) ctx.fail("input must be [batch, seq, input_hidden], got " + xs.to_string());
  if (ws.size() != 2 || ws[0] != xs[2]) {
    ctx.fail("weights must be [" + std::to_string(xs[2]) + ", hidden + hidden + v_hidden], got " +
             ws.to_string());
  }
  const int64_t heads = a.common.num_heads;
  int64_t dq = 0, dv = 0;
  if (a.qkv_hidden_sizes.empty()) {
    if (ws[1] % (3 * heads) != 0) {
      ctx.fail("the weights' width " + std::to_string(ws[1]) + " is not 3 * num_heads * head");
    }
    dq = dv = ws[1] / 3;
  } else {
    dq = a.qkv_hidden_sizes[0];
    dv = a.qkv_hidden_sizes[2];
    if (2 * dq + dv != ws[1]) {
      ctx.fail("qkv_hidden_sizes add up to " + std::to_string(2 * dq + dv) +
               ", not the weights' width " + std::to_string(ws[1]));
    }
  }
  const int64_t width = ws[1];
  msattn::Problem p;
  p.batch = xs[0];
  p.heads = heads;
  p.q_len = p.kv_len = xs[1];
  p.head = dq / heads;
  p.v_head = dv / heads;

  // Q, K and V side by side: qkv [batch * seq, width] = input x weights + bias.
  const int64_t tokens = p.batch * p.q_len;
  float* qkv = scratch<float, QkvTag>(tokens * width);
  if (ctx.has_input(kBias)) {
    const Tensor& b = ctx.input(kBias);
    if (b.dtype() != x.dtype() || b.shape() != Shape{width}) {
      ctx.fail("bias must be [" + std::to_string(width) + "] of the input's element type, got " +
               b.to_string(0));
    }
    const float* bias = attn::as_float(b, scratch<float, BiasTag>(width));
    for (int64_t t = 0; t < tokens; ++t) std::copy(bias, bias + width, qkv + t * width);
  }
  const float* xf = attn::as_float(x, scratch<float, InTag>(x.element_count()));
  const float* wf = attn::as_float(w, scratch<float, WeightTag>(w.element_count()));
  cpu::sgemm(false, false, tokens, width, xs[2], 1.0f, xf, xs[2], wf, width,
             ctx.has_input(kBias) ? 1.0f : 0.0f, qkv, width);
  const int64_t batch_stride = p.q_len * width;
  cpu::HeadView q{qkv, batch_stride, p.head, width};
  cpu::HeadView k{qkv + dq, batch_stride, p.head, width};
  cpu::HeadView v{qkv + 2 * dq, batch_stride, p.v_head, width};

  const bool wants_present = ctx.num_outputs() > 1 && ctx.wants_output(1);
  const float* past = nullptr;
  if (ctx.has_input(kPast)) {
    const Tensor& pt = ctx.input(kPast);
    const Shape& ps = pt.shape();
    if (ps.size() != 5 || ps[0] != 2 || ps[1] != p.batch || ps[2] != heads || ps[4] != p.head ||
        pt.dtype() != x.dtype()) {
      ctx.fail("past must be [2, " + std::to_string(p.batch) + ", " + std::to_string(heads) +
               ", past, " + std::to_string(p.head) + "] of the input's element type, got " +
               pt.to_string(0));
    }
    p.past = ps[3];
    past = attn::as_float(pt, scratch<float, PastTag>(pt.element_count()));
  }
  if ((past != nullptr || wants_present) && p.head != p.v_head) {
    ctx.fail("past and present need Q, K and V of one hidden size");
  }
  if (past != nullptr || wants_present) {
    const Shape shape{2, p.batch, heads, p.total(), p.head};
    Tensor* out = wants_present ? &ctx.allocate_output(1, x.dtype(), shape) : nullptr;
    float* dst = out ? attn::output_buffer<PresentTag>(*out)
                     : scratch<float, PresentTag>(shape.element_count());
    const int64_t half = p.batch * heads * p.past * p.head;
    k = msattn::concat_cache(p, past, k, p.head, dst);
    v = msattn::concat_cache(p, past ? past + half : nullptr, v, p.head,
                             dst + p.batch * heads * p.total() * p.head);
    if (out) attn::finish_output(dst, *out);
  }

  msattn::Masking m;
  m.mask = ctx.has_input(kMaskIndex) ? &ctx.input(kMaskIndex) : nullptr;
  m.allow_left_padding = true;
  m.allow_4d = true;
  m.attention_bias = ctx.has_input(kAttentionBias) ? &ctx.input(kAttentionBias) : nullptr;
  m.filter = a.common.mask_filter_value;
  m.causal = a.common.unidirectional;
  Tensor& y = ctx.allocate_output(0, x.dtype(), Shape{p.batch, p.q_len, dv});
  float* yf = attn::output_buffer<OutTag>(y);
  const float scale =
      a.common.scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(p.head)) : a.common.scale;
  msattn::attend(ctx, p, scale, m, q, k, v, yf);
  attn::finish_output(yf, y);
}

CpuKernel make_ms_attention(const NodeInfo& info) {
  const MsAttentionAttrs a = parse_ms_attention_attrs(info);
  return [=](OpContext& ctx) { run_ms_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(ms_attention);
void register_ms_attention_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "Attention", make_ms_attention);
}

}  // namespace kiln
