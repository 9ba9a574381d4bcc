// Tests of the normalization family (BatchNormalization, LayerNormalization,
// InstanceNormalization, GroupNormalization, RMSNormalization, LpNormalization,
// MeanVarianceNormalization, LRN) against naive double-precision references written here.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kiln/kiln.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

std::vector<float> random_values(int64_t n, uint32_t seed, float lo = -2.0f, float hi = 3.0f) {
  return uniform_floats(n, seed, lo, hi);
}

Tensor to_dtype(const Tensor& t, DataType dtype) {
  const std::vector<float> v = t.to_vector<float>();
  if (dtype == DataType::Float64)
    return Tensor::from_data<double>(t.shape(), std::vector<double>(v.begin(), v.end()));
  if (dtype == DataType::Float16) {
    std::vector<Float16> h;
    for (float x : v) h.push_back(Float16(x));
    return Tensor::from_data<Float16>(t.shape(), h);
  }
  if (dtype == DataType::BFloat16) {
    std::vector<BFloat16> h;
    for (float x : v) h.push_back(BFloat16(x));
    return Tensor::from_data<BFloat16>(t.shape(), h);
  }
  return t;
}

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out;
  const int64_t n = t.element_count();
  if (t.dtype() == DataType::Float32) {
    for (float x : t.to_vector<float>()) out.push_back(x);
  } else if (t.dtype() == DataType::Float64) {
    out = t.to_vector<double>();
  } else if (t.dtype() == DataType::Float16) {
    for (int64_t i = 0; i < n; ++i) out.push_back(static_cast<float>(t.data<Float16>()[i]));
  } else if (t.dtype() == DataType::BFloat16) {
    for (int64_t i = 0; i < n; ++i) out.push_back(static_cast<float>(t.data<BFloat16>()[i]));
  }
  return out;
}

void expect_near_all(const Tensor& actual, const std::vector<double>& expected, double tol) {
  const std::vector<double> a = as_doubles(actual);
  ASSERT_EQ(a.size(), expected.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], expected[i], tol * (1.0 + std::abs(expected[i]))) << "at " << i;
  }
}

double tolerance(DataType t) {
  switch (t) {
    case DataType::Float16:
      return 2e-3;
    case DataType::BFloat16:
      return 2e-2;
    case DataType::Float64:
      return 1e-9;
    default:
      return 2e-5;
  }
}

// Reference: normalize rows of `inner` elements (LayerNorm / RMSNorm).
std::vector<double> ref_row_norm(const std::vector<float>& x, int64_t inner,
                                 const std::vector<float>& scale, const std::vector<float>* bias,
                                 double eps, bool rms, std::vector<double>* means = nullptr,
                                 std::vector<double>* inv_stds = nullptr) {
  std::vector<double> y(x.size());
  const int64_t outer = static_cast<int64_t>(x.size()) / inner;
  for (int64_t r = 0; r < outer; ++r) {
    double mean = 0, var = 0;
    if (!rms) {
      for (int64_t i = 0; i < inner; ++i) mean += x[r * inner + i];
      mean /= inner;
    }
    for (int64_t i = 0; i < inner; ++i)
      var += (x[r * inner + i] - mean) * (x[r * inner + i] - mean);
    var /= inner;
    const double inv = 1.0 / std::sqrt(var + eps);
    if (means) means->push_back(mean);
    if (inv_stds) inv_stds->push_back(inv);
    for (int64_t i = 0; i < inner; ++i) {
      y[r * inner + i] = (x[r * inner + i] - mean) * inv * scale[i] + (bias ? (*bias)[i] : 0.0);
    }
  }
  return y;
}

// --- LayerNormalization ---------------------------------------------------------------------

