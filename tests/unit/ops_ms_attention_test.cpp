// Tests of ONNX Runtime's attention operators (com.microsoft) on the CPU: GroupQueryAttention,
// MultiHeadAttention, Attention and EmbedLayerNormalization, against a naive double-precision
// attention written here and against each other (a decode step after a prefill equals the
// longer prefill, a packed form equals the separate one). tests/contrib checks the same ops
// against ONNX Runtime's own outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "expect_error.h"
#include "kiln/kiln.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

OpTest ms(const std::string& op) { return OpTest(op, 17, kMs); }

std::vector<float> random_values(int64_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  return uniform_floats(n, seed, lo, hi);
}

Tensor i32(const Shape& shape, std::vector<int32_t> values) {
  return Tensor::from_data<int32_t>(shape, values);
}

void expect_close(const Tensor& actual, const std::vector<double>& expected, double tol = 1e-5) {
  ASSERT_EQ(actual.element_count(), static_cast<int64_t>(expected.size()));
  const std::vector<float> a = actual.to_vector<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(a[i], expected[i], tol) << "element " << i;
  }
}

void expect_same(const Tensor& actual, const Tensor& expected, double tol = 1e-5) {
  ASSERT_EQ(actual.shape(), expected.shape());
  const std::vector<float> e = expected.to_vector<float>();
  expect_close(actual, std::vector<double>(e.begin(), e.end()), tol);
}

// Naive attention of one query row over keys [0, n) with an additive bias per key (-inf
// hides): q [d], keys/values row-major [n, d] / [n, dv].
std::vector<double> attend_row(const float* q, const float* k, int64_t k_row, const float* v,
                               int64_t v_row, int64_t n, int64_t d, int64_t dv, double scale,
                               const std::function<double(int64_t)>& bias) {
  std::vector<double> s(static_cast<size_t>(n));
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    double dot = 0;
    for (int64_t x = 0; x < d; ++x) dot += double(q[x]) * k[j * k_row + x];
    s[j] = dot * scale + bias(j);
    mx = std::max(mx, s[j]);
  }
  double sum = 0;
  for (auto& x : s) sum += (x = std::exp(x - mx));
  std::vector<double> out(static_cast<size_t>(dv), 0.0);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t x = 0; x < dv; ++x) out[x] += s[j] / sum * v[j * v_row + x];
  }
  return out;
}

// ---- GroupQueryAttention -------------------------------------------------------------------

struct Gqa {
  int64_t heads = 4, kv_heads = 2, head = 8;
};

OpTest gqa(const Gqa& g, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& past_k,
           const Tensor& past_v, std::vector<int32_t> seqlens, int32_t total) {
  OpTest t = ms("GroupQueryAttention");
  t.input(q).input(k).input(v).input(past_k).input(past_v);
  t.input(i32({static_cast<int64_t>(seqlens.size())}, seqlens)).input(i32({1}, {total}));
  t.attr("num_heads", g.heads).attr("kv_num_heads", g.kv_heads).outputs(3);
  return t;
}

TEST(GroupQueryAttention, PrefillMatchesNaiveGroupedCausalAttention) {
  const Gqa g;
  const int64_t seq = 5;
  const auto q = random_values(seq * g.heads * g.head, 1);
  const auto k = random_values(seq * g.kv_heads * g.head, 2);
  const auto v = random_values(seq * g.kv_heads * g.head, 3);
  auto out = gqa(g, f32({1, seq, g.heads * g.head}, q), f32({1, seq, g.kv_heads * g.head}, k),
                 f32({1, seq, g.kv_heads * g.head}, v), Tensor(), Tensor(), {4}, 5)
                 .run();
  std::vector<double> expected;
  for (int64_t s = 0; s < seq; ++s) {
    for (int64_t h = 0; h < g.heads; ++h) {
      const int64_t kvh = h / (g.heads / g.kv_heads);
      auto row =
          attend_row(q.data() + (s * g.heads + h) * g.head, k.data() + kvh * g.head,
                     g.kv_heads * g.head, v.data() + kvh * g.head, g.kv_heads * g.head, s + 1,
                     g.head, g.head, 1.0 / std::sqrt(double(g.head)), [](int64_t) { return 0.0; });
      expected.insert(expected.end(), row.begin(), row.end());
    }
  }
  expect_close(out[0], expected);
  // present_key is BNSH: key head 1, token 3 is key[3, 8:16].
  ASSERT_EQ(out[1].shape(), (Shape{1, g.kv_heads, seq, g.head}));
  EXPECT_FLOAT_EQ(out[1].data<float>()[(1 * seq + 3) * g.head + 2],
                  k[(3 * g.kv_heads + 1) * g.head + 2]);
}

