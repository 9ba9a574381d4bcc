// Tests of the attention family (Attention, RotaryEmbedding, LinearAttention,
// CausalConvWithState, SwiGLU, FlexAttention, TensorScatter) against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/kiln.h"
#include "passes/graph_rewrite.h"
#include "subgraph_builder.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

Tensor bools(const Shape& shape, std::vector<bool> values) {
  return Tensor::from_data<bool>(shape, values);
}

void expect_near(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.element_count(), static_cast<int64_t>(expected.size()));
  const std::vector<float> got = t.to_vector<float>();
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << i;
}

// --- Attention -------------------------------------------------------------------------------
//
// One head, head size 2: q = [1, 0] against keys [1, 0] and [0, 1] gives scores
// [1/sqrt(2), 0] (default scale); values 1 and 3.
const Tensor kQ = f32({1, 1, 1, 2}, {1, 0});
const Tensor kK = f32({1, 1, 2, 2}, {1, 0, 0, 1});
const Tensor kV = f32({1, 1, 2, 1}, {1, 3});

float two_key_average() {
  const float e = std::exp(1.0f / std::sqrt(2.0f));
  const float p0 = e / (e + 1.0f);
  return p0 * 1.0f + (1.0f - p0) * 3.0f;
}

TEST(Attention, SingleHeadDefaultScale) {
  auto out = OpTest("Attention", 23).input(kQ).input(kK).input(kV).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 1}));
  expect_near(out[0], {two_key_average()});
}

TEST(Attention, BoolAndFloatMasks) {
  auto hide_second =
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).input(bools({2}, {true, false})).run();
  expect_near(hide_second[0], {1.0f});
  const float inf = std::numeric_limits<float>::infinity();
  auto hide_first =
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).input(f32({1, 2}, {-inf, 0})).run();
  expect_near(hide_first[0], {3.0f});
  // A row that sees no key gives zeros, not NaN.
  auto none =
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).input(bools({1, 2}, {0, 0})).run();
  expect_near(none[0], {0.0f});
  // A mask shorter than the keys hides the keys past its end.
  auto short_mask =
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).input(f32({1}, {0})).run();
  expect_near(short_mask[0], {1.0f});
}

TEST(Attention, CausalWithPastAndPresent) {
  // Two queries, two new keys, no past: query 0 sees key 0 only.
  const Tensor q = f32({1, 1, 2, 1}, {1, 1});
  const Tensor k = f32({1, 1, 2, 1}, {0, 0});
  const Tensor v = f32({1, 1, 2, 1}, {2, 4});
  auto out = OpTest("Attention", 23).input(q).input(k).input(v).attr("is_causal", 1).run();
  expect_near(out[0], {2.0f, 3.0f});
  // One past key (value 6) and one new key (value 4): the query is the last position and
  // sees both; q = 0 makes their scores equal.
  auto with_past = OpTest("Attention", 23)
                       .outputs(3)
                       .input(f32({1, 1, 1, 1}, {0}))
                       .input(f32({1, 1, 1, 1}, {0}))
                       .input(f32({1, 1, 1, 1}, {4}))
                       .input(Tensor())
                       .input(f32({1, 1, 1, 1}, {5}))
                       .input(f32({1, 1, 1, 1}, {6}))
                       .attr("is_causal", 1)
                       .run();
  expect_near(with_past[0], {5.0f});
  EXPECT_EQ(with_past[1].shape(), (Shape{1, 1, 2, 1}));
  expect_near(with_past[1], {5, 0});
  expect_near(with_past[2], {6, 4});
}

TEST(Attention, PackedInputsWithGroupedHeads) {
  // 3-D inputs, two query heads sharing one kv head; scale 0 makes every probability equal,
  // so each head's output is the mean of the values.
  auto out = OpTest("Attention", 23)
                 .input(f32({1, 1, 4}, {1, 2, 3, 4}))
                 .input(f32({1, 2, 2}, {1, 1, 2, 2}))
                 .input(f32({1, 2, 3}, {1, 2, 3, 5, 6, 7}))
                 .attr("q_num_heads", 2)
                 .attr("kv_num_heads", 1)
                 .attr("scale", 0.0f)
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 6}));
  expect_near(out[0], {3, 4, 5, 3, 4, 5});
}