TEST(LayerNormalization, MatchesReferenceForEveryAxisAndDtype) {
  const Shape shape{2, 3, 4, 5};
  const auto xv = random_values(shape.element_count(), 1);
  for (DataType dtype :
       {DataType::Float32, DataType::Float64, DataType::Float16, DataType::BFloat16}) {
    for (int64_t axis = -4; axis < 4; ++axis) {
      const int64_t a = axis < 0 ? axis + 4 : axis;
      Shape norm_shape;
      for (int64_t d = a; d < 4; ++d) norm_shape.push_back(shape[d]);
      const auto sv = random_values(norm_shape.element_count(), 2);
      const auto bv = random_values(norm_shape.element_count(), 3);
      // Round inputs through the dtype first so that the reference sees what the kernel sees.
      const Tensor x = to_dtype(f32(shape, xv), dtype), s = to_dtype(f32(norm_shape, sv), dtype),
                   b = to_dtype(f32(norm_shape, bv), dtype);
      auto rx = as_doubles(x), rs = as_doubles(s), rb = as_doubles(b);
      std::vector<float> fx(rx.begin(), rx.end()), fs(rs.begin(), rs.end()),
          fb(rb.begin(), rb.end());
      std::vector<double> means, invs;
      const auto expected =
          ref_row_norm(fx, norm_shape.element_count(), fs, &fb, 1e-3, false, &means, &invs);
      auto out = OpTest("LayerNormalization", 17)
                     .input(x)
                     .input(s)
                     .input(b)
                     .outputs(3)
                     .attr("axis", axis)
                     .attr("epsilon", 1e-3f)
                     .run();
      SCOPED_TRACE("dtype " + std::to_string(static_cast<int>(dtype)) + " axis " +
                   std::to_string(axis));
      ASSERT_EQ(out[0].dtype(), dtype);
      expect_near_all(out[0], expected, tolerance(dtype) * 4);
      EXPECT_EQ(out[1].dtype(), DataType::Float32);
      EXPECT_EQ(out[1].rank(), 4u);
      expect_near_all(out[1], means, 1e-5);
      expect_near_all(out[2], invs, 1e-5);
    }
  }
}

TEST(LayerNormalization, BroadcastScaleNoBiasAndConstantInputs) {
  const Shape shape{3, 4, 6};
  const auto xv = random_values(shape.element_count(), 4);
  const auto sv = random_values(6, 5);
  std::vector<float> scale_full;
  for (int i = 0; i < 4; ++i) scale_full.insert(scale_full.end(), sv.begin(), sv.end());
  const auto expected = ref_row_norm(xv, 24, scale_full, nullptr, 1e-5, false);
  auto out = OpTest("LayerNormalization", 17)
                 .input(f32(shape, xv))
                 .input(f32({1, 6}, sv))
                 .constant_input(1)
                 .attr("axis", 1)
                 .run();
  expect_near_all(out[0], expected, 2e-5);
}

TEST(LayerNormalization, EmptyAndBadInput) {
  auto out =
      OpTest("LayerNormalization", 17).input(f32({0, 4}, {})).input(f32({4}, {1, 1, 1, 1})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 4}));
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(OpTest("LayerNormalization", 17).input(x).input(f32({2}, {1, 1})).run(),
               kiln::Error);
  EXPECT_THROW(
      OpTest("LayerNormalization", 17).input(x).input(f32({3}, {1, 1, 1})).attr("axis", 2).run(),
      kiln::Error);
  EXPECT_THROW(OpTest("LayerNormalization", 17)
                   .input(x)
                   .input(f32({3}, {1, 1, 1}))
                   .input(f32({4}, {1, 1, 1, 1}))
                   .run(),
               kiln::Error);
}

// --- RMSNormalization -----------------------------------------------------------------------

TEST(RMSNormalization, MatchesReference) {
  const Shape shape{4, 3, 5};
  const auto xv = random_values(shape.element_count(), 6);
  for (int64_t axis : {-1, 1, 0}) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    int64_t inner = 1;
    Shape norm_shape;
    for (int64_t d = a; d < 3; ++d) inner *= shape[d], norm_shape.push_back(shape[d]);
    const auto sv = random_values(inner, 7);
    const auto expected = ref_row_norm(xv, inner, sv, nullptr, 1e-4, true);
    auto out = OpTest("RMSNormalization", 23)
                   .input(f32(shape, xv))
                   .input(f32(norm_shape, sv))
                   .attr("axis", axis)
                   .attr("epsilon", 1e-4f)
                   .run();
    expect_near_all(out[0], expected, 2e-5);
  }
  EXPECT_THROW(OpTest("RMSNormalization", 23)
                   .input(f32({2, 2}, {1, 2, 3, 4}))
                   .input(f32({3}, {1, 1, 1}))
                   .run(),
               kiln::Error);
}

