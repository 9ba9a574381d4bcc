// Tests of ONNX Runtime's quantized and fused contrib operators (com.microsoft) on the CPU:
// MatMulIntegerToFloat, DynamicQuantizeMatMul, FusedConv and the QLinear family, against
// references written here in double precision (with inputs chosen so that rounding ties are
// exact, to check ties-to-even), and their bad inputs. tests/contrib checks the same ops
// against ONNX Runtime's own outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "expect_error.h"
#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

OpTest ms(const std::string& op) { return OpTest(op, 17, kMs); }

template <class T>
Tensor qt(const Shape& shape, std::vector<int> values) {
  std::vector<T> v(values.begin(), values.end());
  return Tensor::from_data<T>(shape, v);
}
Tensor u8(const Shape& shape, std::vector<int> values) { return qt<uint8_t>(shape, values); }
Tensor s8(const Shape& shape, std::vector<int> values) { return qt<int8_t>(shape, values); }
Tensor u8s(int v) { return u8({}, {v}); }
Tensor s8s(int v) { return s8({}, {v}); }
Tensor fs(float v) { return f32({}, {v}); }

std::vector<int> random_ints(int64_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<float> random_floats(int64_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<int> ints_of(const Tensor& t) {
  std::vector<int> out;
  for (int64_t i = 0; i < t.element_count(); ++i) {
    out.push_back(t.dtype() == DataType::Int8 ? t.data<int8_t>()[i] : t.data<uint8_t>()[i]);
  }
  return out;
}

void expect_near_all(const Tensor& actual, const std::vector<double>& expected, double tol) {
  ASSERT_EQ(actual.dtype(), DataType::Float32);
  ASSERT_EQ(actual.element_count(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    const double a = actual.data<float>()[i];
    EXPECT_TRUE(value_matches(a, expected[i], tol, tol))
        << "element " << i << ": " << a << ", expected " << expected[i];
  }
}

// ONNX's quantization: round half to even, then saturate.
int quantize(double v, bool is_signed) {
  const double r = std::nearbyint(v);
  return static_cast<int>(std::clamp(r, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0));
}

// Where a float computation and the double reference may round a value differently: within
// 1e-4 of a tie. Elsewhere they must agree exactly.
void expect_quantized(const std::vector<int>& actual, const std::vector<double>& unrounded,
                      bool is_signed) {
  ASSERT_EQ(actual.size(), unrounded.size());
  int checked = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double frac = unrounded[i] - std::floor(unrounded[i]);
    if (std::abs(frac - 0.5) < 1e-4) {
      EXPECT_LE(std::abs(actual[i] - quantize(unrounded[i], is_signed)), 1) << "element " << i;
      continue;
    }
    EXPECT_EQ(actual[i], quantize(unrounded[i], is_signed))
        << "element " << i << " (unrounded " << unrounded[i] << ")";
    ++checked;
  }
  EXPECT_GT(checked, static_cast<int>(actual.size()) / 2);  // the check was not vacuous
}

// ---- MatMulIntegerToFloat and DynamicQuantizeMatMul ----------------------------------------

// Y[m, n] = sum_k (a - za) * (b[k, n] - zb[n]) * a_scale * b_scale[n] + bias[n].
std::vector<double> product_ref(const std::vector<int>& a, int64_t M, int64_t K,
                                const std::vector<int>& b, int64_t N, double sa, double za,
                                const std::vector<double>& sb, const std::vector<double>& zb,
                                const std::vector<float>& bias) {
  std::vector<double> y;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        acc += (a[m * K + k] - za) * (b[k * N + n] - zb[zb.size() == 1 ? 0 : n]);
      }
      y.push_back(acc * sa * sb[sb.size() == 1 ? 0 : n] + (bias.empty() ? 0.0 : bias[n]));
    }
  }
  return y;
}

