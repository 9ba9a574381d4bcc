// Tests of ONNX Runtime's contrib operators (com.microsoft) on the CPU, against naive
// double-precision references written here: Gelu, QuickGelu, FastGelu, BiasGelu, BiasAdd,
// SkipLayerNormalization, SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization,
// LayerNormalization (both domains), RotaryEmbedding and FusedMatMul. The same ops are checked
// against ONNX Runtime's own outputs by the tests/contrib suite (scripts/run-conformance.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "expect_error.h"
#include "kiln/kiln.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

OpTest ms(const std::string& op) { return OpTest(op, 17, kMs); }

std::vector<float> random_values(int64_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  return uniform_floats(n, seed, lo, hi);
}

void expect_near_all(const Tensor& actual, const std::vector<double>& expected, double tol) {
  ASSERT_EQ(actual.element_count(), static_cast<int64_t>(expected.size()));
  std::vector<float> a;
  if (actual.dtype() == DataType::Float16) {
    for (int64_t i = 0; i < actual.element_count(); ++i)
      a.push_back(static_cast<float>(actual.data<Float16>()[i]));
  } else {
    a = actual.to_vector<float>();
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(value_matches(a[i], expected[i], tol, tol))
        << "element " << i << ": " << a[i] << ", expected " << expected[i];
  }
}

double gelu_exact_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

std::vector<double> map_ref(const std::vector<float>& x, const std::function<double(double)>& f) {
  std::vector<double> out;
  for (float v : x) out.push_back(f(v));
  return out;
}

// ---- domains -------------------------------------------------------------------------------

TEST(ContribDomain, UnknownOpNamesDomainAndOp) {
  expect_error([] { ms("NoSuchContribOp").input(f32({1}, {1})).run(); },
               {"com.microsoft", "NoSuchContribOp", "not supported"});
}

TEST(ContribDomain, SameNameInTwoDomainsKeepsEachMeaning) {
  // ai.onnx's Gelu takes approximate="tanh"; ONNX Runtime's Gelu is always the exact form.
  const std::vector<float> xv = {-3, -1, -0.5f, 0, 0.5f, 1, 2, 3};
  const Tensor x = f32({8}, xv);
  auto onnx_tanh = OpTest("Gelu", 20).input(x).attr("approximate", "tanh").run();
  auto contrib = ms("Gelu").input(x).run();
  expect_near_all(onnx_tanh[0], map_ref(xv, gelu_tanh_ref), 1e-6);
  expect_near_all(contrib[0], map_ref(xv, gelu_exact_ref), 1e-6);
  // ai.onnx's RotaryEmbedding takes (X, cos, sin, position_ids); com.microsoft's takes
  // (input, position_ids, cos, sin): the same rotation from the two orders.
  const Tensor rx = f32({1, 1, 4}, {1, 2, 3, 4});
  const Tensor cos = f32({2, 2}, {1, 1, 0, 0}), sin = f32({2, 2}, {0, 0, 1, 1});
  const Tensor ids = i64({1, 1}, {1});
  auto onnx_rot = OpTest("RotaryEmbedding", 23)
                      .input(rx)
                      .input(cos)
                      .input(sin)
                      .input(ids)
                      .attr("num_heads", 1)
                      .run();
  auto ms_rot = ms("RotaryEmbedding").input(rx).input(ids).input(cos).input(sin).run();
  expect_near_all(onnx_rot[0], {-3, -4, 1, 2}, 1e-6);
  expect_near_all(ms_rot[0], {-3, -4, 1, 2}, 1e-6);
}

// ---- activations ---------------------------------------------------------------------------

TEST(ContribActivations, GeluAndQuickGelu) {
  const auto xv = random_values(24, 1, -5, 5);
  const Tensor x = f32({2, 3, 4}, xv);
  expect_near_all(ms("Gelu").input(x).run()[0], map_ref(xv, gelu_exact_ref), 1e-6);
  auto quick = [](double alpha) {
    return [alpha](double v) { return v / (1 + std::exp(-alpha * v)); };
  };
  expect_near_all(ms("QuickGelu").input(x).run()[0], map_ref(xv, quick(1.702)), 1e-6);
  expect_near_all(ms("QuickGelu").input(x).attr("alpha", 0.75f).run()[0], map_ref(xv, quick(0.75)),
                  1e-6);
  // Double keeps double; an empty tensor stays empty; integers are refused.
  auto d = ms("Gelu").input(Tensor::from_data<double>({2}, {-1.0, 2.0})).run();
  EXPECT_EQ(d[0].dtype(), DataType::Float64);
  EXPECT_NEAR(d[0].data<double>()[1], gelu_exact_ref(2.0), 1e-12);
  EXPECT_EQ(ms("QuickGelu").input(f32({0, 3}, {})).run()[0].shape(), (Shape{0, 3}));
  EXPECT_THROW(ms("Gelu").input(i64({2}, {1, 2})).run(), Error);
}

