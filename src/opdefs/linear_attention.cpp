#include "opdefs/linear_attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "opdefs/node_info.h"

namespace kiln::linear_attention {
namespace {

void require_float(const NodeInputs& ctx, size_t index, const std::string& what) {
  const DataType t = ctx.input(index).dtype();
  if (t != DataType::Float32 && t != DataType::Float16 && t != DataType::BFloat16 &&
      t != DataType::Float64) {
    ctx.fail(what + " must be float16, bfloat16, float32 or float64, got " +
             std::string(dtype_name(t)));
  }
}

}  // namespace

Attributes parse_attributes(const NodeInfo& info) {
  Attributes a;
  a.q_heads = info.required_int("q_num_heads");
  a.kv_heads = info.required_int("kv_num_heads");
  if (a.q_heads <= 0 || a.kv_heads <= 0 || a.q_heads % a.kv_heads != 0) {
    info.fail(
        "q_num_heads and kv_num_heads must be positive, q_num_heads a multiple of "
        "kv_num_heads");
  }
  const std::string rule = info.attr_string("update_rule", "gated_delta");
  if (rule == "linear") {
    a.rule = UpdateRule::kLinear;
  } else if (rule == "gated") {
    a.rule = UpdateRule::kGated;
  } else if (rule == "delta") {
    a.rule = UpdateRule::kDelta;
  } else if (rule == "gated_delta") {
    a.rule = UpdateRule::kGatedDelta;
  } else {
    info.fail("update_rule must be linear, gated, delta or gated_delta, got \"" + rule + "\"");
  }
  a.has_scale = info.has_attr("scale");
  a.scale = info.attr_float("scale", 1.0f);
  return a;
}

Dims check_inputs(const NodeInputs& ctx, const Attributes& a) {
  require_float(ctx, kQuery, "query");
  require_float(ctx, kKey, "key");
  require_float(ctx, kValue, "value");
  const Tensor &q = ctx.input(kQuery), &k = ctx.input(kKey), &v = ctx.input(kValue);
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3) {
    ctx.fail("query, key and value must be 3-D [batch, seq, heads * size]");
  }
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  Dims d{qs[0], qs[1], a.q_heads, a.kv_heads, 0, 0, 0, 0};
  if (ks[0] != d.batch || vs[0] != d.batch || ks[1] != d.seq || vs[1] != d.seq) {
    ctx.fail("query, key and value must agree on batch and sequence length");
  }
  if (qs[2] % d.q_heads != 0 || ks[2] % d.kv_heads != 0 || vs[2] % d.kv_heads != 0) {
    ctx.fail("hidden sizes are not divisible by q_num_heads and kv_num_heads");
  }
  d.key_size = qs[2] / d.q_heads;
  d.value_size = vs[2] / d.kv_heads;
  if (ks[2] / d.kv_heads != d.key_size) ctx.fail("query and key have different head sizes");
  if (uses_decay(a.rule)) {
    if (!ctx.has_input(kDecay)) ctx.fail("this update_rule needs the decay input");
    require_float(ctx, kDecay, "decay");
    const Shape& s = ctx.input(kDecay).shape();
    if (s.size() != 3 || s[0] != d.batch || s[1] != d.seq ||
        (s[2] != d.kv_heads * d.key_size && s[2] != d.kv_heads)) {
      ctx.fail(
          "decay must be [batch, seq, kv_num_heads * head_size] or [batch, seq, "
          "kv_num_heads], got " +
          s.to_string());
    }
    d.decay_width = s[2] / d.kv_heads;
  }
  if (uses_beta(a.rule)) {
    if (!ctx.has_input(kBeta)) ctx.fail("this update_rule needs the beta input");
    require_float(ctx, kBeta, "beta");
    const Shape& s = ctx.input(kBeta).shape();
    if (s.size() != 3 || s[0] != d.batch || s[1] != d.seq || (s[2] != d.kv_heads && s[2] != 1)) {
      ctx.fail("beta must be [batch, seq, kv_num_heads] or [batch, seq, 1], got " + s.to_string());
    }
    d.beta_heads = s[2];
  }
  if (ctx.has_input(kPastState)) {
    require_float(ctx, kPastState, "past_state");
    const Tensor& past = ctx.input(kPastState);
    if (past.shape() != d.state_shape()) {
      ctx.fail("past_state must have shape " + d.state_shape().to_string() + ", got " +
               past.shape().to_string());
    }
  }
  return d;
}

float output_scale(const Attributes& attrs, const Dims& dims) {
  return attrs.has_scale
             ? attrs.scale
             : 1.0f / std::sqrt(static_cast<float>(std::max<int64_t>(1, dims.key_size)));
}

}  // namespace kiln::linear_attention
