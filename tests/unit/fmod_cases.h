// The operands both GPU backends' float Mod (fmod=1) tests run, and the bit-for-bit check they
// share: the remainder of C's fmod is exact, so widely different magnitudes, subnormals, signed
// zeros, infinities and NaN must all come out as std::fmod (kiln's CPU op) gives them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {

struct FmodOperands {
  Tensor x, y;
};

// Pairs whose remainder a quotient-based formula gets wrong, and the special values.
inline FmodOperands fmod_special_operands() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float max = std::numeric_limits<float>::max();
  const std::vector<std::pair<float, float>> pairs = {
      {5.5f, 2.0f},     {-5.5f, 2.0f},      {5.5f, -2.0f},  {-0.0f, 2.0f},  {0.0f, -2.0f},
      {4.0f, 2.0f},     {-4.0f, 2.0f},      {1e30f, 3.1f},  {-1e30f, 0.7f}, {max, tiny},
      {max, 1.5f},      {1e-30f, 3e-38f},   {3e-38f, tiny}, {tiny, tiny},   {7 * tiny, 3 * tiny},
      {1e-40f, 3e-41f}, {-1e-39f, 1e-45f},  {7.0f, 0.0f},   {7.0f, -0.0f},  {inf, 1.0f},
      {-inf, 2.0f},     {nan, 1.0f},        {1.0f, nan},    {2.0f, inf},    {-2.0f, -inf},
      {0.1f, 0.03f},    {16777217.0f, 0.1f}};
  std::vector<float> xs, ys;
  for (auto [x, y] : pairs) {
    xs.push_back(x);
    ys.push_back(y);
  }
  const auto n = static_cast<int64_t>(xs.size());
  return {f32({n}, xs), f32({n}, ys)};
}

// 64 x 64 random bit patterns of finite floats (every exponent gap, subnormals included), the
// first 1024 divisors of a magnitude close to their dividends, the common case in models.
inline FmodOperands fmod_random_operands() {
  std::mt19937 rng(7);
  auto random_float = [&] {
    for (;;) {
      const float v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
      if (std::isfinite(v)) return v;
    }
  };
  std::vector<float> xs(4096), ys(4096);
  for (float& x : xs) x = random_float();
  for (float& y : ys) y = random_float();
  for (size_t i = 0; i < 1024; ++i) ys[i] = xs[i] / (1.0f + static_cast<float>(i % 37));
  return {f32({64, 64}, xs), f32({64, 64}, ys)};
}

inline Tensor fmod_on_cpu(const Tensor& x, const Tensor& y) {
  return OpTest("Mod").input(x).input(y).attr("fmod", int64_t{1}).run()[0];
}

// Equal shapes and bits, except that any NaN matches any NaN.
inline ::testing::AssertionResult same_bits(const Tensor& gpu, const Tensor& cpu) {
  if (gpu.dtype() != DataType::Float32 || gpu.shape() != cpu.shape()) {
    return ::testing::AssertionFailure()
           << "gpu " << gpu.to_string() << " vs cpu " << cpu.to_string();
  }
  for (int64_t i = 0; i < cpu.element_count(); ++i) {
    const float g = gpu.data<float>()[i], c = cpu.data<float>()[i];
    if (std::isnan(g) && std::isnan(c)) continue;
    if (std::bit_cast<uint32_t>(g) != std::bit_cast<uint32_t>(c)) {
      return ::testing::AssertionFailure() << "element " << i << ": gpu " << g << ", cpu " << c;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
