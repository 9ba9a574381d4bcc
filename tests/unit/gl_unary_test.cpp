// OpenGL ES unary ops and activations against kiln's CPU ops (the oracle), over random values in
// each op's interesting range, special values (zeros, infinities, NaN) and sizes that leave a
// partial last texel.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/gl/unary_elementwise.h"
#include "gl_fixture.h"
#include "test_util.h"

namespace kiln::gl {
namespace {

struct OpCase {
  UnaryParams params;
  const char* onnx;
  float lo, hi;  // random inputs in [lo, hi]
  std::function<void(testing::OpTest&)> attrs = {};
  // Beside 1e-5 relative, as for the Vulkan shader: results that cancel to near zero (Gelu and
  // Mish tails, sin near its zeros) keep an absolute error the CPU's float formulas share.
  double atol = 1e-6;
};

std::vector<OpCase> cases() {
  const float selu_alpha = 1.67326319217681884765625f, selu_gamma = 1.05070102214813232421875f;
  return {
      {{UnaryOp::Abs}, "Abs", -10, 10},
      {{UnaryOp::Neg}, "Neg", -10, 10},
      {{UnaryOp::Exp}, "Exp", -80, 80},
      {{UnaryOp::Log}, "Log", 1e-6f, 1e6f},
      {{UnaryOp::Log}, "Log", 0.5f, 2.0f},
      {{UnaryOp::Sqrt}, "Sqrt", 0, 1e4f},
      {{UnaryOp::Reciprocal}, "Reciprocal", -100, 100},
      {{UnaryOp::Sin}, "Sin", -100, 100},
      {{UnaryOp::Cos}, "Cos", -100, 100},
      {{UnaryOp::Tanh}, "Tanh", -12, 12},
      {{UnaryOp::Tanh}, "Tanh", -0.01f, 0.01f},
      {{UnaryOp::Sigmoid}, "Sigmoid", -30, 30},
      {{UnaryOp::Relu}, "Relu", -5, 5},
      {{UnaryOp::LeakyRelu, 0.1f},
       "LeakyRelu",
       -5,
       5,
       [](testing::OpTest& t) { t.attr("alpha", 0.1f); }},
      {{UnaryOp::Elu, 0.7f}, "Elu", -5, 5, [](testing::OpTest& t) { t.attr("alpha", 0.7f); }},
      {{UnaryOp::Selu, selu_alpha, selu_gamma}, "Selu", -5, 5},
      {{UnaryOp::Celu, 1.5f}, "Celu", -5, 5, [](testing::OpTest& t) { t.attr("alpha", 1.5f); }},
      {{UnaryOp::HardSigmoid, 0.2f, 0.5f}, "HardSigmoid", -5, 5},
      {{UnaryOp::HardSwish}, "HardSwish", -5, 5},
      {{UnaryOp::Softplus}, "Softplus", -30, 30},
      {{UnaryOp::Softsign}, "Softsign", -10, 10},
      {{UnaryOp::Gelu}, "Gelu", -6, 6},
      {{UnaryOp::GeluTanh},
       "Gelu",
       -6,
       6,
       [](testing::OpTest& t) { t.attr("approximate", "tanh"); }},
      {{UnaryOp::Erf}, "Erf", -4, 4},
      {{UnaryOp::Floor}, "Floor", -10, 10},
      {{UnaryOp::Ceil}, "Ceil", -10, 10},
      {{UnaryOp::Round}, "Round", -10, 10},
      {{UnaryOp::Sign}, "Sign", -2, 2},
      {{UnaryOp::Mish}, "Mish", -10, 10},
      {{UnaryOp::ThresholdedRelu, 0.5f},
       "ThresholdedRelu",
       -2,
       2,
       [](testing::OpTest& t) { t.attr("alpha", 0.5f); }},
      {{UnaryOp::Swish, 1.3f}, "Swish", -10, 10, [](testing::OpTest& t) { t.attr("alpha", 1.3f); }},
  };
}

class GlUnary : public Gl {
 protected:
  Tensor run(const UnaryElementwise& kernel, const UnaryParams& params, const Tensor& x) {
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), x.element_count());
    kernel.record(params, gx, gy);
    return to_host(gy, x.shape());
  }
};

Tensor cpu_reference(const OpCase& c, const Tensor& x, int opset = 22) {
  testing::OpTest test(c.onnx, opset);
  test.input(x);
  if (c.attrs) c.attrs(test);
  return test.run()[0];
}

TEST_F(GlUnary, OpsMatchCpu) {
  UnaryElementwise kernel(context());
  std::mt19937 rng(5);
  for (const OpCase& c : cases()) {
    std::uniform_real_distribution<float> dist(c.lo, c.hi);
    std::vector<float> values(1001);
    for (float& v : values) v = dist(rng);
    // Exact halves for Round, and exact integers for Floor and Ceil.
    for (int i = 0; i < 20; ++i) values[i] = static_cast<float>(i - 10) * 0.5f;
    const Tensor x = testing::f32({7, 11, 13}, values);
    const std::string what = std::string(to_string(c.params.op)) + " on [" + std::to_string(c.lo) +
                             ", " + std::to_string(c.hi) + "]";
    expect_matches(run(kernel, c.params, x), cpu_reference(c, x), 1e-5, what, c.atol);
  }
}

TEST_F(GlUnary, SpecialValuesMatchCpu) {
  const float inf = INFINITY;
  // No subnormals: GPUs may flush them to zero.
  const Tensor x = testing::f32({9}, {0.0f, -0.0f, inf, -inf, NAN, 1e-30f, -1e-30f, 89, -104});
  UnaryElementwise kernel(context());
  for (const OpCase& c : cases()) {
    expect_matches(run(kernel, c.params, x), cpu_reference(c, x), 1e-5,
                   std::string(to_string(c.params.op)) + " special values", c.atol);
  }
}

TEST_F(GlUnary, ClipTakesBoundsAsParameters) {
  const Tensor x = testing::f32({6}, {-3, -1, 0, 0.5f, 2, NAN});
  const Tensor expected = testing::OpTest("Clip")
                              .input(x)
                              .input(testing::f32({}, {-1.5f}))
                              .input(testing::f32({}, {1}))
                              .run()[0];
  UnaryElementwise kernel(context());
  expect_matches(run(kernel, {UnaryOp::Clip, -1.5f, 1.0f}, x), expected, 0, "Clip");
}

TEST_F(GlUnary, EmptyAndMismatchedTensors) {
  UnaryElementwise kernel(context());
  TextureTensor empty_in(context(), 0), empty_out(context(), 0);
  EXPECT_NO_THROW(kernel.record({UnaryOp::Exp}, empty_in, empty_out));
  TextureTensor a(context(), 5), b(context(), 6);
  EXPECT_THROW(kernel.record({UnaryOp::Exp}, a, b), Error);
  EXPECT_THROW(kernel.record({UnaryOp::Celu, 0.0f}, a, a), Error);
}

}  // namespace
}  // namespace kiln::gl
