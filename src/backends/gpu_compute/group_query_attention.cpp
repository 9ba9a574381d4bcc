// GroupQueryAttention (com.microsoft) on the GPU: an LLM decoder layer's attention with its
// key/value cache, as the CPU kernel (ops/ms_group_query_attention.cpp) computes it. Recorded
// from kernels other ops own: region copies take Q, K and V out of the (possibly packed) query,
// the rotary kernel (rotary.h) rotates Q and K by the cos/sin caches, a fill and region copies
// build present = the past's first past_b rows, the new rows, zeros beyond, and the attention
// kernel (attention.h) attends with each sequence's causal offset, valid keys and local window.
//
// seqlens_k, total_sequence_length and position_ids decide shapes and where each row goes: they
// are read on the host (values a device node computed are brought back first, once a run) and
// checked by the op's definition (opdefs/group_query_attention.h), as on the CPU. float16 and
// bfloat16 operands are converted to float32 on the way in and rounded on the way out, and the
// rotated Q and K are rounded to the input's type, as the CPU kernel does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/attention.h"
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/fill.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/rotary.h"
#include "ir/domains.h"
#include "kiln/error.h"
#include "opdefs/group_query_attention.h"
#include "opdefs/ms_attention.h"

namespace kiln::gpu_compute {
namespace {

using namespace group_query_attention_input;

using Geometry = GroupQueryAttentionGeometry;

const Shape* shape_of(const OpRecorder& r, size_t k) {
  return r.has_input(k) ? &r.shape(k) : nullptr;
}

// Input k's values on the host: a device tensor is downloaded (the device tensor keeps the
// host copy, so the other layers' nodes reading the same value share the transfer).
Tensor host_value(const OpRecorder& r, size_t k) {
  const Tensor& t = r.input(k);
  return t.impl()->device ? download_to_host(t) : t;
}

const Buffer& scratch_floats(OpRecorder& r, int64_t count) {
  return r.scratch(static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(float));
}

// Heads [first, first + heads) of each token of `src` (rows of `width` floats), as
// [batch, seq, heads * head] contiguous.
const Buffer& gather_heads(OpRecorder& r, const Geometry& g, const Buffer& src, int64_t width,
                           int64_t first, int64_t heads) {
  const int64_t n = heads * g.head;
  const Buffer& out = scratch_floats(r, g.batch * g.seq * n);
  Region region;
  region.shape = {g.batch * g.seq, n};
  region.in_offset = first * g.head;
  region.in_strides = {width, 1};
  region.out_strides = {n, 1};
  r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, DataType::Float32, src, out);
  return out;
}

// Rounds `count` float32 values to the nearest of `dtype` (float16, bfloat16) in place.
void round_to(OpRecorder& r, DataType dtype, const Buffer& x, int64_t count) {
  if (dtype == DataType::Float32 || count == 0) return;
  const auto n = static_cast<uint64_t>(count);
  const Buffer& narrow = r.scratch(static_cast<size_t>(n) * dtype_size(dtype));
  r.kernel<Cast>().record(r.cmd(), r.arena(), DataType::Float32, x, dtype, narrow, n);
  r.kernel<Cast>().record(r.cmd(), r.arena(), dtype, narrow, DataType::Float32, x, n);
}

// present [batch, kv_heads, present_len, head]: zeros, then the past's first past_b rows and
// the new rows `fresh` ([batch, seq, kv_heads * head]) after them.
void build_present(OpRecorder& r, const Geometry& g, const Buffer* past,
                   const GroupQuerySequences& seqs, const Buffer& fresh, const Buffer& present) {
  const int64_t count = g.batch * g.kv_heads * g.present_len * g.head;
  r.kernel<Fill>().record(r.cmd(), r.arena(), Tensor::scalar<float>(0.0f), present,
                          static_cast<uint64_t>(count));
  RegionCopy& copy = r.kernel<RegionCopy>();
  const int64_t block = g.present_len * g.head;
  for (int64_t b = 0; b < g.batch; ++b) {
    const int64_t past_rows = seqs.past[static_cast<size_t>(b)];
    if (past != nullptr && past_rows > 0) {
      Region region;
      region.shape = {g.kv_heads, past_rows * g.head};
      region.in_offset = b * g.kv_heads * g.past_buffer * g.head;
      region.in_strides = {g.past_buffer * g.head, 1};
      region.out_offset = b * g.kv_heads * block;
      region.out_strides = {block, 1};
      copy.record(r.cmd(), r.arena(), region, DataType::Float32, *past, present);
    }
    if (g.seq > 0) {
      Region region;
      region.shape = {g.kv_heads, g.seq, g.head};
      region.in_offset = b * g.seq * g.kv_heads * g.head;
      region.in_strides = {g.head, g.kv_heads * g.head, 1};
      region.out_offset = b * g.kv_heads * block + past_rows * g.head;
      region.out_strides = {block, g.head, 1};
      copy.record(r.cmd(), r.arena(), region, DataType::Float32, fresh, present);
    }
  }
}

RecordFn group_query_attention(GroupQueryAttentionAttrs a, NodeRef node) {
  return [=](OpRecorder& r) {
    const ir::Node& n = *node.node;
    Tensor seqlens, total;
    if (r.has_input(kSeqlensK)) seqlens = host_value(r, kSeqlensK);
    if (r.has_input(kTotalSeqLen)) total = host_value(r, kTotalSeqLen);
    const Geometry g = resolve_group_query_attention(
        n, a, r.shape(kQuery), shape_of(r, kKey), shape_of(r, kValue), shape_of(r, kPastKey),
        shape_of(r, kPastValue), seqlens.defined() ? &seqlens : nullptr,
        total.defined() ? &total : nullptr);
    const GroupQuerySequences seqs = resolve_group_query_sequences(n, g, seqlens);
    const bool has_past = r.has_input(kPastKey);
    if (g.batch * g.seq * g.heads * g.head == 0)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "an empty query");
    // 16-bit float operands are computed in float32, as on the CPU; one float type throughout.
    const DataType dt = r.dtype(kQuery);
    for (size_t k : {kKey, kValue, kPastKey, kPastValue, kCosCache, kSinCache}) {
      if (r.has_input(k) && r.dtype(k) != dt)
        throw RunOnCpu(RunTimeCause::InputKind, "operands of differing element types");
    }
    Float32Io io(r);

    // Q and the new K and V, [batch, seq, heads * head] each.
    const Buffer& query = io.input(kQuery);
    const Buffer *q = &query, *k = nullptr, *v = nullptr;
    if (g.packed) {
      const int64_t width = (g.heads + 2 * g.kv_heads) * g.head;
      q = &gather_heads(r, g, query, width, 0, g.heads);
      k = &gather_heads(r, g, query, width, g.heads, g.kv_heads);
      v = &gather_heads(r, g, query, width, g.heads + g.kv_heads, g.kv_heads);
    } else {
      k = &io.input(kKey);
      v = &io.input(kValue);
    }

    if (a.do_rotary) {
      if (!r.has_input(kCosCache) || !r.has_input(kSinCache))
        throw Error(n.describe() + ": do_rotary needs cos_cache and sin_cache");
      const Shape& cs = r.shape(kCosCache);
      check_group_query_rotary_caches(n, g, cs, r.shape(kSinCache));
      Tensor ids;
      if (r.has_input(kPositionIds)) ids = host_value(r, kPositionIds);
      const std::vector<int64_t> rows64 =
          group_query_rotary_rows(n, g, seqs, ids.defined() ? &ids : nullptr, cs[0]);
      check(cs.element_count() <= INT32_MAX, "GroupQueryAttention on the GPU: caches too large");
      std::vector<int32_t> rows32(std::max<size_t>(rows64.size(), 1), 0);
      std::copy(rows64.begin(), rows64.end(), rows32.begin());
      const Buffer& rows = r.upload(std::as_bytes(std::span(rows32)));
      const Buffer &cos = io.input(kCosCache), &sin = io.input(kSinCache);
      RotaryGeometry rg{true, g.batch, g.heads, g.seq, g.head, cs[1] * 2};
      const Buffer& q_rot = scratch_floats(r, g.batch * g.seq * g.heads * g.head);
      r.kernel<Rotary>().record(r.cmd(), r.arena(), rg, a.rotary_interleaved, *q, cos, sin, cs[1],
                                rows, q_rot);
      rg.heads = g.kv_heads;
      const Buffer& k_rot = scratch_floats(r, g.batch * g.seq * g.kv_heads * g.head);
      r.kernel<Rotary>().record(r.cmd(), r.arena(), rg, a.rotary_interleaved, *k, cos, sin, cs[1],
                                rows, k_rot);
      // The rotated Q and K are values of the input's type, as ONNX Runtime stores them.
      round_to(r, dt, q_rot, g.batch * g.seq * g.heads * g.head);
      round_to(r, dt, k_rot, g.batch * g.seq * g.kv_heads * g.head);
      q = &q_rot;
      k = &k_rot;
    } else if (r.has_input(kCosCache) || r.has_input(kSinCache)) {
      throw Error(n.describe() + ": cos_cache and sin_cache are given but do_rotary is 0");
    }

    const Shape present_shape{g.batch, g.kv_heads, g.present_len, g.head};
    const int64_t present_count = present_shape.element_count();
    auto present = [&](size_t out, size_t past, const Buffer& fresh) -> const Buffer& {
      const Buffer& dest = r.num_outputs() > out ? io.output(out, dt, present_shape)
                                                 : scratch_floats(r, present_count);
      // An empty past (a first prompt's) has no device buffer to bind.
      build_present(r, g, has_past && g.past_buffer > 0 ? &io.input(past) : nullptr, seqs, fresh,
                    dest);
      return dest;
    };
    const Buffer& keys = present(1, kPastKey, *k);
    const Buffer& values = present(2, kPastValue, *v);

    AttentionProblem p;
    p.g.packed = true;
    p.g.batch = g.batch;
    p.g.q_heads = g.heads;
    p.g.kv_heads = g.kv_heads;
    p.g.q_len = g.seq;
    p.g.new_kv_len = g.present_len;
    p.g.head_size = g.head;
    p.g.v_head_size = g.head;
    p.q = head_strides(true, g.heads, g.seq, g.head);
    p.y = p.q;
    p.k = head_strides(false, g.kv_heads, g.present_len, g.head);
    p.v = p.k;
    p.scale = a.scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(g.head)) : a.scale;
    p.softcap = a.softcap;
    p.padded = true;
    if (a.causal) {
      p.causal = true;
      p.batch_offsets = true;
      p.local_window = a.local_window_size;
    }
    // Per batch its valid keys, then its causal offset (the keys before its new tokens).
    std::vector<int32_t> lengths;
    for (int64_t len : seqs.valid) lengths.push_back(static_cast<int32_t>(len));
    for (int64_t len : seqs.past) lengths.push_back(static_cast<int32_t>(len));
    if (lengths.empty()) lengths.push_back(0);
    AttentionBuffers b;
    b.valid = &r.upload(std::as_bytes(std::span(lengths)));
    if (r.has_input(kAttentionBias)) {
      const Shape& s = r.shape(kAttentionBias);
      check_group_query_attention_bias(n, g, s);
      p.mask = MaskKind::Float;
      p.mask_layout = {s[0] == 1 ? 0 : s[1] * s[2] * s[3], s[1] == 1 ? 0 : s[2] * s[3], s[3], s[3]};
      if (r.dtype(kAttentionBias) != dt)
        throw RunOnCpu(RunTimeCause::InputKind, "operands of differing element types");
      b.mask = &io.input(kAttentionBias);
    }
    b.q = q;
    b.k = &keys;
    b.v = &values;
    b.y = &io.output(0, dt, Shape{g.batch, g.seq, g.heads * g.head});
    const int64_t rows = g.batch * g.heads * g.seq;
    b.probs = &scratch_floats(r, rows * g.present_len);
    r.add_work(static_cast<uint64_t>(rows * g.present_len * 2 * g.head));
    r.kernel<AttentionKernel>().record(r.cmd(), r.arena(), p, b);
    io.finish();
  };
}

RecordFn group_query_attention_factory(const DevicePlacementQuery& q, std::string& reason) {
  const std::initializer_list<DataType> floats = {DataType::Float32, DataType::Float16,
                                                  DataType::BFloat16};
  if (!inputs_are(q, floats, reason, kQuery, 5) ||
      !inputs_are(q, {DataType::Int32}, reason, kSeqlensK, 2) ||
      !inputs_are(q, floats, reason, kCosCache, 2) ||
      !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, kPositionIds, 1) ||
      !inputs_are(q, floats, reason, kAttentionBias, 1))
    return nullptr;
  for (size_t k = kHeadSink; k < q.info.num_inputs(); ++k) {
    if (q.info.has_input(k)) {
      reason = "input " + std::to_string(k) +
               " (head_sink, quantized-cache scales or Q/K norm weights) is not supported";
      return nullptr;
    }
  }
  return group_query_attention(parse_group_query_attention_attrs(q.info), NodeRef(q.info));
}

}  // namespace

KILN_GPU_COMPUTE_OPS(group_query_attention);
void register_group_query_attention_ops(OpTable& t) {
  t.add(ir::kMicrosoftDomain, "GroupQueryAttention", group_query_attention_factory);
}

}  // namespace kiln::gpu_compute