// A decode step over the prefill's present equals the last row of the longer prefill, with and
// without rotary embedding and a local window; the shared-buffer form (past as long as the
// present will be) gives the same.
TEST(GroupQueryAttention, DecodeAfterPrefillEqualsLongerPrefill) {
  const Gqa g;
  const int64_t seq = 6, hidden = g.heads * g.head, kv_hidden = g.kv_heads * g.head;
  const auto q = random_values(seq * hidden, 4), k = random_values(seq * kv_hidden, 5),
             v = random_values(seq * kv_hidden, 6);
  const auto angles = random_values(16 * 4, 7, -3, 3);
  std::vector<float> cos, sin;
  for (float x : angles) cos.push_back(std::cos(x)), sin.push_back(std::sin(x));
  auto slice = [](const std::vector<float>& x, int64_t first, int64_t n, int64_t width) {
    return std::vector<float>(x.begin() + first * width, x.begin() + (first + n) * width);
  };
  for (bool rotary : {false, true}) {
    for (int64_t window : {-1, 3}) {
      SCOPED_TRACE(std::string(rotary ? "rotary" : "plain") + ", window " + std::to_string(window));
      auto make = [&](int64_t first, int64_t n, const Tensor& pk, const Tensor& pv, int32_t total) {
        OpTest t =
            gqa(g, f32({1, n, hidden}, slice(q, first, n, hidden)),
                f32({1, n, kv_hidden}, slice(k, first, n, kv_hidden)),
                f32({1, n, kv_hidden}, slice(v, first, n, kv_hidden)), pk, pv, {total - 1}, total);
        t.attr("local_window_size", window);
        if (rotary) {
          t.input(f32({16, 4}, cos)).input(f32({16, 4}, sin)).attr("do_rotary", 1);
        }
        return t.run();
      };
      const auto full = make(0, seq, Tensor(), Tensor(), seq);
      const auto prefix = make(0, seq - 1, Tensor(), Tensor(), seq - 1);
      const auto step = make(seq - 1, 1, prefix[1], prefix[2], seq);
      std::vector<float> last = slice(full[0].to_vector<float>(), seq - 1, 1, hidden);
      expect_same(step[0], f32({1, 1, hidden}, last));
      expect_same(step[1], full[1]);
      // The shared buffer: a past of 8 rows holding the prefix, zeros after it.
      std::vector<float> big_k(g.kv_heads * 8 * g.head, 0.0f), big_v = big_k;
      for (int64_t h = 0; h < g.kv_heads; ++h) {
        for (int64_t i = 0; i < (seq - 1) * g.head; ++i) {
          big_k[h * 8 * g.head + i] = prefix[1].data<float>()[h * (seq - 1) * g.head + i];
          big_v[h * 8 * g.head + i] = prefix[2].data<float>()[h * (seq - 1) * g.head + i];
        }
      }
      const Shape big{1, g.kv_heads, 8, g.head};
      const auto shared = make(seq - 1, 1, f32(big, big_k), f32(big, big_v), seq);
      expect_same(shared[0], step[0]);
      ASSERT_EQ(shared[1].shape(), big);
    }
  }
}