TEST(MatMulIntegerToFloat, PerColumnScalesZeroPointsAndBias) {
  const int64_t M = 4, K = 5, N = 3;
  const std::vector<int> a = random_ints(M * K, 1, 0, 255), b = random_ints(K * N, 2, 0, 255);
  const std::vector<float> bias = {0.5f, -1.0f, 2.0f};
  const std::vector<float> sb = {0.01f, 0.02f, 0.005f};
  const std::vector<int> zb = {120, 3, 250};
  auto y = ms("MatMulIntegerToFloat")
               .input(u8({M, K}, a))
               .input(u8({K, N}, b))
               .input(fs(0.03f))
               .input(f32({N}, sb))
               .input(u8s(128))
               .input(u8({N}, zb))
               .input(f32({N}, bias))
               .run();
  ASSERT_EQ(y[0].shape(), Shape({M, N}));
  expect_near_all(
      y[0],
      product_ref(a, M, K, b, N, 0.03f, 128, {sb.begin(), sb.end()}, {zb.begin(), zb.end()}, bias),
      1e-5);
}

TEST(MatMulIntegerToFloat, SignedBatchedPerTensorWithoutOptionalInputs) {
  const int64_t K = 4, N = 2;
  const std::vector<int> a = random_ints(2 * 3 * K, 3, -128, 127),
                         b = random_ints(K * N, 4, -128, 127);
  auto y = ms("MatMulIntegerToFloat")
               .input(s8({2, 3, K}, a))
               .input(s8({K, N}, b))
               .input(fs(0.5f))
               .input(f32({1}, {0.25f}))
               .run();
  ASSERT_EQ(y[0].shape(), Shape({2, 3, N}));
  expect_near_all(y[0], product_ref(a, 6, K, b, N, 0.5, 0, {0.25}, {0}, {}), 1e-6);
  // uint8 A with int8 B, zero points per tensor.
  const std::vector<int> au = random_ints(3 * K, 5, 0, 255);
  auto mixed = ms("MatMulIntegerToFloat")
                   .input(u8({3, K}, au))
                   .input(s8({K, N}, b))
                   .input(fs(0.1f))
                   .input(fs(0.2f))
                   .input(u8s(7))
                   .input(s8s(-3))
                   .run();
  expect_near_all(mixed[0], product_ref(au, 3, K, b, N, 0.1f, 7, {0.2f}, {-3}, {}), 1e-5);
}

TEST(MatMulIntegerToFloat, BadInputs) {
  const Tensor a = u8({2, 3}, {1, 2, 3, 4, 5, 6}), b = u8({3, 2}, {1, 2, 3, 4, 5, 6});
  auto run = [&](const Tensor& a_, const Tensor& b_, const Tensor& sa, const Tensor& sb,
                 const Tensor& za = Tensor(), const Tensor& zb = Tensor(),
                 const Tensor& bias = Tensor()) {
    ms("MatMulIntegerToFloat")
        .input(a_)
        .input(b_)
        .input(sa)
        .input(sb)
        .input(za)
        .input(zb)
        .input(bias)
        .run();
  };
  expect_error(
      [&] {
        run(a, b, f32({3}, {1, 1, 1}), fs(1));
      },
      {"node_under_test", "a_scale", "one value"});
  expect_error([&] { run(a, b, fs(1), f32({3}, {1, 1, 1})); }, {"b_scale", "per column"});
  expect_error([&] { run(a, b, fs(1), fs(1), s8s(0)); }, {"a_zero_point", "int8"});
  expect_error([&] { run(a, b, fs(1), fs(1), Tensor(), u8({3}, {0, 0, 0})); }, {"b_zero_point"});
  expect_error([&] { run(a, b, fs(1), fs(1), Tensor(), Tensor(), f32({3}, {0, 0, 0})); }, {"bias"});
  expect_error([&] { run(f32({2, 3}, {1, 2, 3, 4, 5, 6}), b, fs(1), fs(1)); }, {"a", "int8"});
  expect_error([&] { run(a, u8({2, 2}, {1, 2, 3, 4}), fs(1), fs(1)); }, {"inner dimensions"});
  expect_error([&] { run(a, b, u8s(1), fs(1)); }, {"a_scale", "float32"});
  expect_error([&] { ms("MatMulIntegerToFloat").input(a).input(b).input(fs(1)).run(); },
               {"input 3"});
}