TEST(ContribActivations, FastGeluWithAndWithoutBias) {
  const auto xv = random_values(12, 2, -3, 3);
  const auto bv = random_values(4, 3);
  expect_near_all(ms("FastGelu").input(f32({3, 4}, xv)).run()[0], map_ref(xv, gelu_tanh_ref), 1e-6);
  std::vector<double> expected;
  for (size_t i = 0; i < xv.size(); ++i) expected.push_back(gelu_tanh_ref(xv[i] + bv[i % 4]));
  expect_near_all(ms("FastGelu").input(f32({3, 4}, xv)).input(f32({4}, bv)).run()[0], expected,
                  1e-6);
  // The far negative tail is tiny, not zero.
  auto tail = ms("FastGelu").input(f32({2}, {-5.0f, -6.0f})).run();
  expect_near_all(tail[0], {gelu_tanh_ref(-5.0), gelu_tanh_ref(-6.0)}, 2e-7);
  // bias must be 1-D of the last dimension, of the input's type.
  expect_error(
      [&] {
        ms("FastGelu").input(f32({3, 4}, xv)).input(f32({3}, {1, 2, 3})).run();
      },
      {"bias", "last dimension 4"});
  expect_error(
      [&] {
        ms("FastGelu").input(f32({3, 4}, xv)).input(i64({4}, {1, 2, 3, 4})).run();
      },
      {"bias", "element type"});
  EXPECT_THROW(ms("FastGelu").input(f32({}, {1.0f})).run(), Error);
}

TEST(ContribActivations, BiasGeluAndBiasAdd) {
  const auto av = random_values(24, 4, -4, 4);
  const auto bv = random_values(8, 5);
  const auto sv = random_values(24, 6);
  std::vector<double> gelu, add;
  for (size_t i = 0; i < av.size(); ++i) {
    gelu.push_back(gelu_exact_ref(av[i] + bv[i % 8]));
    add.push_back(double(av[i]) + bv[i % 8] + sv[i]);
  }
  const Tensor a = f32({1, 3, 8}, av), b = f32({8}, bv), skip = f32({1, 3, 8}, sv);
  expect_near_all(ms("BiasGelu").input(a).input(b).run()[0], gelu, 1e-6);
  expect_near_all(ms("BiasAdd").input(a).input(b).input(skip).run()[0], add, 1e-6);
  // Both operands are required; skip must have the input's shape.
  EXPECT_THROW(ms("BiasGelu").input(a).run(), Error);
  EXPECT_THROW(ms("BiasAdd").input(a).input(b).run(), Error);
  expect_error(
      [&] {
        ms("BiasAdd").input(a).input(b).input(f32({3, 8}, sv)).run();
      },
      {"skip", "shape"});
}

// ---- normalizations ------------------------------------------------------------------------

struct NormRef {
  std::vector<double> y, mean, inv_std;
};

// Each row of `width` values of x normalized (centred unless rms), scaled and shifted.
NormRef row_norm_ref(const std::vector<double>& x, int64_t width, const std::vector<float>& gamma,
                     const std::vector<float>* beta, double eps, bool rms) {
  NormRef r;
  for (size_t row = 0; row * width < x.size(); ++row) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < width; ++i) mean += x[row * width + i];
    mean = rms ? 0 : mean / width;
    for (int64_t i = 0; i < width; ++i) var += std::pow(x[row * width + i] - mean, 2);
    const double inv = 1 / std::sqrt(var / width + eps);
    r.mean.push_back(mean);
    r.inv_std.push_back(inv);
    for (int64_t i = 0; i < width; ++i) {
      r.y.push_back((x[row * width + i] - mean) * inv * gamma[i] + (beta ? (*beta)[i] : 0.0));
    }
  }
  return r;
}