// A cache donated to the run (InputUse::Donate) in the shared-buffer form is appended where it
// lies: the present outputs are the donated memory, step after step, and their rows up to the
// new token's are what a run without donation returns. Without donation the caller's cache is
// left as it was.
TEST(GroupQueryAttention, DonatedCacheIsAppendedInPlace) {
  const Gqa g;
  const int64_t rows = 8, hidden = g.heads * g.head, kv_hidden = g.kv_heads * g.head;
  const Shape cache_shape{1, g.kv_heads, rows, g.head};
  const auto cache_k = random_values(g.kv_heads * rows * g.head, 20);
  const auto cache_v = random_values(g.kv_heads * rows * g.head, 21);
  // The new token's query, key and value at `position`.
  auto token = [&](int64_t position) {
    return std::vector<Tensor>{f32({1, 1, hidden}, random_values(hidden, 22 + 3 * position)),
                               f32({1, 1, kv_hidden}, random_values(kv_hidden, 23 + 3 * position)),
                               f32({1, 1, kv_hidden}, random_values(kv_hidden, 24 + 3 * position))};
  };
  auto step = [&](int64_t position, const Tensor& pk, const Tensor& pv) {
    const auto qkv = token(position);
    return gqa(g, qkv[0], qkv[1], qkv[2], pk, pv, {static_cast<int32_t>(position)},
               static_cast<int32_t>(position + 1));
  };
  // The reference: each step without donation, on the previous step's present.
  std::vector<std::vector<Tensor>> expected;
  Tensor pk = f32(cache_shape, cache_k), pv = f32(cache_shape, cache_v);
  for (int64_t position : {3, 4}) {
    const std::vector<float> before = pk.to_vector<float>();
    expected.push_back(step(position, pk, pv).run());
    EXPECT_EQ(pk.to_vector<float>(), before) << "an input read without donation was modified";
    pk = expected.back()[1], pv = expected.back()[2];
  }

  Worker worker(step(3, pk, pv).model(), Backend::Cpu);
  Tensor key = f32(cache_shape, cache_k), value = f32(cache_shape, cache_v);
  const float* key_memory = key.data<float>();
  const float* value_memory = value.data<float>();
  for (size_t i = 0; i < 2; ++i) {
    const int64_t position = 3 + static_cast<int64_t>(i);
    const auto qkv = token(position);
    worker.schedule({{"in0", qkv[0]},
                     {"in1", qkv[1]},
                     {"in2", qkv[2]},
                     {"in3", std::move(key), InputUse::Donate},
                     {"in4", std::move(value), InputUse::Donate},
                     {"in5", i32({1}, {static_cast<int32_t>(position)})},
                     {"in6", i32({1}, {static_cast<int32_t>(position + 1)})}});
    SCOPED_TRACE("step at position " + std::to_string(position));
    expect_same(worker.peek_output("out0").readback_and_clone(), expected[i][0]);
    key = worker.take_output("out1");
    value = worker.take_output("out2");
    key.impl()->wait();
    value.impl()->wait();
    EXPECT_EQ(key.data<float>(), key_memory) << "the key cache was copied";
    EXPECT_EQ(value.data<float>(), value_memory) << "the value cache was copied";
    // Rows up to the new token's are the reference's; the rows beyond keep what the buffer held
    // (the reference's are zeros there).
    auto expect_cache = [&](const Tensor& actual, const Tensor& reference,
                            const std::vector<float>& original) {
      const std::vector<float> a = actual.to_vector<float>(), e = reference.to_vector<float>();
      for (size_t x = 0; x < a.size(); ++x) {
        const bool valid = static_cast<int64_t>(x / g.head) % rows <= position;
        EXPECT_NEAR(a[x], valid ? e[x] : original[x], 1e-6) << "element " << x;
      }
    };
    expect_cache(key, expected[i][1], cache_k);
    expect_cache(value, expected[i][2], cache_v);
  }
}