// --- BatchNormalization ---------------------------------------------------------------------

struct BnCase {
  Shape shape;
  std::vector<float> x, scale, bias, mean, var;
};

BnCase bn_case(const Shape& shape, uint32_t seed) {
  BnCase c{shape,
           random_values(shape.element_count(), seed),
           random_values(shape[1], seed + 1),
           random_values(shape[1], seed + 2),
           random_values(shape[1], seed + 3),
           random_values(shape[1], seed + 4, 0.1f, 2.0f)};
  return c;
}

std::vector<double> ref_bn(const BnCase& c, double eps) {
  std::vector<double> y(c.x.size());
  const int64_t channels = c.shape[1], spatial = c.shape.element_count() / (c.shape[0] * channels);
  for (size_t i = 0; i < c.x.size(); ++i) {
    const int64_t ch = (static_cast<int64_t>(i) / spatial) % channels;
    y[i] = (c.x[i] - c.mean[ch]) / std::sqrt(c.var[ch] + eps) * c.scale[ch] + c.bias[ch];
  }
  return y;
}

TEST(BatchNormalization, InferenceConstantAndRuntimeParams) {
  const BnCase c = bn_case({2, 3, 4, 5}, 10);
  const auto expected = ref_bn(c, 1e-3);
  for (bool constant : {false, true}) {
    OpTest t("BatchNormalization", 15);
    t.input(f32(c.shape, c.x))
        .input(f32({3}, c.scale))
        .input(f32({3}, c.bias))
        .input(f32({3}, c.mean))
        .input(f32({3}, c.var))
        .attr("epsilon", 1e-3f);
    if (constant) t.constant_input(1).constant_input(2).constant_input(3).constant_input(4);
    expect_near_all(t.run()[0], expected, 2e-5);
  }
}

TEST(BatchNormalization, OtherDtypesAndRank2) {
  const BnCase c = bn_case({5, 4}, 20);
  const auto expected = ref_bn(c, 1e-5);
  for (DataType dtype : {DataType::Float64, DataType::Float16}) {
    auto out = OpTest("BatchNormalization", 15)
                   .input(to_dtype(f32(c.shape, c.x), dtype))
                   .input(f32({4}, c.scale))
                   .input(f32({4}, c.bias))
                   .input(f32({4}, c.mean))
                   .input(f32({4}, c.var))
                   .run();
    ASSERT_EQ(out[0].dtype(), dtype);
    expect_near_all(out[0], expected, dtype == DataType::Float16 ? 4e-3 : 2e-6);
  }
}

TEST(BatchNormalization, TrainingModeRunningStats) {
  const BnCase c = bn_case({3, 2, 4}, 30);
  const double momentum = 0.8, eps = 1e-5;
  std::vector<double> mean(2, 0), var(2, 0), y(c.x.size());
  for (int ch = 0; ch < 2; ++ch) {
    for (int n = 0; n < 3; ++n)
      for (int i = 0; i < 4; ++i) mean[ch] += c.x[(n * 2 + ch) * 4 + i];
    mean[ch] /= 12;
    for (int n = 0; n < 3; ++n)
      for (int i = 0; i < 4; ++i) {
        const double d = c.x[(n * 2 + ch) * 4 + i] - mean[ch];
        var[ch] += d * d;
      }
    var[ch] /= 12;
    for (int n = 0; n < 3; ++n)
      for (int i = 0; i < 4; ++i) {
        const int idx = (n * 2 + ch) * 4 + i;
        y[idx] = (c.x[idx] - mean[ch]) / std::sqrt(var[ch] + eps) * c.scale[ch] + c.bias[ch];
      }
  }
  auto out = OpTest("BatchNormalization", 15)
                 .input(f32(c.shape, c.x))
                 .input(f32({2}, c.scale))
                 .input(f32({2}, c.bias))
                 .input(f32({2}, c.mean))
                 .input(f32({2}, c.var))
                 .attr("training_mode", 1)
                 .attr("momentum", static_cast<float>(momentum))
                 .outputs(3)
                 .run();
  expect_near_all(out[0], y, 2e-5);
  expect_near_all(out[1],
                  {c.mean[0] * momentum + mean[0] * (1 - momentum),
                   c.mean[1] * momentum + mean[1] * (1 - momentum)},
                  1e-5);
  expect_near_all(out[2],
                  {c.var[0] * momentum + var[0] * (1 - momentum),
                   c.var[1] * momentum + var[1] * (1 - momentum)},
                  1e-5);
}