// DynamicQuantizeLinear's uint8 quantization of x, as ONNX defines it.
struct Quantized {
  std::vector<int> q;
  double scale, zero_point;
};
Quantized quantize_dynamic(const std::vector<float>& x) {
  float lo = 0, hi = 0;
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  Quantized r;
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zp = std::nearbyint(std::clamp(-lo / scale, 0.0f, 255.0f));
  r.scale = scale;
  r.zero_point = zp;
  for (float v : x) r.q.push_back(quantize(std::nearbyint(v / scale) + zp, false));
  return r;
}

TEST(DynamicQuantizeMatMul, QuantizesAPerTensorThenScalesTheIntegerProduct) {
  const int64_t M = 6, K = 8, N = 4;
  const std::vector<float> a = random_floats(M * K, 7, -3.0f, 1.5f);
  const std::vector<int> b = random_ints(K * N, 8, -128, 127);
  const std::vector<float> sb = {0.02f, 0.01f, 0.03f, 0.015f}, bias = {1, -1, 0.5f, 0};
  const std::vector<int> zb = {0, 5, -7, 2};
  auto y = ms("DynamicQuantizeMatMul")
               .input(f32({2, 3, K}, a))
               .input(s8({K, N}, b))
               .input(f32({N}, sb))
               .input(s8({N}, zb))
               .input(f32({N}, bias))
               .run();
  ASSERT_EQ(y[0].shape(), Shape({2, 3, N}));
  const Quantized q = quantize_dynamic(a);
  expect_near_all(y[0],
                  product_ref(q.q, M, K, b, N, q.scale, q.zero_point, {sb.begin(), sb.end()},
                              {zb.begin(), zb.end()}, bias),
                  1e-5);
  // The quantized product is close to the float one (what a user of the op expects).
  std::vector<double> exact;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += a[m * K + k] * (b[k * N + n] - zb[n]) * sb[n];
      exact.push_back(acc + bias[n]);
    }
  expect_near_all(y[0], exact, 0.1);
  // An all-zero A has scale 1 and gives the bias alone.
  auto zero = ms("DynamicQuantizeMatMul")
                  .input(f32({1, K}, std::vector<float>(K, 0.0f)))
                  .input(s8({K, N}, b))
                  .input(fs(0.5f))
                  .input(Tensor())
                  .input(f32({N}, bias))
                  .run();
  expect_near_all(zero[0], {1, -1, 0.5, 0}, 0);
}

TEST(DynamicQuantizeMatMul, BadInputs) {
  const Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = u8({3, 2}, {1, 2, 3, 4, 5, 6});
  expect_error(
      [&] {
        ms("DynamicQuantizeMatMul")
            .input(u8({2, 3}, {1, 2, 3, 4, 5, 6}))
            .input(b)
            .input(fs(1))
            .run();
      },
      {"node_under_test", "a must be float32"});
  expect_error([&] { ms("DynamicQuantizeMatMul").input(a).input(a).input(fs(1)).run(); },
               {"b must be int8 or uint8"});
  expect_error(
      [&] { ms("DynamicQuantizeMatMul").input(a).input(b).input(fs(1)).input(s8s(1)).run(); },
      {"b_zero_point"});
  expect_error([&] { ms("DynamicQuantizeMatMul").input(a).input(b).run(); }, {"input 2"});
}

// ---- FusedConv -----------------------------------------------------------------------------