TEST(GroupQueryAttention, PackedQkvEqualsSeparateAndWindowCoveringAllIsNoWindow) {
  const Gqa g;
  const int64_t seq = 4, hidden = g.heads * g.head, kv_hidden = g.kv_heads * g.head;
  const int64_t width = hidden + 2 * kv_hidden;
  const auto packed = random_values(2 * seq * width, 8);
  std::vector<float> q, k, v;
  for (int64_t t = 0; t < 2 * seq; ++t) {
    const float* row = packed.data() + t * width;
    q.insert(q.end(), row, row + hidden);
    k.insert(k.end(), row + hidden, row + hidden + kv_hidden);
    v.insert(v.end(), row + hidden + kv_hidden, row + width);
  }
  const auto separate = gqa(g, f32({2, seq, hidden}, q), f32({2, seq, kv_hidden}, k),
                            f32({2, seq, kv_hidden}, v), Tensor(), Tensor(), {3, 2}, seq)
                            .run();
  const auto together =
      gqa(g, f32({2, seq, width}, packed), Tensor(), Tensor(), Tensor(), Tensor(), {3, 2}, seq)
          .run();
  for (int i = 0; i < 3; ++i) expect_same(together[i], separate[i]);
  const auto wide = gqa(g, f32({2, seq, hidden}, q), f32({2, seq, kv_hidden}, k),
                        f32({2, seq, kv_hidden}, v), Tensor(), Tensor(), {3, 2}, seq)
                        .attr("local_window_size", seq)
                        .run();
  expect_same(wide[0], separate[0]);
  const auto narrow = gqa(g, f32({2, seq, hidden}, q), f32({2, seq, kv_hidden}, k),
                          f32({2, seq, kv_hidden}, v), Tensor(), Tensor(), {3, 2}, seq)
                          .attr("local_window_size", 1)
                          .run();
  // A window of one key: each query returns its own token's value (token 1, query head 0, which
  // reads key/value head 0).
  for (int64_t d = 0; d < g.head; ++d) {
    EXPECT_NEAR(narrow[0].data<float>()[hidden + d], v[kv_hidden + d], 1e-6);
  }
}

TEST(GroupQueryAttention, BadAttributesAndInputs) {
  const Gqa g;
  const Tensor q = f32({1, 2, 32}, random_values(64, 9)), k = f32({1, 2, 16}, random_values(32, 1));
  auto run = [&](std::vector<int32_t> seqlens, int32_t total, const Tensor& past = Tensor()) {
    gqa(g, q, k, k, past, past, std::move(seqlens), total).run();
  };
  expect_error([&] { run({2}, 2); }, {"GroupQueryAttention", "seqlens_k[0] = 2"});
  expect_error([&] { run({-1}, 2); }, {"seqlens_k[0] = -1"});
  expect_error(
      [&] {
        run({3}, 4, f32({1, 2, 1, 8}, random_values(16, 1)));
      },
      {"needs 2 past keys", "past holds 1"});
  expect_error([&] { run({1}, 2, f32({1, 3, 1, 8}, random_values(24, 1))); }, {"past_key"});
  expect_error(
      [&] {
        ms("GroupQueryAttention").input(q).attr("num_heads", 4).attr("kv_num_heads", 3).run();
      },
      {"multiple of kv_num_heads"});
  expect_error(
      [&] {
        gqa(g, q, k, k, Tensor(), Tensor(), {1}, 2)
            .attr("causal", 0)
            .attr("local_window_size", 2)
            .run();
      },
      {"local_window_size", "causal"});
  expect_error([&] { gqa(g, q, k, k, Tensor(), Tensor(), {1}, 2).attr("smooth_softmax", 1).run(); },
               {"smooth_softmax"});
  expect_error([&] { gqa(g, q, k, k, Tensor(), Tensor(), {1}, 2).attr("do_rotary", 1).run(); },
               {"cos_cache"});
  expect_error(
      [&] {
        gqa(g, q, k, k, Tensor(), Tensor(), {1}, 2)
            .input(f32({1, 4}, random_values(4, 1)))
            .input(f32({1, 4}, random_values(4, 1)))
            .attr("do_rotary", 1)
            .run();
      },
      {"position 1", "1 rows"});
  expect_error(
      [&] {
        ms("GroupQueryAttention")
            .input(q)
            .input(k)
            .input(k)
            .input(Tensor())
            .input(Tensor())
            .input(i64({1}, {1}))
            .input(i32({1}, {2}))
            .attr("num_heads", 4)
            .attr("kv_num_heads", 2)
            .run();
      },
      {"seqlens_k", "int32"});
  expect_error(
      [&] {
        gqa(g, f32({1, 2, 30}, random_values(60, 1)), Tensor(), Tensor(), Tensor(), Tensor(), {1},
            2)
            .run();
      },
      {"packed query width 30"});
  // A hostile total_sequence_length asks for present caches larger than a tensor can hold:
  // refused before anything is allocated.
  expect_error(
      [&] {
        gqa(g, f32({64, 1, 32}, random_values(64 * 32, 1)),
            f32({64, 1, 16}, random_values(1024, 2)), f32({64, 1, 16}, random_values(1024, 3)),
            Tensor(), Tensor(), std::vector<int32_t>(64, 0), 2000000000)
            .run();
      },
      {"GroupQueryAttention", "[64, 2, 2000000000, 8]"});
}