TEST(BatchNormalization, PerActivationBeforeOpset9) {
  // spatial=0: one set of parameters per (channel, position) of a sample.
  const Shape shape{3, 2, 2};
  const auto xv = random_values(12, 35);
  const auto sv = random_values(4, 36), bv = random_values(4, 37), mv = random_values(4, 38);
  const auto vv = random_values(4, 39, 0.5f, 1.5f);
  std::vector<double> expected(12);
  for (int i = 0; i < 12; ++i) {
    const int k = i % 4;
    expected[i] = (xv[i] - mv[k]) / std::sqrt(vv[k] + 1e-5) * sv[k] + bv[k];
  }
  auto out = OpTest("BatchNormalization", 7)
                 .input(f32(shape, xv))
                 .input(f32({2, 2}, sv))
                 .input(f32({2, 2}, bv))
                 .input(f32({2, 2}, mv))
                 .input(f32({2, 2}, vv))
                 .attr("spatial", 0)
                 .run();
  expect_near_all(out[0], expected, 2e-5);
}

TEST(BatchNormalization, TrainingOutputsBeforeOpset14) {
  const BnCase c = bn_case({4, 2, 3}, 45);
  auto out = OpTest("BatchNormalization", 9)
                 .input(f32(c.shape, c.x))
                 .input(f32({2}, c.scale))
                 .input(f32({2}, c.bias))
                 .input(f32({2}, c.mean))
                 .input(f32({2}, c.var))
                 .outputs(5)
                 .run();
  ASSERT_EQ(out.size(), 5u);
  for (int ch = 0; ch < 2; ++ch) {
    double mean = 0, var = 0;
    for (int n = 0; n < 4; ++n)
      for (int i = 0; i < 3; ++i) mean += c.x[(n * 2 + ch) * 3 + i] / 12.0;
    for (int n = 0; n < 4; ++n)
      for (int i = 0; i < 3; ++i) var += std::pow(c.x[(n * 2 + ch) * 3 + i] - mean, 2) / 12.0;
    EXPECT_NEAR(out[1].data<float>()[ch], c.mean[ch] * 0.9 + mean * 0.1, 1e-5);
    EXPECT_NEAR(out[2].data<float>()[ch], c.var[ch] * 0.9 + var * 0.1, 1e-5);
    EXPECT_NEAR(out[3].data<float>()[ch], mean, 1e-5);
    EXPECT_NEAR(out[4].data<float>()[ch], var, 1e-5);
  }
}

TEST(BatchNormalization, BadParams) {
  const BnCase c = bn_case({2, 3, 2}, 40);
  EXPECT_THROW(OpTest("BatchNormalization", 15)
                   .input(f32(c.shape, c.x))
                   .input(f32({2}, {1, 1}))
                   .input(f32({3}, c.bias))
                   .input(f32({3}, c.mean))
                   .input(f32({3}, c.var))
                   .run(),
               kiln::Error);
  EXPECT_THROW(OpTest("BatchNormalization", 15)
                   .input(f32({3}, {1, 2, 3}))
                   .input(f32({3}, c.scale))
                   .input(f32({3}, c.bias))
                   .input(f32({3}, c.mean))
                   .input(f32({3}, c.var))
                   .run(),
               kiln::Error);
}

// --- InstanceNormalization and GroupNormalization -------------------------------------------