TEST(Attention, ScoresOutputModesAndSoftcap) {
  // Head size 1, scale 1: scores are [2, 6].
  const Tensor q = f32({1, 1, 1, 1}, {2});
  const Tensor k = f32({1, 1, 2, 1}, {1, 3});
  const Tensor v = f32({1, 1, 2, 1}, {0, 1});
  const Tensor mask = f32({1, 2}, {0.5f, -1.0f});
  auto run = [&](int mode, float softcap) {
    return OpTest("Attention", 23)
        .outputs(4)
        .input(q)
        .input(k)
        .input(v)
        .input(mask)
        .attr("scale", 1.0f)
        .attr("softcap", softcap)
        .attr("qk_matmul_output_mode", mode)
        .run();
  };
  expect_near(run(0, 0.0f)[3], {2, 6});
  expect_near(run(1, 1.0f)[3], {std::tanh(2.0f), std::tanh(6.0f)});
  expect_near(run(2, 0.0f)[3], {2.5f, 5.0f});
  const float p1 = 1.0f / (1.0f + std::exp(2.5f - 5.0f));
  auto probs = run(3, 0.0f);
  expect_near(probs[3], {1.0f - p1, p1});
  expect_near(probs[0], {p1});
}

TEST(Attention, NonpadKvSeqlen) {
  auto out = OpTest("Attention", 24)
                 .input(kQ)
                 .input(kK)
                 .input(kV)
                 .input(Tensor())
                 .input(Tensor())
                 .input(Tensor())
                 .input(i64({1}, {1}))
                 .run();
  expect_near(out[0], {1.0f});
  EXPECT_THROW(OpTest("Attention", 24)
                   .input(kQ)
                   .input(kK)
                   .input(kV)
                   .input(Tensor())
                   .input(Tensor())
                   .input(Tensor())
                   .input(i64({1}, {3}))
                   .run(),
               Error);
}

TEST(Attention, Float16AndDouble) {
  auto half = [](std::vector<float> v, const Shape& s) {
    std::vector<Float16> h;
    for (float x : v) h.push_back(Float16(x));
    return Tensor::from_data<Float16>(s, h);
  };
  auto out = OpTest("Attention", 23)
                 .input(half({1, 0}, {1, 1, 1, 2}))
                 .input(half({1, 0, 0, 1}, {1, 1, 2, 2}))
                 .input(half({1, 3}, {1, 1, 2, 1}))
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float16);
  EXPECT_NEAR(static_cast<float>(out[0].data<Float16>()[0]), two_key_average(), 2e-3f);
  auto d = OpTest("Attention", 23)
               .input(Tensor::from_data<double>({1, 1, 1, 2}, {1, 0}))
               .input(Tensor::from_data<double>({1, 1, 2, 2}, {1, 0, 0, 1}))
               .input(Tensor::from_data<double>({1, 1, 2, 1}, {1, 3}))
               .run();
  ASSERT_EQ(d[0].dtype(), DataType::Float64);
  EXPECT_NEAR(d[0].data<double>()[0], two_key_average(), 1e-5);
}

TEST(Attention, EmptyQueriesAndKeys) {
  auto no_queries = OpTest("Attention", 23).input(f32({1, 1, 0, 2}, {})).input(kK).input(kV).run();
  EXPECT_EQ(no_queries[0].shape(), (Shape{1, 1, 0, 1}));
  auto no_keys = OpTest("Attention", 23)
                     .input(kQ)
                     .input(f32({1, 1, 0, 2}, {}))
                     .input(f32({1, 1, 0, 3}, {}))
                     .run();
  expect_near(no_keys[0], {0, 0, 0});
}