// ---- MultiHeadAttention --------------------------------------------------------------------

TEST(MultiHeadAttention, PackedFormsEqualSeparateAndMaskFormsAgree) {
  const int64_t heads = 2, head = 4, seq = 3, hidden = heads * head;
  const auto qkv = random_values(2 * seq * heads * 3 * head, 10);
  std::vector<float> q, k, v, kv;
  for (int64_t t = 0; t < 2 * seq; ++t) {
    for (int64_t n = 0; n < heads; ++n) {
      const float* p = qkv.data() + (t * heads + n) * 3 * head;
      q.insert(q.end(), p, p + head);
      k.insert(k.end(), p + head, p + 2 * head);
      v.insert(v.end(), p + 2 * head, p + 3 * head);
      kv.insert(kv.end(), p + head, p + 3 * head);
    }
  }
  const Shape s3{2, seq, hidden};
  auto mha = [&] { return std::move(ms("MultiHeadAttention").attr("num_heads", heads)); };
  const auto separate = mha().input(f32(s3, q)).input(f32(s3, k)).input(f32(s3, v)).run();
  expect_same(mha().input(f32({2, seq, heads, 3, head}, qkv)).run()[0], separate[0]);
  expect_same(mha().input(f32(s3, q)).input(f32({2, seq, heads, 2, head}, kv)).run()[0],
              separate[0]);
  // Key lengths [2, 1] as lengths, as a 2-D mask and as a 3-D mask.
  auto masked = [&](const Tensor& mask) {
    return mha()
        .input(f32(s3, q))
        .input(f32(s3, k))
        .input(f32(s3, v))
        .input(Tensor())
        .input(mask)
        .run()[0];
  };
  const Tensor by_length = masked(i32({2}, {2, 1}));
  expect_same(masked(i32({2, seq}, {1, 1, 0, 1, 0, 0})), by_length);
  expect_same(masked(i32({2, seq, seq}, {1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0})),
              by_length);
  // Sequence 1 sees only key 0: its output is value row 0 of each head.
  for (int64_t d = 0; d < hidden; ++d) {
    EXPECT_NEAR(by_length.data<float>()[(seq + 2) * hidden + d], v[seq * hidden + d], 1e-6);
  }
}