// Reference group norm with per-channel (or per-group) parameters.
std::vector<double> ref_group_norm(const std::vector<float>& x, const Shape& shape, int64_t groups,
                                   const std::vector<float>& s, const std::vector<float>& b,
                                   bool per_group, double eps) {
  const int64_t n = shape[0], c = shape[1], spatial = shape.element_count() / (n * c);
  const int64_t len = c / groups * spatial;
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < n * groups; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < len; ++i) mean += x[r * len + i];
    mean /= len;
    for (int64_t i = 0; i < len; ++i) var += (x[r * len + i] - mean) * (x[r * len + i] - mean);
    var /= len;
    for (int64_t i = 0; i < len; ++i) {
      const int64_t g = r % groups, ch = g * (c / groups) + i / spatial;
      const int64_t p = per_group ? g : ch;
      y[r * len + i] = (x[r * len + i] - mean) / std::sqrt(var + eps) * s[p] + b[p];
    }
  }
  return y;
}

TEST(InstanceNormalization, MatchesReference) {
  const Shape shape{2, 3, 4, 5};
  const auto xv = random_values(shape.element_count(), 50);
  const auto sv = random_values(3, 51), bv = random_values(3, 52);
  const auto expected = ref_group_norm(xv, shape, 3, sv, bv, false, 1e-2);
  for (DataType dtype : {DataType::Float32, DataType::Float64}) {
    auto out = OpTest("InstanceNormalization", 22)
                   .input(to_dtype(f32(shape, xv), dtype))
                   .input(to_dtype(f32({3}, sv), dtype))
                   .input(to_dtype(f32({3}, bv), dtype))
                   .attr("epsilon", 1e-2f)
                   .run();
    expect_near_all(out[0], expected, 2e-5);
  }
  EXPECT_THROW(OpTest("InstanceNormalization", 22)
                   .input(f32(shape, xv))
                   .input(f32({2}, {1, 1}))
                   .input(f32({3}, bv))
                   .run(),
               kiln::Error);
}

TEST(GroupNormalization, PerChannelOpset21AndPerGroupOpset18) {
  const Shape shape{2, 6, 3, 2};
  const auto xv = random_values(shape.element_count(), 60);
  const auto sv = random_values(6, 61), bv = random_values(6, 62);
  auto out = OpTest("GroupNormalization", 21)
                 .input(f32(shape, xv))
                 .input(f32({6}, sv))
                 .input(f32({6}, bv))
                 .attr("num_groups", 3)
                 .run();
  expect_near_all(out[0], ref_group_norm(xv, shape, 3, sv, bv, false, 1e-5), 2e-5);

  const std::vector<float> gs(sv.begin(), sv.begin() + 2), gb(bv.begin(), bv.begin() + 2);
  out = OpTest("GroupNormalization", 18)
            .input(f32(shape, xv))
            .input(f32({2}, gs))
            .input(f32({2}, gb))
            .attr("num_groups", 2)
            .attr("epsilon", 1e-3f)
            .run();
  expect_near_all(out[0], ref_group_norm(xv, shape, 2, gs, gb, true, 1e-3), 2e-5);

  EXPECT_THROW(OpTest("GroupNormalization", 21)
                   .input(f32(shape, xv))
                   .input(f32({6}, sv))
                   .input(f32({6}, bv))
                   .attr("num_groups", 4)
                   .run(),
               kiln::Error);
  EXPECT_THROW(OpTest("GroupNormalization", 21)
                   .input(f32(shape, xv))
                   .input(f32({2}, gs))
                   .input(f32({2}, gb))
                   .attr("num_groups", 2)
                   .run(),
               kiln::Error);
}

// --- LpNormalization, MeanVarianceNormalization, LRN ----------------------------------------