TEST(SkipLayerNormalization, EveryOutputWithBetaAndBias) {
  const Shape shape{2, 3, 8};
  const auto xv = random_values(48, 7, -3, 5), sv = random_values(48, 8);
  const auto gv = random_values(8, 9), bev = random_values(8, 10), biv = random_values(8, 11);
  std::vector<double> sum;
  for (size_t i = 0; i < xv.size(); ++i) sum.push_back(double(xv[i]) + sv[i] + biv[i % 8]);
  const NormRef ref = row_norm_ref(sum, 8, gv, &bev, 1e-4, false);
  auto out = ms("SkipLayerNormalization")
                 .input(f32(shape, xv))
                 .input(f32(shape, sv))
                 .input(f32({8}, gv))
                 .input(f32({8}, bev))
                 .input(f32({8}, biv))
                 .outputs(4)
                 .attr("epsilon", 1e-4f)
                 .run();
  expect_near_all(out[0], ref.y, 1e-5);
  EXPECT_EQ(out[1].shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(out[1].dtype(), DataType::Float32);
  expect_near_all(out[1], ref.mean, 1e-5);
  expect_near_all(out[2], ref.inv_std, 1e-5);
  expect_near_all(out[3], sum, 1e-6);
}

TEST(SkipLayerNormalization, BroadcastSkipDefaultEpsilonAndFloat16) {
  const auto xv = random_values(24, 12), sv = random_values(8, 13), gv = random_values(8, 14);
  std::vector<double> sum;
  for (size_t i = 0; i < xv.size(); ++i) sum.push_back(double(xv[i]) + sv[i % 8]);
  // skip [1, 8] (and [8]) is added to every row; epsilon defaults to 1e-12.
  for (const Shape& skip_shape : {Shape{1, 8}, Shape{8}}) {
    auto out = ms("SkipLayerNormalization")
                   .input(f32({3, 8}, xv))
                   .input(f32(skip_shape, sv))
                   .input(f32({8}, gv))
                   .run();
    expect_near_all(out[0], row_norm_ref(sum, 8, gv, nullptr, 1e-12, false).y, 1e-5);
  }
  // A row with variance 1e-6: epsilon 1e-12 leaves it at unit variance, 1e-5 would not.
  std::vector<float> flat(8);
  for (int i = 0; i < 8; ++i) flat[i] = (i % 2 ? 1e-3f : -1e-3f);
  auto tiny = ms("SkipLayerNormalization")
                  .input(f32({1, 8}, flat))
                  .input(f32({1, 8}, std::vector<float>(8, 0.0f)))
                  .input(f32({8}, std::vector<float>(8, 1.0f)))
                  .run();
  EXPECT_NEAR(tiny[0].data<float>()[1], 1.0f, 1e-4f);
  // float16: the sum is rounded only in input_skip_bias_sum.
  std::vector<Float16> hx, hs, hg;
  for (float v : xv) hx.push_back(Float16(v));
  for (int i = 0; i < 24; ++i) hs.push_back(Float16(sv[i % 8]));
  for (float v : gv) hg.push_back(Float16(v));
  std::vector<double> hsum;
  std::vector<float> hgf;
  for (int i = 0; i < 24; ++i)
    hsum.push_back(double(static_cast<float>(hx[i])) + static_cast<float>(hs[i]));
  for (auto g : hg) hgf.push_back(static_cast<float>(g));
  auto half = ms("SkipLayerNormalization")
                  .input(Tensor::from_data<Float16>({3, 8}, hx))
                  .input(Tensor::from_data<Float16>({3, 8}, hs))
                  .input(Tensor::from_data<Float16>({8}, hg))
                  .outputs(4)
                  .absent_output(1)
                  .absent_output(2)
                  .run();
  ASSERT_EQ(half[0].dtype(), DataType::Float16);
  expect_near_all(half[0], row_norm_ref(hsum, 8, hgf, nullptr, 1e-12, false).y, 4e-3);
  ASSERT_EQ(half.size(), 2u);  // the outputs the node names: output, input_skip_bias_sum
  expect_near_all(half[1], hsum, 2e-3);
}

TEST(SkipLayerNormalization, BadInputs) {
  const Tensor x = f32({2, 4}, random_values(8, 15)), g = f32({4}, {1, 1, 1, 1});
  auto run = [&](const Tensor& skip, const Tensor& gamma, const Tensor& beta = Tensor()) {
    ms("SkipLayerNormalization").input(x).input(skip).input(gamma).input(beta).run();
  };
  expect_error([&] { run(f32({4, 2}, random_values(8, 1)), g); }, {"skip", "shape"});
  expect_error([&] { run(f32({3, 4}, random_values(12, 1)), g); }, {"skip"});
  expect_error([&] { run(x, f32({2}, {1, 1})); }, {"gamma", "hidden size"});
  expect_error([&] { run(x, g, f32({1, 4}, {1, 1, 1, 1})); }, {"beta"});
  expect_error([&] { run(i64({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), g); }, {"skip"});
  expect_error([&] { ms("SkipLayerNormalization").input(x).input(x).run(); }, {"gamma"});
  expect_error(
      [&] { ms("SkipLayerNormalization").input(x).input(x).input(g).attr("epsilon", -1.0f).run(); },
      {"epsilon"});
}

TEST(SkipSimplifiedLayerNormalization, RmsOfTheBiasedSum) {
  const auto xv = random_values(24, 16), sv = random_values(24, 17);
  const auto gv = random_values(8, 18), biv = random_values(8, 19);
  std::vector<double> sum;
  for (size_t i = 0; i < xv.size(); ++i) sum.push_back(double(xv[i]) + sv[i] + biv[i % 8]);
  const NormRef ref = row_norm_ref(sum, 8, gv, nullptr, 1e-5, true);
  auto out = ms("SkipSimplifiedLayerNormalization")
                 .input(f32({3, 8}, xv))
                 .input(f32({3, 8}, sv))
                 .input(f32({8}, gv))
                 .input(f32({8}, biv))
                 .outputs(4)
                 .absent_output(1)
                 .attr("epsilon", 1e-5f)
                 .run();
  ASSERT_EQ(out.size(), 3u);  // output, inv_std_var, input_skip_bias_sum
  expect_near_all(out[0], ref.y, 1e-5);
  EXPECT_EQ(out[1].shape(), (Shape{3, 1}));
  expect_near_all(out[1], ref.inv_std, 1e-5);
  expect_near_all(out[2], sum, 1e-6);
  // An RMS norm does not centre: its mean output is zeros (as ONNX Runtime gives it).
  auto with_mean = ms("SkipSimplifiedLayerNormalization")
                       .input(f32({3, 8}, xv))
                       .input(f32({3, 8}, sv))
                       .input(f32({8}, gv))
                       .outputs(2)
                       .run();
  EXPECT_EQ(with_mean[1].shape(), (Shape{3, 1}));
  expect_near_all(with_mean[1], {0, 0, 0}, 0);
}

TEST(SimplifiedLayerNormalization, BothDomainsAxisAndInvStd) {
  const auto xv = random_values(24, 20), sv = random_values(12, 21);
  std::vector<double> x(xv.begin(), xv.end());
  const NormRef ref = row_norm_ref(x, 12, sv, nullptr, 1e-5, true);
  for (const char* domain : {"", kMs}) {
    auto out = OpTest("SimplifiedLayerNormalization", 17, domain)
                   .input(f32({2, 3, 4}, xv))
                   .input(f32({3, 4}, sv))
                   .outputs(2)
                   .attr("axis", 1)
                   .run();
    SCOPED_TRACE(domain);
    expect_near_all(out[0], ref.y, 1e-5);
    EXPECT_EQ(out[1].shape(), (Shape{2, 1, 1}));
    expect_near_all(out[1], ref.inv_std, 1e-5);
  }
  expect_error(
      [&] {
        OpTest("SimplifiedLayerNormalization", 17)
            .input(f32({2, 3, 4}, xv))
            .input(f32({3, 4}, sv))
            .outputs(3)
            .run();
      },
      {"at most 2 outputs"});
}

TEST(LayerNormalization, ContribDomainAndOpsetBefore17) {
  const auto xv = random_values(24, 22), sv = random_values(8, 23), bv = random_values(8, 24);
  std::vector<double> x(xv.begin(), xv.end());
  const NormRef ref = row_norm_ref(x, 8, sv, &bv, 1e-5, false);
  for (auto [opset, domain] : {std::pair{17, kMs}, std::pair{13, ""}}) {
    auto out = OpTest("LayerNormalization", opset, domain)
                   .input(f32({3, 8}, xv))
                   .input(f32({8}, sv))
                   .input(f32({8}, bv))
                   .outputs(3)
                   .run();
    expect_near_all(out[0], ref.y, 1e-5);
    expect_near_all(out[1], ref.mean, 1e-5);
    expect_near_all(out[2], ref.inv_std, 1e-5);
  }
}

// ---- RotaryEmbedding -----------------------------------------------------------------------

// The rotation of one head of `x` at cache row `pos`.
std::vector<double> rotate_ref(const std::vector<float>& head, const std::vector<float>& cos,
                               const std::vector<float>& sin, int64_t pos, int64_t width,
                               int64_t rotary_dim, bool interleaved) {
  std::vector<double> out(head.begin(), head.end());
  const int64_t half = rotary_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const int64_t a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + half;
    const double c = cos[pos * width + i], s = sin[pos * width + i];
    out[a] = head[a] * c - head[b] * s;
    out[b] = head[a] * s + head[b] * c;
  }
  return out;
}

TEST(ContribRotaryEmbedding, PositionsOffsetsLayoutsAndPartialRotation) {
  const int64_t batch = 2, seq = 3, heads = 2, head = 8, max_pos = 6;
  const auto xv = random_values(batch * seq * heads * head, 25);
  const auto angles = random_values(max_pos * 4, 26, -3, 3);
  std::vector<float> cos, sin;
  for (float a : angles) {
    cos.push_back(std::cos(a));
    sin.push_back(std::sin(a));
  }
  const std::vector<int64_t> ids = {5, 0, 2, 1, 4, 3};
  for (bool interleaved : {false, true}) {
    for (bool offset : {false, true}) {
      // 3-D [batch, seq, heads * head]: heads from the caches' width.
      std::vector<double> expected;
      for (int64_t t = 0; t < batch * seq; ++t) {
        for (int64_t h = 0; h < heads; ++h) {
          const auto* p = xv.data() + (t * heads + h) * head;
          const int64_t pos = offset ? 2 + t % seq : ids[t];
          auto r = rotate_ref({p, p + head}, cos, sin, pos, 4, head, interleaved);
          expected.insert(expected.end(), r.begin(), r.end());
        }
      }
      auto out = ms("RotaryEmbedding")
                     .input(f32({batch, seq, heads * head}, xv))
                     .input(offset ? i64({1}, {2}) : i64({batch, seq}, ids))
                     .input(f32({max_pos, 4}, cos))
                     .input(f32({max_pos, 4}, sin))
                     .attr("interleaved", interleaved ? 1 : 0)
                     .run();
      SCOPED_TRACE(std::string(interleaved ? "interleaved" : "halves") +
                   (offset ? ", offset" : ", ids"));
      expect_near_all(out[0], expected, 1e-5);
    }
  }
  // 4-D [batch, heads, seq, head] and a partial rotation (rotary_embedding_dim 4 of 8).
  std::vector<double> expected;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        const auto* p = xv.data() + ((b * heads + h) * seq + s) * head;
        auto r = rotate_ref({p, p + head}, cos, sin, ids[b * seq + s], 4, 4, false);
        expected.insert(expected.end(), r.begin(), r.end());
      }
    }
  }
  auto out4 = ms("RotaryEmbedding")
                  .input(f32({batch, heads, seq, head}, xv))
                  .input(i64({batch, seq}, ids))
                  .input(f32({max_pos, 4}, cos))
                  .input(f32({max_pos, 4}, sin))
                  .attr("num_heads", heads)
                  .attr("rotary_embedding_dim", 4)
                  .run();
  expect_near_all(out4[0], expected, 1e-5);
}