// Shapes large enough for the threaded GEMM path, checked against a direct evaluation of the
// definition: grouped heads, a past cache, causal masking and a broadcast float mask.
TEST(Attention, MatchesDefinitionOnLargerShapes) {
  const int64_t B = 2, Hq = 4, Hkv = 2, S = 33, P = 37, N = 33, D = 16, Dv = 8, T = P + N;
  auto fill = [](int64_t count, int seed) {
    std::vector<float> v(static_cast<size_t>(count));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37f * static_cast<float>(i) + seed);
    return v;
  };
  const auto q = fill(B * Hq * S * D, 1), k = fill(B * Hkv * N * D, 2),
             v = fill(B * Hkv * N * Dv, 3);
  const auto pk = fill(B * Hkv * P * D, 4), pv = fill(B * Hkv * P * Dv, 5);
  const auto mask = fill(S * T, 6);
  auto out = OpTest("Attention", 23)
                 .input(f32({B, Hq, S, D}, q))
                 .input(f32({B, Hkv, N, D}, k))
                 .input(f32({B, Hkv, N, Dv}, v))
                 .input(f32({S, T}, mask))
                 .input(f32({B, Hkv, P, D}, pk))
                 .input(f32({B, Hkv, P, Dv}, pv))
                 .attr("is_causal", 1)
                 .run();
  ASSERT_EQ(out[0].shape(), (Shape{B, Hq, S, Dv}));
  const std::vector<float> y = out[0].to_vector<float>();
  auto key = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < P ? pk[((b * Hkv + h) * P + j) * D + d] : k[((b * Hkv + h) * N + j - P) * D + d];
  };
  auto value = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < P ? pv[((b * Hkv + h) * P + j) * Dv + d] : v[((b * Hkv + h) * N + j - P) * Dv + d];
  };
  double worst = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = h / (Hq / Hkv);
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> w(T, 0.0);
        double max = -1e30, sum = 0;
        for (int64_t j = 0; j <= i + P; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q[((b * Hq + h) * S + i) * D + d] * key(b, kvh, j, d);
          w[j] = dot / std::sqrt(static_cast<double>(D)) + mask[i * T + j];
          max = std::max(max, w[j]);
        }
        for (int64_t j = 0; j <= i + P; ++j) sum += (w[j] = std::exp(w[j] - max));
        for (int64_t d = 0; d < Dv; ++d) {
          double expected = 0;
          for (int64_t j = 0; j <= i + P; ++j) expected += w[j] / sum * value(b, kvh, j, d);
          worst = std::max(worst, std::abs(expected - y[((b * Hq + h) * S + i) * Dv + d]));
        }
      }
    }
  }
  EXPECT_LT(worst, 1e-4);
}

