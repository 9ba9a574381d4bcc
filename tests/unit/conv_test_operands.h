// Random operands of a float32 Conv test and the output they must give: the loop-nest
// reference, accumulated in double (backends/cpu/conv_reference.h).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "backends/cpu/conv_reference.h"
#include "random_data.h"

namespace kiln::testing {

struct ConvOperands {
  std::vector<float> x, w, bias;
  std::vector<float> residual;  // Y's shape
  std::vector<float> expected;  // conv(x, w) + bias: no residual, no activation
};

// x, w, the bias and a residual drawn from `rng` in that order, each in [-1, 1).
inline ConvOperands random_conv_operands(const ConvProblem& p, std::mt19937& rng) {
  const WindowGeometry& g = p.geometry;
  ConvOperands o;
  o.x = uniform_floats(static_cast<size_t>(p.batch * p.in_channels * g.in_size()), rng);
  o.w = uniform_floats(
      static_cast<size_t>(p.out_channels * (p.in_channels / p.group) * g.kernel_size()), rng);
  o.bias = uniform_floats(static_cast<size_t>(p.out_channels), rng);
  const size_t y_size = static_cast<size_t>(p.batch * p.out_channels * g.out_size());
  o.residual = uniform_floats(y_size, rng);
  o.expected.resize(y_size);
  cpu::conv_reference<float, double>(p, o.x.data(), o.w.data(), o.bias.data(), o.expected.data());
  return o;
}

// Whether every output is within the tolerance a model's outputs must meet,
// |a - e| <= 1e-4 + 1e-3 |e|; the message names the first that is not.
inline ::testing::AssertionResult conv_outputs_match(const std::vector<float>& y,
                                                     const std::vector<float>& want) {
  for (size_t i = 0; i < y.size(); ++i) {
    if (!(std::abs(y[i] - want[i]) <= 1e-4f + 1e-3f * std::abs(want[i]))) {
      return ::testing::AssertionFailure() << "at " << i << ": " << y[i] << " against " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
