#include "backends/cpu/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/softmax_kernel.h"
#include "core/thread_pool.h"

namespace kiln::cpu {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Per-thread buffers that only grow, so that steady-state runs do not allocate. One per
// purpose: a thread holds all of them at once while it works on a head.
enum class Buffer { kScores, kProbs, kBias, kCount };
float* thread_buffer(Buffer which, size_t floats) {
  thread_local std::vector<float> buffers[static_cast<int>(Buffer::kCount)];
  std::vector<float>& b = buffers[static_cast<int>(which)];
  if (b.size() < floats) b.resize(floats);
  return b.data();
}

// The bias row of query i for batch b and head h (see the header); returns true when every
// key is hidden from it.
bool fill_bias_row(const AttentionShape& shape, const AttentionParams& params, const MaskView& mask,
                   int64_t b, int64_t h, int64_t i, float* bias) {
  const int64_t n = shape.kv_len;
  if (mask.data != nullptr) {
    const float* m = mask.data + b * mask.batch + h * mask.head + i * mask.row;
    const int64_t given = std::min(mask.columns, n);
    std::copy(m, m + given, bias);
    std::fill(bias + given, bias + n, kNegInf);
  } else {
    std::fill(bias, bias + n, 0.0f);
  }
  // Keys at or beyond `visible` are hidden by the causal and padding masks.
  int64_t visible = n;
  if (params.causal_offset != nullptr) {
    visible = std::min(visible, std::max<int64_t>(0, i + params.causal_offset[b] + 1));
  }
  if (params.kv_valid != nullptr) {
    visible = std::min(visible, std::max<int64_t>(0, params.kv_valid[b]));
  }
  std::fill(bias + visible, bias + n, kNegInf);
  if (params.causal_offset != nullptr && params.local_window >= 0) {
    const int64_t first = i + params.causal_offset[b] - params.local_window + 1;
    std::fill(bias, bias + std::clamp<int64_t>(first, 0, n), kNegInf);
  }
  for (int64_t j = 0; j < n; ++j) {
    if (bias[j] != kNegInf) return false;
  }
  return true;
}

void copy_stage(const AttentionShape& shape, const AttentionParams& params, int stage, int64_t b,
                int64_t h, const float* scores) {
  if (params.scores_out == nullptr || params.scores_stage != stage) return;
  const int64_t block = shape.q_len * shape.kv_len;
  std::memcpy(params.scores_out + (b * shape.q_heads + h) * block, scores,
              static_cast<size_t>(block) * sizeof(float));
}

void attend_one_head(const AttentionShape& shape, const AttentionParams& params, const HeadView& q,
                     const HeadView& k, const HeadView& v, const MaskView& mask,
                     const MutableHeadView& y, int64_t b, int64_t h) {
  const int64_t sq = shape.q_len, t = shape.kv_len;
  const int64_t kv_head = h / (shape.q_heads / shape.kv_heads);
  const float* qp = q.data + b * q.batch + h * q.head;
  const float* kp = k.data + b * k.batch + kv_head * k.head;
  const float* vp = v.data + b * v.batch + kv_head * v.head;
  float* yp = y.data + b * y.batch + h * y.head;
  const size_t block = static_cast<size_t>(sq * t);
  float* scores = thread_buffer(Buffer::kScores, block);
  float* probs = thread_buffer(Buffer::kProbs, block);
  float* bias = thread_buffer(Buffer::kBias, static_cast<size_t>(t));

  sgemm(false, true, sq, t, shape.head_size, params.scale, qp, q.row, kp, k.row, 0.0f, scores, t);
  copy_stage(shape, params, 0, b, h, scores);
  if (params.softcap > 0.0f) {
    const float cap = params.softcap, inv_cap = 1.0f / params.softcap;
    for (size_t e = 0; e < block; ++e) scores[e] = cap * std::tanh(scores[e] * inv_cap);
  }
  copy_stage(shape, params, 1, b, h, scores);
  // Rows that see no key at all; their probabilities are zeroed after the softmax. Without any
  // mask the bias is zero everywhere and every row sees every key: nothing to add.
  const bool biased =
      mask.data != nullptr || params.causal_offset != nullptr || params.kv_valid != nullptr;
  thread_local std::vector<char> hidden_rows;
  hidden_rows.assign(static_cast<size_t>(sq), 0);
  for (int64_t i = 0; biased && i < sq; ++i) {
    hidden_rows[i] = fill_bias_row(shape, params, mask, b, h, i, bias);
    float* row = scores + i * t;
    for (int64_t j = 0; j < t; ++j) row[j] += bias[j];
  }
  copy_stage(shape, params, 2, b, h, scores);
  softmax_f32(scores, probs, sq, t, 1, /*log=*/false);
  for (int64_t i = 0; biased && i < sq; ++i) {
    if (hidden_rows[i]) std::fill(probs + i * t, probs + (i + 1) * t, 0.0f);
  }
  copy_stage(shape, params, 3, b, h, probs);
  sgemm(false, false, sq, shape.v_head_size, t, 1.0f, probs, t, vp, v.row, 0.0f, yp, y.row);
}

}  // namespace

void attention_f32(const AttentionShape& shape, const AttentionParams& params, const HeadView& q,
                   const HeadView& k, const HeadView& v, const MaskView& mask,
                   const MutableHeadView& y) {
  const int64_t heads = shape.batch * shape.q_heads;
  if (heads == 0 || shape.q_len == 0) return;
  if (shape.kv_len == 0) {
    // No key at all: every query attends to nothing and its output is zero.
    for (int64_t b = 0; b < shape.batch; ++b) {
      for (int64_t h = 0; h < shape.q_heads; ++h) {
        for (int64_t i = 0; i < shape.q_len; ++i) {
          float* row = y.data + b * y.batch + h * y.head + i * y.row;
          std::fill(row, row + shape.v_head_size, 0.0f);
        }
      }
    }
    return;
  }
  const int64_t work_per_head =
      shape.q_len * shape.kv_len * (shape.head_size + shape.v_head_size + 8);
  const int64_t grain =
      std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, work_per_head));
  parallel_for(heads, grain, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      attend_one_head(shape, params, q, k, v, mask, y, item / shape.q_heads, item % shape.q_heads);
    }
  });
}

}  // namespace kiln::cpu