double activate(const std::string& name, const std::vector<float>& p, double x) {
  if (name == "Relu") return std::max(x, 0.0);
  if (name == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (name == "Tanh") return std::tanh(x);
  if (name == "LeakyRelu") return x < 0 ? p[0] * x : x;
  if (name == "Clip") return std::clamp<double>(x, p[0], p[1]);
  if (name == "HardSigmoid") return std::clamp<double>(p[0] * x + p[1], 0, 1);
  return x;
}

TEST(MsFusedConv, EveryActivationWithAndWithoutResidual) {
  const Tensor x = f32({1, 4, 5, 5}, random_floats(100, 11));
  const Tensor w = f32({6, 2, 3, 3}, random_floats(108, 12, -0.5f, 0.5f));
  const Tensor b = f32({6}, random_floats(6, 13));
  // The plain Conv (group 2, stride 2, pads 1): output [1, 6, 3, 3].
  auto conv = OpTest("Conv", 17)
                  .input(x)
                  .input(w)
                  .input(b)
                  .attr("group", 2)
                  .attr("strides", std::vector<int64_t>{2, 2})
                  .attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                  .run()[0];
  ASSERT_EQ(conv.shape(), Shape({1, 6, 3, 3}));
  const std::vector<float> z = random_floats(54, 14);
  const std::vector<std::pair<std::string, std::vector<float>>> activations = {
      {"", {}},
      {"Relu", {}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"LeakyRelu", {0.2f}},
      {"Clip", {-0.3f, 0.4f}},
      {"HardSigmoid", {0.25f, 0.5f}}};
  for (const auto& [name, params] : activations) {
    for (bool residual : {false, true}) {
      OpTest t = ms("FusedConv");
      t.input(x).input(w).input(b).input(residual ? f32({1, 6, 3, 3}, z) : Tensor());
      t.attr("group", 2).attr("strides", std::vector<int64_t>{2, 2});
      t.attr("pads", std::vector<int64_t>{1, 1, 1, 1});
      if (!name.empty()) t.attr("activation", name);
      if (!params.empty()) t.attr("activation_params", params);
      const Tensor y = t.run()[0];
      std::vector<double> expected;
      for (int64_t i = 0; i < 54; ++i) {
        const double v = conv.data<float>()[i] + (residual ? z[i] : 0.0f);
        expected.push_back(activate(name, params, v));
      }
      SCOPED_TRACE(name + (residual ? " with Z" : ""));
      expect_near_all(y, expected, 1e-5);
    }
  }
}

TEST(MsFusedConv, BadActivationsAndResidual) {
  const Tensor x = f32({1, 1, 3, 3}, random_floats(9, 1)), w = f32({2, 1, 1, 1}, {1, 2});
  auto run = [&](const std::string& activation, const std::vector<float>& params,
                 const Tensor& z = Tensor()) {
    OpTest t = ms("FusedConv");
    t.input(x).input(w).input(Tensor()).input(z).attr("activation", activation);
    if (!params.empty()) t.attr("activation_params", params);
    t.run();
  };
  expect_error([&] { run("Gelu", {}); }, {"node_under_test", "unknown activation 'Gelu'"});
  expect_error([&] { run("LeakyRelu", {}); }, {"LeakyRelu takes 1 activation_params, got 0"});
  expect_error([&] { run("Clip", {0.0f}); }, {"Clip takes 2 activation_params, got 1"});
  expect_error([&] { run("HardSigmoid", {0.1f, 0.2f, 0.3f}); }, {"HardSigmoid takes 2"});
  expect_error(
      [&] {
        run("Relu", {}, f32({1, 2, 3}, std::vector<float>(6, 0)));
      },
      {"residual Z", "output's shape"});
  expect_error([&] { ms("FusedConv").input(i64({1, 1, 1}, {1})).input(w).run(); }, {"float32"});
}

// ---- QLinearAdd, QLinearMul ----------------------------------------------------------------

TEST(QLinearAddMul, TiesToEvenSaturationAndBroadcast) {
  // Scales that make every value exact: a * 0.5 + b * 0.25 with C's scale 1, B broadcast along
  // the rows: 0.5 -> 0, 1.5 + 0.5 = 2, 2.5 -> 2, 127.5 -> 128, 100.5 -> 100, 3.5 -> 4 (ties to
  // even).
  const Tensor a = u8({2, 3}, {1, 3, 5, 255, 200, 7});
  const Tensor b = u8({3}, {0, 2, 0});
  auto add = [&](int zc) {
    return ints_of(ms("QLinearAdd")
                       .input(a)
                       .input(fs(0.5f))
                       .input(u8s(0))
                       .input(b)
                       .input(fs(0.25f))
                       .input(u8s(0))
                       .input(fs(1.0f))
                       .input(u8s(zc))
                       .run()[0]);
  };
  EXPECT_EQ(add(0), (std::vector<int>{0, 2, 2, 128, 100, 4}));
  // C's zero point 250 pushes sums over 255 (saturated); the tie goes to the even value of the
  // sum with the zero point, as ONNX Runtime rounds it: 252.5 -> 252, 253.5 -> 254.
  EXPECT_EQ(add(250), (std::vector<int>{250, 252, 252, 255, 255, 254}));
  // int8 saturates at both ends: (a + b) / 0.5 + 10.
  auto s = ms("QLinearAdd")
               .input(s8({4}, {-128, 127, 1, -3}))
               .input(fs(1.0f))
               .input(s8s(0))
               .input(s8({4}, {-128, 127, -128, 0}))
               .input(fs(1.0f))
               .input(s8s(0))
               .input(fs(0.5f))
               .input(s8s(10))
               .run()[0];
  EXPECT_EQ(ints_of(s), (std::vector<int>{-128, 127, -128, 4}));
  // QLinearMul: (a - 2) * (b - 1) * (0.5 * 0.5 / 0.5) + 3, scalar A broadcast over B, rounded
  // with the zero point added (ONNX Runtime's order): 0 + 3, 1.5 + 3 = 4.5 -> 4, 3 + 3,
  // 148.5 + 3 = 151.5 -> 152.
  auto mul = ms("QLinearMul")
                 .input(u8({}, {5}))
                 .input(fs(0.5f))
                 .input(u8s(2))
                 .input(u8({2, 2}, {1, 2, 3, 100}))
                 .input(fs(0.5f))
                 .input(u8s(1))
                 .input(fs(0.5f))
                 .input(u8s(3))
                 .run()[0];
  EXPECT_EQ(mul.shape(), Shape({2, 2}));
  EXPECT_EQ(ints_of(mul), (std::vector<int>{3, 4, 6, 152}));
}

TEST(QLinearAddMul, RandomBroadcastAgainstDoubleReference) {
  for (bool is_signed : {false, true}) {
    const int lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    const std::vector<int> av = random_ints(2 * 3 * 5, 21, lo, hi), bv = random_ints(3, 22, lo, hi);
    auto q = [&](const Shape& s, const std::vector<int>& v) {
      return is_signed ? s8(s, v) : u8(s, v);
    };
    const int za = is_signed ? -5 : 120, zb = is_signed ? 9 : 100, zc = is_signed ? 3 : 130;
    for (const char* op : {"QLinearAdd", "QLinearMul"}) {
      const bool is_add = std::string(op) == "QLinearAdd";
      const float sa = 0.037f, sb = 0.052f, sc = is_add ? 0.09f : 0.7f;
      auto y = ms(op)
                   .input(q({2, 3, 5}, av))
                   .input(fs(sa))
                   .input(q({}, {za}))
                   .input(q({3, 1}, bv))
                   .input(fs(sb))
                   .input(q({}, {zb}))
                   .input(fs(sc))
                   .input(q({}, {zc}))
                   .run()[0];
      ASSERT_EQ(y.shape(), Shape({2, 3, 5}));
      std::vector<double> unrounded;
      for (int64_t i = 0; i < 30; ++i) {
        const double a = (av[i] - za) * double(sa), b = (bv[(i / 5) % 3] - zb) * double(sb);
        unrounded.push_back((is_add ? a + b : a * b) / sc + zc);
      }
      SCOPED_TRACE(std::string(op) + (is_signed ? " int8" : " uint8"));
      expect_quantized(ints_of(y), unrounded, is_signed);
    }
  }
}

TEST(QLinearAddMul, BadInputs) {
  const Tensor a = u8({2}, {1, 2});
  auto run = [&](const Tensor& b, const Tensor& sa, const Tensor& za, const Tensor& sc = fs(1)) {
    ms("QLinearAdd")
        .input(a)
        .input(sa)
        .input(za)
        .input(b)
        .input(fs(1))
        .input(u8s(0))
        .input(sc)
        .input(u8s(0))
        .run();
  };
  expect_error(
      [&] {
        run(s8({2}, {1, 2}), fs(1), u8s(0));
      },
      {"node_under_test", "both be int8 or both uint8"});
  expect_error([&] { run(a, f32({2}, {1, 1}), u8s(0)); }, {"A_scale", "one float32"});
  expect_error([&] { run(a, fs(1), s8s(0)); }, {"A_zero_point", "uint8"});
  expect_error([&] { run(u8({3}, {1, 2, 3}), fs(1), u8s(0)); }, {"broadcast"});
  expect_error([&] { run(a, fs(1), u8s(0), Tensor()); }, {"C_scale is required"});
}

// ---- QLinearLeakyRelu, QLinearSigmoid --------------------------------------------------------

std::vector<int> every_value(bool is_signed) {
  std::vector<int> v;
  for (int i = 0; i < 256; ++i) v.push_back(is_signed ? i - 128 : i);
  return v;
}

TEST(QLinearLookup, LeakyReluOverEveryInputWithTies) {
  for (bool is_signed : {false, true}) {
    const std::vector<int> x = every_value(is_signed);
    const int zx = is_signed ? 3 : 128, zy = is_signed ? -20 : 60;
    auto q = [&](const Shape& s, const std::vector<int>& v) {
      return is_signed ? s8(s, v) : u8(s, v);
    };
    // x_scale 0.5, y_scale 0.25, alpha 0.25: negatives give (q - zx) * 0.5 -> ties at odd q - zx.
    auto y = ms("QLinearLeakyRelu")
                 .input(q({256}, x))
                 .input(fs(0.5f))
                 .input(q({}, {zx}))
                 .input(fs(0.25f))
                 .input(q({}, {zy}))
                 .attr("alpha", 0.25f)
                 .run()[0];
    std::vector<int> expected;
    for (int v : x) {
      const double d = (v - zx) * 0.5;
      expected.push_back(quantize((d >= 0 ? d : 0.25 * d) / 0.25 + zy, is_signed));
    }
    EXPECT_EQ(ints_of(y), expected) << (is_signed ? "int8" : "uint8");
  }
  // The default alpha is 0.01: -100 * 0.01 = -1.
  auto d = ms("QLinearLeakyRelu")
               .input(s8({2}, {-100, 50}))
               .input(fs(1))
               .input(Tensor())
               .input(fs(1))
               .input(Tensor())
               .run()[0];
  EXPECT_EQ(ints_of(d), (std::vector<int>{-1, 50}));
}

TEST(QLinearLookup, SigmoidOverEveryInput) {
  for (bool is_signed : {false, true}) {
    const std::vector<int> x = every_value(is_signed);
    const int zx = is_signed ? 0 : 128, zy = is_signed ? -128 : 0;
    auto q = [&](const Shape& s, const std::vector<int>& v) {
      return is_signed ? s8(s, v) : u8(s, v);
    };
    auto y = ms("QLinearSigmoid")
                 .input(q({16, 16}, x))
                 .input(fs(0.05f))
                 .input(q({}, {zx}))
                 .input(fs(1.0f / 256))
                 .input(q({}, {zy}))
                 .run()[0];
    std::vector<double> unrounded;
    for (int v : x) unrounded.push_back(256.0 / (1 + std::exp(-(v - zx) * double(0.05f))) + zy);
    expect_quantized(ints_of(y), unrounded, is_signed);
  }
}

TEST(QLinearLookup, BadInputs) {
  expect_error(
      [] {
        ms("QLinearSigmoid").input(f32({1}, {1})).input(fs(1)).input(Tensor()).input(fs(1)).run();
      },
      {"node_under_test", "X must be int8 or uint8"});
  expect_error([] { ms("QLinearSigmoid").input(u8({1}, {1})).input(fs(1)).input(Tensor()).run(); },
               {"Y_scale is required"});
  expect_error(
      [] {
        ms("QLinearLeakyRelu").input(u8({1}, {1})).input(u8s(1)).input(Tensor()).input(fs(1)).run();
      },
      {"X_scale"});
}

// ---- QLinearConcat ---------------------------------------------------------------------------

TEST(QLinearConcat, CopiesMatchingInputsAndRequantizesOthers) {
  // Y: scale 1, zero point 10. X0 matches Y (copied as is); X1 has scale 0.5, zero point 0:
  // 3 * 0.5 = 1.5 -> 2 + 10, 5 * 0.5 = 2.5 -> 2 + 10 (ties to even), 255 * 0.5 -> 128 + 10.
  auto y = ms("QLinearConcat")
               .input(fs(1))
               .input(u8s(10))
               .input(u8({2, 1}, {7, 250}))
               .input(fs(1))
               .input(u8s(10))
               .input(u8({2, 3}, {3, 5, 255, 0, 1, 2}))
               .input(fs(0.5f))
               .input(u8s(0))
               .attr("axis", 1)
               .run()[0];
  EXPECT_EQ(y.shape(), Shape({2, 4}));
  EXPECT_EQ(ints_of(y), (std::vector<int>{7, 12, 12, 138, 250, 10, 10, 11}));
  // int8 along axis 0 (negative axis), saturating.
  auto s = ms("QLinearConcat")
               .input(fs(0.5f))
               .input(s8s(0))
               .input(s8({1, 2}, {100, -100}))
               .input(fs(1))
               .input(s8s(0))
               .input(s8({1, 2}, {1, -1}))
               .input(fs(0.5f))
               .input(s8s(0))
               .attr("axis", -2)
               .run()[0];
  EXPECT_EQ(ints_of(s), (std::vector<int>{127, -128, 1, -1}));
}

TEST(QLinearConcat, BadInputs) {
  const Tensor x = u8({2}, {1, 2});
  expect_error(
      [&] {
        ms("QLinearConcat").input(fs(1)).input(u8s(0)).input(x).input(fs(1)).attr("axis", 0).run();
      },
      {"node_under_test", "(X, X_scale, X_zero_point)"});
  expect_error(
      [&] {
        ms("QLinearConcat").input(fs(1)).input(u8s(0)).input(x).input(fs(1)).input(u8s(0)).run();
      },
      {"axis attribute is required"});
  expect_error(
      [&] {
        ms("QLinearConcat")
            .input(fs(1))
            .input(u8s(0))
            .input(s8({2}, {1, 2}))
            .input(fs(1))
            .input(s8s(0))
            .attr("axis", 0)
            .run();
      },
      {"int8", "Y is uint8"});
  expect_error(
      [&] {
        ms("QLinearConcat")
            .input(fs(1))
            .input(u8s(0))
            .input(x)
            .input(fs(1))
            .input(u8s(0))
            .input(u8({1, 2}, {1, 2}))
            .input(fs(1))
            .input(u8s(0))
            .attr("axis", 0)
            .run();
      },
      {"does not match"});
}

// ---- QLinearGlobalAveragePool ----------------------------------------------------------------

TEST(QLinearGlobalAveragePool, ChannelsFirstAndLastAgreeWithTheMean) {
  const int64_t N = 2, C = 3, H = 4, W = 5;
  for (bool is_signed : {false, true}) {
    const int lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    const std::vector<int> x = random_ints(N * C * H * W, 31, lo, hi);
    std::vector<int> nhwc(x.size());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t s = 0; s < H * W; ++s)
          nhwc[(n * H * W + s) * C + c] = x[(n * C + c) * H * W + s];
    auto q = [&](const Shape& s, const std::vector<int>& v) {
      return is_signed ? s8(s, v) : u8(s, v);
    };
    const int zx = is_signed ? 4 : 100, zy = is_signed ? -7 : 20;
    auto run = [&](const Tensor& t, int channels_last) {
      return ms("QLinearGlobalAveragePool")
          .input(t)
          .input(fs(0.04f))
          .input(q({}, {zx}))
          .input(fs(0.03f))
          .input(q({}, {zy}))
          .attr("channels_last", channels_last)
          .run()[0];
    };
    const Tensor first = run(q({N, C, H, W}, x), 0), last = run(q({N, H, W, C}, nhwc), 1);
    EXPECT_EQ(first.shape(), Shape({N, C, 1, 1}));
    EXPECT_EQ(last.shape(), Shape({N, 1, 1, C}));
    EXPECT_EQ(ints_of(first), ints_of(last));
    std::vector<double> unrounded;
    for (int64_t i = 0; i < N * C; ++i) {
      double sum = 0;
      for (int64_t s = 0; s < H * W; ++s) sum += x[i * H * W + s] - zx;
      unrounded.push_back(sum / (H * W) * double(0.04f) / double(0.03f) + zy);
    }
    expect_quantized(ints_of(first), unrounded, is_signed);
  }
}