TEST(LpNormalization, L1AndL2OverEachAxis) {
  const Shape shape{3, 4, 5};
  const auto xv = random_values(shape.element_count(), 70);
  for (int64_t p : {1, 2}) {
    for (int64_t axis : {0, 1, 2, -1}) {
      const int64_t a = axis < 0 ? axis + 3 : axis;
      const Shape strides{20, 5, 1};
      std::vector<double> expected(xv.size());
      for (size_t i = 0; i < xv.size(); ++i) {
        const int64_t pos = (static_cast<int64_t>(i) / strides[a]) % shape[a];
        const int64_t base = static_cast<int64_t>(i) - pos * strides[a];
        double norm = 0;
        for (int64_t j = 0; j < shape[a]; ++j) {
          const double v = xv[base + j * strides[a]];
          norm += p == 1 ? std::abs(v) : v * v;
        }
        if (p == 2) norm = std::sqrt(norm);
        expected[i] = xv[i] / norm;
      }
      auto out =
          OpTest("LpNormalization", 22).input(f32(shape, xv)).attr("p", p).attr("axis", axis).run();
      expect_near_all(out[0], expected, 2e-5);
    }
  }
  // A zero vector has no direction: it stays zero instead of becoming NaN.
  auto zero = OpTest("LpNormalization", 22).input(f32({2, 2}, {0, 0, 3, 4})).run();
  expect_near_all(zero[0], {0, 0, 0.6, 0.8}, 1e-6);
  EXPECT_THROW(OpTest("LpNormalization", 22).input(f32({2}, {1, 2})).attr("p", 3).run(),
               kiln::Error);
  EXPECT_THROW(OpTest("LpNormalization", 22).input(f32({2}, {1, 2})).attr("axis", 1).run(),
               kiln::Error);
}

TEST(MeanVarianceNormalization, DefaultAndCustomAxes) {
  const Shape shape{2, 3, 2, 4};
  const auto xv = random_values(shape.element_count(), 80);
  const Shape strides{24, 8, 4, 1};
  for (const std::vector<int64_t>& axes :
       {std::vector<int64_t>{0, 2, 3}, std::vector<int64_t>{-1}, std::vector<int64_t>{1, 3},
        std::vector<int64_t>{0, 1, 2, 3}}) {
    std::vector<bool> red(4, false);
    for (int64_t a : axes) red[a < 0 ? a + 4 : a] = true;
    auto key = [&](int64_t i) {
      int64_t k = 0;
      for (int d = 0; d < 4; ++d) {
        if (!red[d]) k = k * shape[d] + (i / strides[d]) % shape[d];
      }
      return k;
    };
    std::vector<double> sum(24, 0), sq(24, 0), cnt(24, 0);
    for (size_t i = 0; i < xv.size(); ++i)
      sum[key(i)] += xv[i], sq[key(i)] += double(xv[i]) * xv[i], cnt[key(i)]++;
    std::vector<double> expected(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) {
      const int64_t k = key(i);
      const double mean = sum[k] / cnt[k], var = sq[k] / cnt[k] - mean * mean;
      expected[i] = (xv[i] - mean) / (std::sqrt(var) + 1e-9);
    }
    OpTest t("MeanVarianceNormalization", 13);
    t.input(f32(shape, xv));
    if (axes != std::vector<int64_t>{0, 2, 3}) t.attr("axes", axes);
    expect_near_all(t.run()[0], expected, 1e-4);
  }
  EXPECT_THROW(OpTest("MeanVarianceNormalization", 13)
                   .input(f32({2, 2}, {1, 2, 3, 4}))
                   .attr("axes", std::vector<int64_t>{2})
                   .run(),
               kiln::Error);
}

TEST(LRN, MatchesReference) {
  const Shape shape{2, 7, 3, 3};
  const auto xv = random_values(shape.element_count(), 90);
  for (int64_t size : {1, 2, 3, 4}) {
    const double alpha = 2e-3, beta = 0.6, bias = 1.5;
    std::vector<double> expected(xv.size());
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 7; ++c)
        for (int64_t s = 0; s < 9; ++s) {
          double sum = 0;
          for (int64_t cc = c - (size - 1) / 2; cc <= c + size / 2; ++cc) {
            if (cc < 0 || cc >= 7) continue;
            const double v = xv[(n * 7 + cc) * 9 + s];
            sum += v * v;
          }
          const int64_t i = (n * 7 + c) * 9 + s;
          expected[i] = xv[i] / std::pow(bias + alpha / size * sum, beta);
        }
    auto out = OpTest("LRN", 13)
                   .input(f32(shape, xv))
                   .attr("size", size)
                   .attr("alpha", float(alpha))
                   .attr("beta", float(beta))
                   .attr("bias", float(bias))
                   .run();
    expect_near_all(out[0], expected, 2e-5);
  }
  EXPECT_THROW(OpTest("LRN", 13).input(f32({4}, {1, 2, 3, 4})).attr("size", 3).run(), kiln::Error);
}

}  // namespace
}  // namespace kiln::testing