TEST(ContribRotaryEmbedding, BadInputs) {
  const Tensor x = f32({1, 2, 8}, random_values(16, 27));
  const Tensor cache = f32({4, 4}, random_values(16, 28));
  auto run = [&](const Tensor& input, const Tensor& ids, const Tensor& c) {
    ms("RotaryEmbedding").input(input).input(ids).input(c).input(c).run();
  };
  expect_error([&] { run(x, i64({1, 2}, {0, 4}), cache); }, {"position 4", "4 rows"});
  expect_error([&] { run(x, i64({1}, {3}), cache); }, {"position 4"});  // offset 3 + token 1
  expect_error([&] { run(x, i64({2, 2}, {0, 1, 2, 3}), cache); }, {"position_ids"});
  expect_error([&] { run(f32({2, 8}, random_values(16, 1)), i64({1}, {0}), cache); }, {"3-D"});
  expect_error([&] { run(x, i64({1}, {0}), f32({16}, random_values(16, 1))); }, {"2-D"});
  expect_error(
      [&] {
        run(f32({1, 2, 6}, random_values(12, 1)), i64({1}, {0}), cache);
      },
      {"hidden size 6"});
  expect_error(
      [&] {
        ms("RotaryEmbedding")
            .input(x)
            .input(i64({1}, {0}))
            .input(cache)
            .input(cache)
            .attr("rotary_embedding_dim", 4)
            .run();
      },
      {"num_heads"});
  expect_error(
      [&] {
        ms("RotaryEmbedding")
            .input(x)
            .input(i64({1}, {0}))
            .input(cache)
            .input(cache)
            .attr("is_packed_batching", 1)
            .run();
      },
      {"is_packed_batching"});
}