TEST(MultiHeadAttention, BadInputs) {
  const Tensor x = f32({1, 2, 8}, random_values(16, 11));
  auto mha = [&] { return std::move(ms("MultiHeadAttention").attr("num_heads", 2)); };
  expect_error(
      [&] {
        mha().input(x).input(x).input(x).input(Tensor()).input(i32({3}, {1, 1, 1})).run();
      },
      {"MultiHeadAttention", "mask has shape [3]"});
  expect_error([&] { mha().input(x).input(x).input(x).input(Tensor()).input(i64({1}, {1})).run(); },
               {"int32"});
  expect_error([&] { mha().input(x).input(x).input(x).input(f32({5}, random_values(5, 1))).run(); },
               {"bias must be [24]"});
  expect_error([&] { mha().input(x).run(); }, {"key is required"});
  expect_error(
      [&] {
        mha().input(x).input(f32({1, 2, 6}, random_values(12, 1))).input(x).run();
      },
      {"key and value"});
  expect_error([&] { ms("MultiHeadAttention").input(x).input(x).input(x).run(); }, {"num_heads"});
  expect_error(
      [&] {
        mha()
            .input(x)
            .input(x)
            .input(x)
            .input(Tensor())
            .input(Tensor())
            .input(f32({1, 2, 2, 3}, random_values(12, 1)))
            .run();
      },
      {"attention_bias must have shape"});
}

// ---- Attention -----------------------------------------------------------------------------

TEST(MsAttention, EqualsMultiHeadAttentionOfTheProjectionAnd4dMaskEquals3d) {
  const int64_t heads = 2, head = 4, seq = 3, width = 5, hidden = heads * head;
  const auto x = random_values(2 * seq * width, 12);
  const auto w = random_values(width * 3 * hidden, 13);
  const auto bias = random_values(3 * hidden, 14);
  std::vector<float> qkv[3];
  for (int64_t t = 0; t < 2 * seq; ++t) {
    for (int64_t c = 0; c < 3 * hidden; ++c) {
      double acc = bias[c];
      for (int64_t i = 0; i < width; ++i) acc += double(x[t * width + i]) * w[i * 3 * hidden + c];
      qkv[c / hidden].push_back(static_cast<float>(acc));
    }
  }
  const Shape s3{2, seq, hidden};
  const Tensor mask3 = i32({2, seq, seq}, {1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1});
  auto attention = [&](const Tensor& mask) {
    return ms("Attention")
        .input(f32({2, seq, width}, x))
        .input(f32({width, 3 * hidden}, w))
        .input(f32({3 * hidden}, bias))
        .input(mask)
        .attr("num_heads", heads)
        .run()[0];
  };
  const Tensor expected = ms("MultiHeadAttention")
                              .input(f32(s3, qkv[0]))
                              .input(f32(s3, qkv[1]))
                              .input(f32(s3, qkv[2]))
                              .input(Tensor())
                              .input(mask3)
                              .attr("num_heads", heads)
                              .run()[0];
  expect_same(attention(mask3), expected, 1e-4);
  // The same rows inside a [batch, 1, 5, 5] mask (no past: rows 0..2, columns 0..2).
  std::vector<int32_t> m4(2 * 25, 0);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < seq; ++i) {
      for (int64_t j = 0; j < seq; ++j)
        m4[b * 25 + i * 5 + j] = mask3.data<int32_t>()[(b * seq + i) * seq + j];
    }
  }
  expect_same(attention(i32({2, 1, 5, 5}, m4)), expected, 1e-4);
}

TEST(MsAttention, BadInputs) {
  const Tensor x = f32({1, 2, 4}, random_values(8, 15));
  const Tensor w = f32({4, 24}, random_values(96, 16));
  auto attention = [&] {
    return std::move(ms("Attention").input(x).input(w).attr("num_heads", 2));
  };
  expect_error(
      [&] {
        ms("Attention")
            .input(x)
            .input(f32({3, 24}, random_values(72, 1)))
            .attr("num_heads", 2)
            .run();
      },
      {"Attention", "weights must be [4"});
  expect_error(
      [&] {
        attention().attr("qkv_hidden_sizes", std::vector<int64_t>{8, 8, 4}).run();
      },
      {"qkv_hidden_sizes add up to 20"});
  expect_error(
      [&] {
        attention().attr("qkv_hidden_sizes", std::vector<int64_t>{8, 6, 10}).run();
      },
      {"Q and K"});
  expect_error(
      [&] {
        attention().input(Tensor()).input(i32({2, 3}, {1, 1, 1, 1, 1, 1})).run();
      },
      {"mask has shape [2, 3]"});
  expect_error(
      [&] {
        attention()
            .input(Tensor())
            .input(Tensor())
            .input(f32({2, 1, 3, 1, 4}, random_values(24, 1)))
            .run();
      },
      {"past must be [2, 1, 2"});
}

