// GroupQueryAttention's run-time resolution (group_query_attention.h): the checks and the
// derived lengths ONNX Runtime's CPU kernel applies, in one place for every backend.
#include "opdefs/group_query_attention.h"

#include <algorithm>
#include <string>

#include "core/element_storage.h"
#include "kiln/error.h"

namespace kiln {
namespace {

[[noreturn]] void fail(const ir::Node& node, const std::string& message) {
  throw Error(node.describe() + ": " + message);
}

}  // namespace

GroupQueryAttentionGeometry resolve_group_query_attention(
    const ir::Node& node, const GroupQueryAttentionAttrs& a, const Shape& qs, const Shape* key,
    const Shape* value, const Shape* past_key, const Shape* past_value, const Tensor* seqlens_k,
    const Tensor* total_sequence_length) {
  if (qs.size() != 3) fail(node, "query must be 3-D [batch, seq, hidden], got " + qs.to_string());
  GroupQueryAttentionGeometry g;
  g.batch = qs[0];
  g.seq = qs[1];
  g.heads = a.num_heads;
  g.kv_heads = a.kv_num_heads;
  g.packed = key == nullptr;
  if (g.packed) {
    if (value) fail(node, "value is given without key");
    const int64_t parts = g.heads + 2 * g.kv_heads;
    if (qs[2] % parts != 0) {
      fail(node, "packed query width " + std::to_string(qs[2]) + " is not a multiple of " +
                     "num_heads + 2 * kv_num_heads = " + std::to_string(parts));
    }
    g.head = qs[2] / parts;
  } else {
    if (!value) fail(node, "key is given without value");
    if (qs[2] % g.heads != 0) {
      fail(node, "query width " + std::to_string(qs[2]) + " is not a multiple of num_heads " +
                     std::to_string(g.heads));
    }
    g.head = qs[2] / g.heads;
    const Shape want{g.batch, g.seq, g.kv_heads * g.head};
    if (*key != want) {
      fail(node, "key must have shape " + want.to_string() + ", got " + key->to_string());
    }
    if (*value != want) {
      fail(node, "value must have shape " + want.to_string() + ", got " + value->to_string());
    }
  }
  if ((past_key == nullptr) != (past_value == nullptr)) {
    fail(node, "past_key and past_value must be given together");
  }
  if (past_key) {
    const Shape& ps = *past_key;
    if (ps.size() != 4 || ps[0] != g.batch || ps[1] != g.kv_heads || ps[3] != g.head ||
        *past_value != ps) {
      fail(node, "past_key and past_value must both have shape [" + std::to_string(g.batch) + ", " +
                     std::to_string(g.kv_heads) + ", past, " + std::to_string(g.head) + "], got " +
                     ps.to_string() + " and " + past_value->to_string());
    }
    g.past_buffer = ps[2];
  }
  if (!seqlens_k || !total_sequence_length) {
    fail(node, "seqlens_k and total_sequence_length are required");
  }
  const Tensor& total = *total_sequence_length;
  if (total.dtype() != DataType::Int32 || total.element_count() != 1) {
    fail(node, "total_sequence_length must be one int32 value, got " + total.to_string(0));
  }
  g.total = total.data<int32_t>()[0];
  if (g.total <= 0) fail(node, "total_sequence_length must be positive");
  g.present_len = std::max(g.total, g.past_buffer);
  return g;
}

GroupQuerySequences resolve_group_query_sequences(const ir::Node& node,
                                                  const GroupQueryAttentionGeometry& g,
                                                  const Tensor& seqlens) {
  if (seqlens.dtype() != DataType::Int32 || seqlens.element_count() != g.batch ||
      seqlens.rank() != 1) {
    fail(node, "seqlens_k must be an int32 tensor of shape [" + std::to_string(g.batch) +
                   "], got " + seqlens.to_string(0));
  }
  const bool later_prompt = g.seq > 1 && g.seq != g.total;
  if (later_prompt && g.batch != 1) {
    fail(node, "a prompt of " + std::to_string(g.seq) + " tokens after " +
                   "a past (sequence length differs from total_sequence_length " +
                   std::to_string(g.total) + ") needs batch size 1");
  }
  const bool first_prompt = !later_prompt && g.seq == g.total;
  GroupQuerySequences s;
  s.valid.resize(static_cast<size_t>(g.batch));
  s.past.resize(static_cast<size_t>(g.batch));
  for (int64_t b = 0; b < g.batch; ++b) {
    const int64_t valid = int64_t{seqlens.data<int32_t>()[b]} + 1;
    const int64_t past = first_prompt ? 0 : valid - g.seq;
    const std::string which = "seqlens_k[" + std::to_string(b) + "] = " + std::to_string(valid - 1);
    if (valid < 1 || valid > g.total) {
      fail(node, which + " must be in [0, total_sequence_length - 1 = " +
                     std::to_string(g.total - 1) + "]");
    }
    if (past < 0) {
      fail(node, which + " counts fewer keys than the " + std::to_string(g.seq) + " new tokens");
    }
    if (past > g.past_buffer) {
      fail(node, which + " needs " + std::to_string(past) + " past keys but the past holds " +
                     std::to_string(g.past_buffer));
    }
    s.valid[static_cast<size_t>(b)] = valid;
    s.past[static_cast<size_t>(b)] = past;
  }
  return s;
}

void check_group_query_rotary_caches(const ir::Node& node, const GroupQueryAttentionGeometry& g,
                                     const Shape& cs, const Shape& sin) {
  if (cs.size() != 2 || sin != cs || cs[1] * 2 > g.head || cs[1] == 0) {
    fail(node, "cos_cache and sin_cache must both be [max_position, rotary_dim / 2] with " +
                   std::string("rotary_dim <= head size ") + std::to_string(g.head) + ", got " +
                   cs.to_string() + " and " + sin.to_string());
  }
}

std::vector<int64_t> group_query_rotary_rows(const ir::Node& node,
                                             const GroupQueryAttentionGeometry& g,
                                             const GroupQuerySequences& seqs,
                                             const Tensor* position_ids, int64_t cache_rows) {
  std::vector<int64_t> rows(static_cast<size_t>(g.batch * g.seq));
  Shape ids;
  if (position_ids) {
    const Tensor& p = *position_ids;
    if (!copy_int_list(p, ids) || p.shape() != Shape{g.batch, g.seq}) {
      fail(node, "position_ids must be an integer tensor of shape [" + std::to_string(g.batch) +
                     ", " + std::to_string(g.seq) + "], got " + p.to_string(0));
    }
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t s = 0; s < g.seq; ++s) {
      int64_t row = seqs.past[static_cast<size_t>(b)] + s;
      if (!ids.empty()) {
        row = ids[b * g.seq + s];
      } else if (row >= seqs.valid[static_cast<size_t>(b)]) {
        row = 1;  // a padding token of a first prompt
      }
      if (row < 0 || row >= cache_rows) {
        fail(node, "position " + std::to_string(row) + " is outside the rotary caches' " +
                       std::to_string(cache_rows) + " rows");
      }
      rows[static_cast<size_t>(b * g.seq + s)] = row;
    }
  }
  return rows;
}

void check_group_query_attention_bias(const ir::Node& node, const GroupQueryAttentionGeometry& g,
                                      const Shape& s) {
  if (s.size() != 4 || (s[0] != 1 && s[0] != g.batch) || (s[1] != 1 && s[1] != g.heads) ||
      s[2] != g.seq || s[3] != g.total) {
    fail(node, "attention_bias must have shape [" + std::to_string(g.batch) + " or 1, " +
                   std::to_string(g.heads) + " or 1, " + std::to_string(g.seq) + ", " +
                   std::to_string(g.total) + "], got " + s.to_string());
  }
}

}  // namespace kiln