// ---- FusedMatMul ---------------------------------------------------------------------------

TEST(FusedMatMul, TransposesAlphaAndBatches) {
  // A stored [batch, K, M] (transA), B stored [N, K] (transB), broadcast over A's batch.
  const int64_t batch = 3, M = 4, K = 5, N = 6;
  const auto av = random_values(batch * K * M, 29), bv = random_values(N * K, 30);
  std::vector<double> expected;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += double(av[(b * K + k) * M + m]) * bv[n * K + k];
        expected.push_back(0.25 * acc);
      }
    }
  }
  for (bool constant_b : {false, true}) {
    OpTest t = ms("FusedMatMul");
    t.input(f32({batch, K, M}, av))
        .input(f32({N, K}, bv))
        .attr("transA", 1)
        .attr("transB", 1)
        .attr("alpha", 0.25f);
    if (constant_b) t.constant_input(1);
    auto out = t.run();
    EXPECT_EQ(out[0].shape(), (Shape{batch, M, N}));
    expect_near_all(out[0], expected, 1e-5);
  }
  // transB only, with a constant (packed) B and A's batches stacked: alpha still applies.
  const auto cv = random_values(batch * M * K, 31);
  std::vector<double> plain;
  for (int64_t r = 0; r < batch * M; ++r) {
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += double(cv[r * K + k]) * bv[n * K + k];
      plain.push_back(2 * acc);
    }
  }
  auto out = ms("FusedMatMul")
                 .input(f32({batch, M, K}, cv))
                 .input(f32({N, K}, bv))
                 .constant_input(1)
                 .attr("transB", 1)
                 .attr("alpha", 2.0f)
                 .run();
  expect_near_all(out[0], plain, 1e-5);
  // double takes the reference loop.
  auto d = ms("FusedMatMul")
               .input(Tensor::from_data<double>({2, 1}, {1.0, 2.0}))
               .input(Tensor::from_data<double>({2, 1}, {3.0, 4.0}))
               .attr("transA", 1)
               .attr("alpha", 0.5f)
               .run();
  EXPECT_EQ(d[0].shape(), (Shape{1, 1}));
  EXPECT_DOUBLE_EQ(d[0].data<double>()[0], 0.5 * (3.0 + 8.0));
}

TEST(FusedMatMul, BadInputs) {
  const Tensor a = f32({2, 3}, random_values(6, 32));
  expect_error([&] { ms("FusedMatMul").input(a).input(a).run(); }, {"inner dimensions"});
  EXPECT_NO_THROW(ms("FusedMatMul").input(a).input(a).attr("transB", 1).run());
  expect_error(
      [&] {
        ms("FusedMatMul").input(i64({1, 1}, {1})).input(i64({1, 1}, {2})).run();
      },
      {"int64"});
  expect_error([&] { ms("FusedMatMul").input(a).input(a).attr("transBatchA", 1).run(); },
               {"transBatchA"});
}

}  // namespace
}  // namespace kiln::testing

// ---- MatMulNBits ---------------------------------------------------------------------------