// ---- EmbedLayerNormalization ---------------------------------------------------------------

TEST(EmbedLayerNormalization, SumsNormalizesAndCountsTheMask) {
  const int64_t hidden = 6, batch = 2, seq = 3;
  const auto word = random_values(5 * hidden, 17), pos = random_values(4 * hidden, 18),
             seg = random_values(2 * hidden, 19), gamma = random_values(hidden, 20),
             beta = random_values(hidden, 21);
  const std::vector<int32_t> ids = {4, 0, 2, 1, 1, 3}, segs = {0, 1, 1, 0, 0, 1},
                             positions = {3, 0, 1};
  auto out = ms("EmbedLayerNormalization")
                 .input(i32({batch, seq}, ids))
                 .input(i32({batch, seq}, segs))
                 .input(f32({5, hidden}, word))
                 .input(f32({4, hidden}, pos))
                 .input(f32({2, hidden}, seg))
                 .input(f32({hidden}, gamma))
                 .input(f32({hidden}, beta))
                 .input(i32({batch, seq}, {1, 1, 0, 1, 0, 0}))
                 .input(i32({1, seq}, positions))
                 .attr("epsilon", 1e-5f)
                 .outputs(3)
                 .run();
  std::vector<double> expected, sums;
  for (int64_t t = 0; t < batch * seq; ++t) {
    std::vector<double> x(hidden);
    double mean = 0, var = 0;
    for (int64_t d = 0; d < hidden; ++d) {
      x[d] = double(word[ids[t] * hidden + d]) + pos[positions[t % seq] * hidden + d] +
             seg[segs[t] * hidden + d];
      mean += x[d] / hidden;
    }
    for (double e : x) var += (e - mean) * (e - mean) / hidden;
    for (int64_t d = 0; d < hidden; ++d) {
      expected.push_back((x[d] - mean) / std::sqrt(var + 1e-5) * gamma[d] + beta[d]);
      sums.push_back(x[d]);
    }
  }
  expect_close(out[0], expected);
  EXPECT_EQ(out[1].to_vector<int32_t>(), (std::vector<int32_t>{2, 1}));
  expect_close(out[2], sums);
}

TEST(EmbedLayerNormalization, BadInputs) {
  const int64_t hidden = 4;
  auto embed = [&](const Tensor& ids, const Tensor& segs, const Tensor& seg_table) {
    ms("EmbedLayerNormalization")
        .input(ids)
        .input(segs)
        .input(f32({3, hidden}, random_values(12, 1)))
        .input(f32({2, hidden}, random_values(8, 2)))
        .input(seg_table)
        .input(f32({hidden}, random_values(4, 3)))
        .input(f32({hidden}, random_values(4, 4)))
        .outputs(2)
        .run();
  };
  const Tensor seg_table = f32({2, hidden}, random_values(8, 5));
  expect_error(
      [&] {
        embed(i32({1, 2}, {0, 3}), Tensor(), Tensor());
      },
      {"EmbedLayerNormalization", "input id 3", "3 rows"});
  expect_error([&] { embed(i32({1, 3}, {0, 1, 2}), Tensor(), Tensor()); }, {"position 2"});
  expect_error(
      [&] {
        embed(i32({1, 2}, {0, 1}), i32({1, 2}, {0, 2}), seg_table);
      },
      {"segment id 2"});
  expect_error(
      [&] {
        embed(i32({1, 2}, {0, 1}), i32({1, 2}, {0, 1}), Tensor());
      },
      {"given together"});
  expect_error([&] { embed(i32({2}, {0, 1}), Tensor(), Tensor()); }, {"input_ids"});
}

}  // namespace
}  // namespace kiln::testing