TEST(QLinearGlobalAveragePool, BadInputs) {
  expect_error(
      [] {
        ms("QLinearGlobalAveragePool")
            .input(u8({2, 2}, {1, 2, 3, 4}))
            .input(fs(1))
            .input(u8s(0))
            .input(fs(1))
            .input(u8s(0))
            .run();
      },
      {"node_under_test", "rank 3 or more"});
  expect_error(
      [] {
        ms("QLinearGlobalAveragePool")
            .input(u8({1, 1, 2}, {1, 2}))
            .input(fs(1))
            .input(s8s(0))
            .input(fs(1))
            .input(u8s(0))
            .run();
      },
      {"x_zero_point"});
}

// ---- QLinearSoftmax --------------------------------------------------------------------------

// Softmax over rows of `extent` values `inner` apart, quantized with y_scale 1/256, zero point
// zy, before rounding.
std::vector<double> softmax_ref(const std::vector<int>& x, int64_t outer, int64_t extent,
                                int64_t inner, double x_scale, int zy) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (int64_t k = 0; k < extent; ++k)
        sum += std::exp(x[(o * extent + k) * inner + i] * x_scale);
      for (int64_t k = 0; k < extent; ++k) {
        const int64_t at = (o * extent + k) * inner + i;
        y[at] = std::exp(x[at] * x_scale) / sum * 256 + zy;
      }
    }
  return y;
}