namespace kiln::testing {
namespace {

// A block-quantized weight built here: q[n][k] in [0, 2^bits), packed from the low bits up.
struct NBitsCase {
  int64_t K, N, bits, block;
  std::vector<std::vector<int>> q, zp;  // zp[n][block]
  std::vector<float> scales;            // [N * blocks]
  std::vector<int32_t> g_idx;
  int64_t blocks() const { return (K + block - 1) / block; }
};

NBitsCase make_nbits(int64_t K, int64_t N, int64_t bits, int64_t block, uint32_t seed) {
  NBitsCase c{K, N, bits, block, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(0, (1 << bits) - 1);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  c.q.assign(N, std::vector<int>(c.blocks() * block, 0));
  c.zp.assign(N, std::vector<int>(c.blocks(), 0));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) c.q[n][k] = value(rng);
    for (int64_t b = 0; b < c.blocks(); ++b) c.zp[n][b] = value(rng);
  }
  for (int64_t i = 0; i < N * c.blocks(); ++i) c.scales.push_back(scale(rng));
  return c;
}

std::vector<uint8_t> pack(const std::vector<int>& values, int64_t bits) {
  const int64_t per = 8 / bits;
  std::vector<uint8_t> out((values.size() + per - 1) / per, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    out[i / per] |= static_cast<uint8_t>(values[i] << ((i % per) * bits));
  }
  return out;
}

Tensor packed_b(const NBitsCase& c) {
  std::vector<uint8_t> bytes;
  for (const auto& row : c.q) {
    auto p = pack(row, c.bits);
    bytes.insert(bytes.end(), p.begin(), p.end());
  }
  return Tensor::from_data<uint8_t>({c.N, c.blocks(), c.block * c.bits / 8}, bytes);
}

Tensor packed_zero_points(const NBitsCase& c) {
  std::vector<uint8_t> bytes;
  for (const auto& row : c.zp) {
    auto p = pack(row, c.bits);
    bytes.insert(bytes.end(), p.begin(), p.end());
  }
  return Tensor::from_data<uint8_t>({static_cast<int64_t>(bytes.size())}, bytes);
}

enum class Zp { None, Packed, Float };

std::vector<double> nbits_ref(const NBitsCase& c, const std::vector<float>& a, Zp zp,
                              const std::vector<float>* bias) {
  const int64_t M = static_cast<int64_t>(a.size()) / c.K;
  std::vector<double> y;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < c.N; ++n) {
      double acc = bias ? (*bias)[n] : 0.0;
      for (int64_t k = 0; k < c.K; ++k) {
        const int64_t b = c.g_idx.empty() ? k / c.block : c.g_idx[k];
        const double z = zp == Zp::None ? double(1 << (c.bits - 1)) : c.zp[n][b];
        acc += a[m * c.K + k] * (c.q[n][k] - z) * c.scales[n * c.blocks() + b];
      }
      y.push_back(acc);
    }
  }
  return y;
}

// The node with its inputs; the attributes are the caller's.
OpTest nbits_inputs(const NBitsCase& c, const std::vector<float>& a, const Shape& a_shape, Zp zp,
                    const std::vector<float>* bias, bool constant_weights) {
  OpTest t = OpTest("MatMulNBits", 17, "com.microsoft");
  t.input(f32(a_shape, a)).input(packed_b(c)).input(f32({c.N * c.blocks()}, c.scales));
  if (zp == Zp::Packed) {
    t.input(packed_zero_points(c));
  } else if (zp == Zp::Float) {
    std::vector<float> z;
    for (const auto& row : c.zp) z.insert(z.end(), row.begin(), row.end());
    t.input(f32({c.N * c.blocks()}, z));
  } else {
    t.input(Tensor());
  }
  t.input(c.g_idx.empty() ? Tensor() : Tensor::from_data<int32_t>({c.K}, c.g_idx));
  t.input(bias ? f32({c.N}, *bias) : Tensor());
  if (constant_weights) {
    for (size_t i = 1; i <= 4; ++i) t.constant_input(i);
  }
  return t;
}

OpTest nbits_test(const NBitsCase& c, const std::vector<float>& a, const Shape& a_shape, Zp zp,
                  const std::vector<float>* bias, bool constant_weights) {
  OpTest t = nbits_inputs(c, a, a_shape, zp, bias, constant_weights);
  t.attr("K", c.K).attr("N", c.N).attr("bits", c.bits).attr("block_size", c.block);
  return t;
}

TEST(MatMulNBits, BitsBlockSizesZeroPointsAndBias) {
  uint32_t seed = 40;
  for (int64_t bits : {2, 4, 8}) {
    for (int64_t block : {16, 32, 64, 128, 256}) {
      for (Zp zp : {Zp::None, Zp::Packed, Zp::Float}) {
        // K not a multiple of the block for every size but the largest.
        const int64_t K = block == 256 ? 256 : block * 2 + 8, N = 5;
        const NBitsCase c = make_nbits(K, N, bits, block, ++seed);
        const auto a = random_values(3 * K, ++seed);
        const auto bias = random_values(N, ++seed);
        const bool with_bias = seed % 2 == 0;
        for (bool constant : {true, false}) {
          auto out = nbits_test(c, a, {3, K}, zp, with_bias ? &bias : nullptr, constant).run();
          SCOPED_TRACE("bits " + std::to_string(bits) + " block " + std::to_string(block) + " zp " +
                       std::to_string(static_cast<int>(zp)) +
                       (constant ? " constant" : " at run time"));
          EXPECT_EQ(out[0].shape(), (Shape{3, N}));
          expect_near_all(out[0], nbits_ref(c, a, zp, with_bias ? &bias : nullptr), 1e-4);
        }
      }
    }
  }
}

