// Test data: uniformly distributed floats from a fixed seed, so every run sees the same values.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace kiln::testing {

inline std::vector<float> uniform_floats(int64_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// `n` floats in [-1, 1) drawn from `rng`, for tests that draw several arrays from one generator.
inline std::vector<float> uniform_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace kiln::testing