TEST(QLinearSoftmax, OpsetSemanticsAndAxes) {
  const std::vector<int> x = random_ints(2 * 3 * 4, 41, 0, 255);
  auto run = [&](int opset, std::optional<int> axis) {
    OpTest t = ms("QLinearSoftmax");
    t.input(u8({2, 3, 4}, x)).input(fs(0.05f)).input(u8s(17)).input(fs(1.0f / 256)).input(u8s(0));
    t.attr("opset", opset);
    if (axis) t.attr("axis", *axis);
    return ints_of(t.run()[0]);
  };
  // Opset 13 along axis 1 alone; opset 12 split at axis 1 into [2, 12]; the default is the
  // last axis under both.
  expect_quantized(run(13, 1), softmax_ref(x, 2, 3, 4, 0.05f, 0), false);
  expect_quantized(run(12, 1), softmax_ref(x, 2, 12, 1, 0.05f, 0), false);
  expect_quantized(run(13, std::nullopt), softmax_ref(x, 6, 4, 1, 0.05f, 0), false);
  EXPECT_EQ(run(12, std::nullopt), run(13, -1));
  // int8 with y_scale 1/256 and zero point -128: a row with one dominant value reaches
  // 256 - 128, saturated to 127 (ONNX Runtime wraps it to -128 instead).
  auto s = ms("QLinearSoftmax")
               .input(s8({1, 3}, {127, -128, -128}))
               .input(fs(0.5f))
               .input(s8s(0))
               .input(fs(1.0f / 256))
               .input(s8s(-128))
               .attr("opset", 13)
               .run()[0];
  EXPECT_EQ(ints_of(s), (std::vector<int>{127, -128, -128}));
}

TEST(QLinearSoftmax, BadInputs) {
  const Tensor x = u8({2}, {1, 2});
  expect_error([&] { ms("QLinearSoftmax").input(x).input(fs(1)).input(u8s(0)).input(fs(1)).run(); },
               {"node_under_test", "opset attribute is required"});
  expect_error(
      [&] {
        ms("QLinearSoftmax")
            .input(f32({2}, {1, 2}))
            .input(fs(1))
            .input(Tensor())
            .input(fs(1))
            .attr("opset", 13)
            .run();
      },
      {"X must be int8 or uint8"});
  expect_error(
      [&] {
        ms("QLinearSoftmax")
            .input(x)
            .input(fs(1))
            .input(Tensor())
            .input(fs(1))
            .attr("opset", 13)
            .attr("axis", 3)
            .run();
      },
      {"axis"});
  expect_error(
      [&] {
        ms("QLinearSoftmax")
            .input(x)
            .input(fs(-1))
            .input(Tensor())
            .input(fs(1))
            .attr("opset", 13)
            .run();
      },
      {"positive"});
}

}  // namespace
}  // namespace kiln::testing