TEST(MatMulNBits, GroupIndexBatchesAndEmptyRows) {
  NBitsCase c = make_nbits(64, 6, 4, 16, 60);
  std::mt19937 rng(61);
  for (int64_t k = 0; k < c.K; ++k) c.g_idx.push_back(static_cast<int32_t>(k / c.block));
  std::shuffle(c.g_idx.begin(), c.g_idx.end(), rng);
  const auto a = random_values(2 * 3 * 64, 62);
  for (Zp zp : {Zp::Packed, Zp::Float, Zp::None}) {
    auto out = nbits_test(c, a, {2, 3, 64}, zp, nullptr, true).run();
    EXPECT_EQ(out[0].shape(), (Shape{2, 3, 6}));
    expect_near_all(out[0], nbits_ref(c, a, zp, nullptr), 1e-4);
  }
  auto empty = nbits_test(c, {}, {0, 64}, Zp::None, nullptr, true).run();
  EXPECT_EQ(empty[0].shape(), (Shape{0, 6}));
}

// Token generation's shapes (one row of A, [1, 1, K]) and a few rows, with the g_idx the
// quantization tools write when the blocks are in order (read as if absent: the packed-weight
// path), each with the weights as initializers and at run time.
TEST(MatMulNBits, SingleRowsAndInOrderGroupIndex) {
  uint32_t seed = 80;
  for (int64_t bits : {2, 4, 8}) {
    NBitsCase c = make_nbits(100, 40, bits, 32, ++seed);
    for (int64_t k = 0; k < c.K; ++k) c.g_idx.push_back(static_cast<int32_t>(k / c.block));
    const auto bias = random_values(c.N, ++seed);
    for (int64_t M : {1, 2, 7}) {
      const auto a = random_values(M * c.K, ++seed);
      for (bool constant : {true, false}) {
        SCOPED_TRACE("bits " + std::to_string(bits) + " M " + std::to_string(M) +
                     (constant ? " constant" : " at run time"));
        auto out = nbits_test(c, a, {1, M, c.K}, Zp::Packed, &bias, constant).run();
        EXPECT_EQ(out[0].shape(), (Shape{1, M, c.N}));
        expect_near_all(out[0], nbits_ref(c, a, Zp::Packed, &bias), 1e-4);
      }
    }
  }
}

TEST(MatMulNBits, BadAttributesAndInputs) {
  const NBitsCase c = make_nbits(32, 4, 4, 16, 70);
  const auto a = random_values(32, 71);
  // The node with every attribute but `changed`, which takes `value`.
  auto with = [&](const std::string& changed, int64_t value) {
    OpTest t = nbits_inputs(c, a, {1, 32}, Zp::Packed, nullptr, false);
    for (auto [name, v] : {std::pair<std::string, int64_t>{"K", c.K},
                           {"N", c.N},
                           {"bits", c.bits},
                           {"block_size", c.block}}) {
      t.attr(name, name == changed ? value : v);
    }
    return t;
  };
  expect_error([&] { with("bits", 3).run(); }, {"bits must be 2, 4 or 8"});
  expect_error([&] { with("block_size", 24).run(); }, {"block_size"});
  expect_error([&] { with("block_size", 8).run(); }, {"block_size"});
  expect_error([&] { with("K", 0).run(); }, {"K and N"});
  expect_error(
      [&] {
        OpTest("MatMulNBits", 17, "com.microsoft")
            .input(f32({1, 32}, a))
            .input(packed_b(c))
            .input(f32({8}, c.scales))
            .attr("N", int64_t{4})
            .attr("block_size", int64_t{16})
            .run();
      },
      {"attribute K is required"});
  // A's last dimension, B's shape, the scales' and zero points' counts, g_idx's values.
  expect_error(
      [&] {
        nbits_test(c, random_values(16, 1), {1, 16}, Zp::None, nullptr, false).run();
      },
      {"last dimension must be K = 32"});
  expect_error([&] { with("N", 5).run(); }, {"input B must be uint8"});
  NBitsCase bad_g = c;
  bad_g.g_idx.assign(32, 0);
  bad_g.g_idx[7] = 2;
  expect_error(
      [&] {
        nbits_test(bad_g, a, {1, 32}, Zp::None, nullptr, true).run();
      },
      {"g_idx[7] = 2"});
  expect_error(
      [&] {
        OpTest("MatMulNBits", 17, "com.microsoft")
            .input(f32({1, 32}, a))
            .input(packed_b(c))
            .input(f32({7}, std::vector<float>(7, 1.0f)))
            .attr("K", int64_t{32})
            .attr("N", int64_t{4})
            .attr("block_size", int64_t{16})
            .run();
      },
      {"scales"});
  expect_error(
      [&] {
        OpTest("MatMulNBits", 17, "com.microsoft")
            .input(f32({1, 32}, a))
            .input(packed_b(c))
            .input(f32({8}, c.scales))
            .input(Tensor::from_data<uint8_t>({1}, {0}))
            .attr("K", int64_t{32})
            .attr("N", int64_t{4})
            .attr("block_size", int64_t{16})
            .run();
      },
      {"zero_points"});
  expect_error(
      [&] {
        OpTest("MatMulNBits", 17, "com.microsoft")
            .input(Tensor::from_data<double>({1, 32}, std::vector<double>(32, 1.0)))
            .input(packed_b(c))
            .input(f32({8}, c.scales))
            .attr("K", int64_t{32})
            .attr("N", int64_t{4})
            .attr("block_size", int64_t{16})
            .run();
      },
      {"float32"});
}