TEST(Attention, BadInput) {
  EXPECT_THROW(OpTest("Attention", 23).input(f32({1, 2}, {1, 0})).input(kK).input(kV).run(), Error);
  // 3-D inputs without head counts.
  const Tensor q3 = f32({1, 1, 2}, {1, 0});
  const Tensor k3 = f32({1, 2, 2}, {1, 0, 0, 1});
  EXPECT_THROW(OpTest("Attention", 23).input(q3).input(k3).input(k3).run(), Error);
  // Three query heads over two kv heads.
  EXPECT_THROW(OpTest("Attention", 23)
                   .input(f32({1, 3, 1, 1}, {1, 1, 1}))
                   .input(f32({1, 2, 1, 1}, {1, 1}))
                   .input(f32({1, 2, 1, 1}, {1, 1}))
                   .run(),
               Error);
  // A mask wider than the keys, or not broadcastable.
  EXPECT_THROW(
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).input(f32({3}, {0, 0, 0})).run(),
      Error);
  EXPECT_THROW(
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).input(f32({2, 2}, {0, 0, 0, 0})).run(),
      Error);
  EXPECT_THROW(
      OpTest("Attention", 23).input(kQ).input(kK).input(kV).attr("qk_matmul_output_mode", 4).run(),
      Error);
  // past_key without past_value.
  EXPECT_THROW(OpTest("Attention", 23)
                   .input(kQ)
                   .input(kK)
                   .input(kV)
                   .input(Tensor())
                   .input(f32({1, 1, 1, 2}, {0, 0}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("Attention", 23)
                   .input(i64({1, 1, 1, 2}, {1, 0}))
                   .input(i64({1, 1, 2, 2}, {1, 0, 0, 1}))
                   .input(i64({1, 1, 2, 1}, {1, 3}))
                   .run(),
               Error);
}

// --- RotaryEmbedding -------------------------------------------------------------------------
//
// Position 1 has cos 0 and sin 1: a quarter turn, (x1, x2) -> (-x2, x1).
const Tensor kRotX = f32({1, 1, 1, 4}, {1, 2, 3, 4});
const Tensor kCos = f32({2, 2}, {1, 1, 0, 0});
const Tensor kSin = f32({2, 2}, {0, 0, 1, 1});

TEST(RotaryEmbedding, HalvesAndInterleavedPairs) {
  auto halves = OpTest("RotaryEmbedding", 23)
                    .input(kRotX)
                    .input(kCos)
                    .input(kSin)
                    .input(i64({1, 1}, {1}))
                    .run();
  expect_near(halves[0], {-3, -4, 1, 2});
  auto pairs = OpTest("RotaryEmbedding", 23)
                   .input(kRotX)
                   .input(kCos)
                   .input(kSin)
                   .input(i64({1, 1}, {1}))
                   .attr("interleaved", 1)
                   .run();
  expect_near(pairs[0], {-2, 1, -4, 3});
  // Position 0 is the identity.
  auto identity = OpTest("RotaryEmbedding", 23)
                      .input(kRotX)
                      .input(kCos)
                      .input(kSin)
                      .input(i64({1, 1}, {0}))
                      .run();
  expect_near(identity[0], {1, 2, 3, 4});
}

TEST(RotaryEmbedding, PartialRotationPackedInputNoPositionIds) {
  // rotary_embedding_dim 2 rotates only (x0, x1) of a 3-D input with one head of size 4; the
  // caches hold one row per token.
  auto out = OpTest("RotaryEmbedding", 23)
                 .input(f32({1, 1, 4}, {1, 2, 3, 4}))
                 .input(f32({1, 1, 1}, {0}))
                 .input(f32({1, 1, 1}, {1}))
                 .attr("num_heads", 1)
                 .attr("rotary_embedding_dim", 2)
                 .run();
  expect_near(out[0], {-2, 1, 3, 4});
  // Two heads of size 2 in a 3-D input: each head rotates on its own.
  auto heads = OpTest("RotaryEmbedding", 23)
                   .input(f32({1, 1, 4}, {1, 2, 3, 4}))
                   .input(f32({1, 1, 1}, {0}))
                   .input(f32({1, 1, 1}, {1}))
                   .attr("num_heads", 2)
                   .run();
  expect_near(heads[0], {-2, 1, -4, 3});
}

TEST(RotaryEmbedding, BadInput) {
  EXPECT_THROW(OpTest("RotaryEmbedding", 23)
                   .input(kRotX)
                   .input(kCos)
                   .input(kSin)
                   .input(i64({1, 1}, {2}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("RotaryEmbedding", 23)
                   .input(kRotX)
                   .input(kCos)
                   .input(kSin)
                   .input(i64({1, 1}, {0}))
                   .attr("rotary_embedding_dim", 3)
                   .run(),
               Error);
  EXPECT_THROW(OpTest("RotaryEmbedding", 23)
                   .input(f32({1, 1, 4}, {1, 2, 3, 4}))
                   .input(kCos)
                   .input(kSin)
                   .input(i64({1, 1}, {0}))
                   .run(),
               Error);  // 3-D input without num_heads
}

// --- SwiGLU ----------------------------------------------------------------------------------

TEST(SwiGLU, GateTimesLinear) {
  auto out = OpTest("SwiGLU", 28).input(f32({2}, {0, 1})).input(f32({2}, {2, 3})).run();
  expect_near(out[0], {0.0f, 3.0f / (1.0f + std::exp(-1.0f))});
  auto alpha =
      OpTest("SwiGLU", 28).input(f32({1}, {1})).input(f32({2}, {3, 1})).attr("alpha", 2.0f).run();
  expect_near(alpha[0], {3.0f / (1.0f + std::exp(-2.0f)), 1.0f / (1.0f + std::exp(-2.0f))});
  EXPECT_THROW(OpTest("SwiGLU", 28).input(f32({2}, {0, 1})).input(f32({3}, {1, 2, 3})).run(),
               Error);
}

// --- TensorScatter ---------------------------------------------------------------------------

TEST(TensorScatter, LinearAndCircular) {
  const Tensor cache = f32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  const Tensor update = f32({2, 2, 1}, {7, 8, 9, 10});
  auto linear =
      OpTest("TensorScatter", 24).input(cache).input(update).input(i64({2}, {0, 1})).run();
  expect_near(linear[0], {7, 8, 3, 4, 9, 10});
  auto circular = OpTest("TensorScatter", 24)
                      .input(cache)
                      .input(update)
                      .input(i64({2}, {2, 1}))
                      .attr("mode", "circular")
                      .run();
  expect_near(circular[0], {8, 2, 7, 4, 9, 10});
  // Without write_indices the update goes to the start.
  auto start = OpTest("TensorScatter", 24).input(cache).input(update).run();
  expect_near(start[0], {7, 8, 3, 9, 10, 6});
  EXPECT_THROW(OpTest("TensorScatter", 24).input(cache).input(update).input(i64({2}, {2, 0})).run(),
               Error);
  EXPECT_THROW(OpTest("TensorScatter", 24).input(cache).input(update).attr("axis", 0).run(), Error);
  EXPECT_THROW(OpTest("TensorScatter", 24).input(cache).input(update).attr("mode", "wrap").run(),
               Error);
}

// --- LinearAttention -------------------------------------------------------------------------
//
// One head with key and value size 1, two tokens: q = [1, 1], k = [1, 2], v = [3, 4], scale 1.
OpTest linear_attention(const std::string& rule) {
  OpTest t("LinearAttention", 27);
  t.outputs(2)
      .input(f32({1, 2, 1}, {1, 1}))
      .input(f32({1, 2, 1}, {1, 2}))
      .input(f32({1, 2, 1}, {3, 4}))
      .attr("q_num_heads", 1)
      .attr("kv_num_heads", 1)
      .attr("scale", 1.0f)
      .attr("update_rule", rule);
  return t;
}

TEST(LinearAttention, UpdateRules) {
  // linear: S = 3, then 3 + 2 * 4 = 11.
  auto linear = linear_attention("linear").run();
  expect_near(linear[0], {3, 11});
  expect_near(linear[1], {11});
  // gated with decay log(0.5): S = 3, then 0.5 * 3 + 8 = 9.5.
  const float half = std::log(0.5f);
  auto gated = linear_attention("gated").input(Tensor()).input(f32({1, 2, 1}, {half, half})).run();
  expect_near(gated[0], {3, 9.5f});
  // delta with beta 1: S = 3; then k recalls 3 * 2 = 6, the write is 4 - 6 = -2: S = 3 - 4.
  auto delta =
      linear_attention("delta").input(Tensor()).input(Tensor()).input(f32({1, 2, 1}, {1, 1})).run();
  expect_near(delta[0], {3, -1});
  // gated_delta from a past state of 2 with decay log(0.5) and beta 0.5:
  // S' = 1, write 0.5 * (3 - 1) = 1, S = 2; S' = 1, write 0.5 * (4 - 2) = 1, S = 1 + 2 = 3.
  auto gated_delta = linear_attention("gated_delta")
                         .input(f32({1, 1, 1, 1}, {2}))
                         .input(f32({1, 2, 1}, {half, half}))
                         .input(f32({1, 2, 1}, {0.5f, 0.5f}))
                         .run();
  expect_near(gated_delta[0], {2, 3});
  expect_near(gated_delta[1], {3});
}

TEST(LinearAttention, BadInput) {
  EXPECT_THROW(linear_attention("fast").run(), Error);
  EXPECT_THROW(linear_attention("gated").run(), Error);  // no decay
  EXPECT_THROW(linear_attention("linear").input(f32({1, 1, 1, 2}, {0, 0})).run(), Error);
}

// --- CausalConvWithState ---------------------------------------------------------------------

TEST(CausalConvWithState, CarriesState) {
  // One channel, kernel [10, 1], past [5]: padded [5, 1, 2, 3].
  auto out = OpTest("CausalConvWithState", 27)
                 .outputs(2)
                 .input(f32({1, 1, 3}, {1, 2, 3}))
                 .input(f32({1, 1, 2}, {10, 1}))
                 .input(f32({1}, {1}))
                 .input(f32({1, 1, 1}, {5}))
                 .run();
  expect_near(out[0], {52, 13, 24});
  expect_near(out[1], {3});
  // No past state: zeros; silu on top.
  auto silu = OpTest("CausalConvWithState", 27)
                  .outputs(2)
                  .input(f32({1, 1, 2}, {1, 2}))
                  .input(f32({1, 1, 2}, {10, 1}))
                  .attr("activation", "silu")
                  .run();
  auto swish = [](float x) { return x / (1.0f + std::exp(-x)); };
  expect_near(silu[0], {swish(1), swish(12)});
  expect_near(silu[1], {2});
}

TEST(CausalConvWithState, BadInput) {
  EXPECT_THROW(OpTest("CausalConvWithState", 27)
                   .input(f32({1, 2, 2}, {1, 2, 3, 4}))
                   .input(f32({1, 1, 2}, {1, 1}))
                   .run(),
               Error);  // weight for one channel, input has two
  EXPECT_THROW(OpTest("CausalConvWithState", 27)
                   .input(f32({1, 1, 2}, {1, 2}))
                   .input(f32({1, 1, 2}, {1, 1}))
                   .attr("activation", "relu")
                   .run(),
               Error);
}

// --- FlexAttention ---------------------------------------------------------------------------

TEST(FlexAttention, MatchesSoftmaxAttention) {
  auto out = OpTest("FlexAttention", 26, "ai.onnx.preview").input(kQ).input(kK).input(kV).run();
  expect_near(out[0], {two_key_average()});
  // Scale 0: uniform probabilities, two query heads sharing the kv head.
  auto gqa = OpTest("FlexAttention", 26, "ai.onnx.preview")
                 .input(f32({1, 2, 1, 2}, {1, 0, 0, 1}))
                 .input(kK)
                 .input(kV)
                 .attr("scale", 0.0f)
                 .run();
  expect_near(gqa[0], {2, 2});
  EXPECT_THROW(OpTest("FlexAttention", 26, "ai.onnx.preview")
                   .input(f32({1, 2}, {1, 0}))
                   .input(kK)
                   .input(kV)
                   .run(),
               Error);
}

// Modifiers. Q rows [1, 0] and [0, 1] against keys [1, 0] and [0, 1] with scale 1: the scores
// are the identity matrix; values 1 and 3.
const Tensor kQ2 = f32({1, 1, 2, 2}, {1, 0, 0, 1});
const Tensor kV2 = f32({1, 1, 2, 1}, {1, 3});

// softmax([s0, s1]) . [1, 3] for each query row.
std::vector<float> weighted(const std::vector<std::vector<float>>& rows) {
  std::vector<float> out;
  for (const auto& s : rows) {
    const float e0 = std::exp(s[0]), e1 = std::exp(s[1]);
    out.push_back((e0 * 1 + e1 * 3) / (e0 + e1));
  }
  return out;
}

OpTest flex(const char* attr, const Body& body) {
  return std::move(OpTest("FlexAttention", 26, "ai.onnx.preview")
                       .input(kQ2)
                       .input(kK)
                       .input(kV2)
                       .attr("scale", 1.0f)
                       .attr(attr, body.build()));
}

Body score_inputs(Body body) {
  return std::move(body.input("s").input("b").input("h").input("q").input("k"));
}

// score + (q - k): element-wise, so it runs once over the whole matrix.
TEST(FlexAttention, ScoreModOfIndices) {
  const Body mod = score_inputs(Body("score_mod"))
                       .node("Sub", {"q", "k"}, {"d"})
                       .node("Cast", {"d"}, {"df"}, {passes::int_attribute("to", 1)})
                       .node("Add", {"s", "df"}, {"out"})
                       .output("out");
  expect_near(flex("score_mod", mod).run()[0], weighted({{1, -1}, {1, 1}}));
}

// A bias looked up per key with Gather is not element-wise: it runs once per position.
TEST(FlexAttention, ScoreModPerPosition) {
  const Body mod = score_inputs(Body("score_mod"))
                       .constant("table", f32({2}, {0.5f, -2.0f}))
                       .node("Gather", {"table", "k"}, {"bias"})
                       .node("Add", {"s", "bias"}, {"out"})
                       .output("out");
  expect_near(flex("score_mod", mod).run()[0], weighted({{1.5f, -2}, {0.5f, -1}}));
}

// q >= k: a causal mask; the first query sees only the first key.
TEST(FlexAttention, MaskModIsBroadcast) {
  const Body mod = Body("mask_mod")
                       .input("b")
                       .input("h")
                       .input("q")
                       .input("k")
                       .node("GreaterOrEqual", {"q", "k"}, {"keep"})
                       .output("keep");
  expect_near(flex("mask_mod", mod).run()[0], {1, weighted({{0, 1}})[0]});
}

TEST(FlexAttention, ProbModScalesProbabilities) {
  const Body mod = score_inputs(Body("prob_mod"))
                       .constant("two", f32({}, {2}))
                       .node("Mul", {"s", "two"}, {"out"})
                       .output("out");
  const std::vector<float> plain = weighted({{1, 0}, {0, 1}});
  expect_near(flex("prob_mod", mod).run()[0], {2 * plain[0], 2 * plain[1]});
}

TEST(FlexAttention, BadModifiersAreErrors) {
  // Four inputs where a score modifier takes five.
  const Body short_mod = Body("score_mod").input("s").input("b").input("h").input("q").output("s");
  EXPECT_THROW(flex("score_mod", short_mod).run(), Error);
  // A mask must be bool.
  const Body float_mask = Body("mask_mod")
                              .input("b")
                              .input("h")
                              .input("q")
                              .input("k")
                              .node("Sub", {"q", "k"}, {"d"})
                              .output("d");
  EXPECT_THROW(flex("mask_mod", float_mask).run(), Error);
  // A string result that needs broadcasting: its bytes were copied as if plain data (freeing
  // the copies crashed) before the type was checked.
  const Body string_mask = Body("mask_mod")
                               .input("b")
                               .input("h")
                               .input("q")
                               .input("k")
                               .constant("word", Tensor::from_data<std::string>({1}, {"keep"}))
                               .node("Identity", {"word"}, {"out"})
                               .output("out");
  EXPECT_THROW(flex("mask_mod", string_mask).run(), Error);
}

TEST(FlexAttention, HugeScoreMatricesWithModifiers) {
  const Body mod = score_inputs(Body("score_mod")).output("s");
  // Empty heads over 2^30 positions: Y is empty, and no 2^60-element score matrix is made.
  const Tensor empty = f32({1, 1, int64_t{1} << 30, 0}, {});
  auto out = OpTest("FlexAttention", 26, "ai.onnx.preview")
                 .input(empty)
                 .input(empty)
                 .input(empty)
                 .attr("score_mod", mod.build())
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, int64_t{1} << 30, 0}));
  // 2^20 queries and keys of size 1: a 2^40-element matrix is an error, not a failed allocation.
  const Tensor wide = f32({1, 1, int64_t{1} << 20, 1}, std::vector<float>(size_t{1} << 20, 0.0f));
  EXPECT_THROW(OpTest("FlexAttention", 26, "ai.onnx.preview")
                   .input(wide)
                   .input(wide)
                   .input(wide)
                   .attr("score_mod", mod.build())
                   .run(),
               Error);
}

}  // namespace
}  // namespace kiln::testing