// ---- GatherBlockQuantized -----------------------------------------------------------------

TEST(GatherBlockQuantized, RowsBitsZeroPointsAndNegativeIndices) {
  for (int64_t bits : {2, 4, 8}) {
    for (bool with_zp : {false, true}) {
      // 5 rows of 40 values in blocks of 16 (the last block short).
      const int64_t rows = 5, cols = 48, block = 16, blocks = 3, per = 8 / bits;
      NBitsCase c = make_nbits(cols, rows, bits, block, static_cast<uint32_t>(80 + bits));
      std::vector<uint8_t> data;
      for (const auto& row : c.q) {
        auto p = pack(row, bits);
        data.insert(data.end(), p.begin(), p.end());
      }
      std::vector<uint8_t> zp;
      for (const auto& row : c.zp) {
        auto p = pack(row, bits);
        zp.insert(zp.end(), p.begin(), p.end());
      }
      const std::vector<int64_t> idx = {4, -1, 0, 2};
      std::vector<double> expected;
      for (int64_t i : idx) {
        const int64_t r = i < 0 ? i + rows : i;
        for (int64_t k = 0; k < cols; ++k) {
          const double z = with_zp ? c.zp[r][k / block] : double(1 << (bits - 1));
          expected.push_back((c.q[r][k] - z) * c.scales[r * blocks + k / block]);
        }
      }
      OpTest t = OpTest("GatherBlockQuantized", 17, kMs);
      t.input(Tensor::from_data<uint8_t>({rows, cols / per}, data))
          .input(i64({2, 2}, idx))
          .input(f32({rows, blocks}, c.scales))
          .input(with_zp ? Tensor::from_data<uint8_t>(
                               {rows, static_cast<int64_t>(zp.size()) / rows}, zp)
                         : Tensor())
          .attr("bits", bits)
          .attr("block_size", block)
          .constant_input(0);
      auto out = t.run();
      SCOPED_TRACE("bits " + std::to_string(bits) + (with_zp ? " with" : " without") +
                   " zero points");
      EXPECT_EQ(out[0].shape(), (Shape{2, 2, cols}));
      expect_near_all(out[0], expected, 1e-6);
    }
  }
}

TEST(GatherBlockQuantized, BadInputs) {
  const Tensor data = Tensor::from_data<uint8_t>({3, 8}, std::vector<uint8_t>(24, 0x21));
  const Tensor scales = f32({3, 1}, {1, 2, 3});
  auto run = [&](const Tensor& d, const Tensor& idx, const Tensor& s, const Tensor& zp,
                 int64_t gather_axis = 0) {
    OpTest("GatherBlockQuantized", 17, kMs)
        .input(d)
        .input(idx)
        .input(s)
        .input(zp)
        .attr("block_size", int64_t{16})
        .attr("gather_axis", gather_axis)
        .run();
  };
  const Tensor one = i64({1}, {1});
  EXPECT_NO_THROW(run(data, one, scales, Tensor()));
  expect_error([&] { run(data, i64({1}, {3}), scales, Tensor()); }, {"index 3", "3 rows"});
  expect_error([&] { run(data, i64({1}, {-4}), scales, Tensor()); }, {"index -4"});
  expect_error([&] { run(data, one, scales, Tensor(), 1); }, {"gather_axis must be 0"});
  expect_error(
      [&] {
        run(data, one, f32({3, 2}, {1, 2, 3, 4, 5, 6}), Tensor());
      },
      {"scales must be [3, 1]"});
  expect_error(
      [&] {
        run(data, one, scales, Tensor::from_data<uint8_t>({3, 2}, {0, 0, 0, 0, 0, 0}));
      },
      {"zero_points"});
  expect_error(
      [&] {
        run(f32({3, 8}, std::vector<float>(24, 0)), one, scales, Tensor());
      },
      {"uint8"});
  expect_error([&] { run(data, f32({1}, {1}), scales, Tensor()); }, {"indices"});
  expect_error(
      [&] {
        OpTest("GatherBlockQuantized", 17, kMs)
            .input(data)
            .input(one)
            .input(scales)
            .attr("bits", int64_t{3})
            .run();
      },
      {"bits must be 2, 4 or 8"});
}

}  // namespace
}  // namespace kiln::testing
