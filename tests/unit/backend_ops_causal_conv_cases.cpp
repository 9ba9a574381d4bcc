#include <gtest/gtest.h>

#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

Tensor to_f16(const Tensor& t) {
  std::vector<Float16> v;
  for (float x : t.to_vector<float>()) v.push_back(Float16(x));
  return Tensor::from_data<Float16>(t.shape(), v);
}

struct CausalConvCase {
  std::string name;
  int64_t batch = 2, channels = 3, length = 7, kernel = 4;
  bool bias = false, past = false;
  const char* activation = nullptr;  // absent when null
  int outputs = 2;
  bool f16 = false;
};

OpTest make_causal_conv(const CausalConvCase& c, unsigned seed) {
  auto values = [&](const Shape& s, unsigned k) {
    const Tensor t = random_f32(s, seed + k);
    return c.f16 ? to_f16(t) : t;
  };
  OpTest t("CausalConvWithState", 27);
  t.input(values({c.batch, c.channels, c.length}, 0))
      .input(values({c.channels, 1, c.kernel}, 1))
      .input(c.bias ? values({c.channels}, 2) : Tensor())
      .input(c.past ? values({c.batch, c.channels, c.kernel - 1}, 3) : Tensor())
      .outputs(c.outputs);
  if (c.activation) t.attr("activation", c.activation);
  return t;
}

// CausalConvWithState on both GPU backends: with and without bias and past state, silu and its
// swish alias, a one-tap kernel (no state), an input shorter than the carried state, the
// output alone, float16.
std::vector<CausalConvCase> causal_conv_cases() {
  return {
      {.name = "CausalConvWithState_plain"},
      {.name = "CausalConvWithState_bias_past_silu",
       .bias = true,
       .past = true,
       .activation = "silu"},
      {.name = "CausalConvWithState_swish_past", .past = true, .activation = "swish"},
      {.name = "CausalConvWithState_kernel1", .kernel = 1, .bias = true},
      {.name = "CausalConvWithState_short_input_past", .length = 2, .kernel = 5, .past = true},
      {.name = "CausalConvWithState_output_only", .bias = true, .past = true, .outputs = 1},
      {.name = "CausalConvWithState_float16_silu",
       .bias = true,
       .past = true,
       .activation = "silu",
       .f16 = true},
  };
}

void add_causal_conv_cases(std::vector<OpCase>& c) {
  const std::vector<CausalConvCase> cases = causal_conv_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    c.push_back({cases[i].name, [cc = cases[i], seed = static_cast<unsigned>(800 + 10 * i)] {
                   return make_causal_conv(cc, seed);
                 }});
  }
}

REGISTER_OP_CASES(add_causal_conv_cases);

// A past state of the wrong length is the node's error on the GPU as on the CPU.
void expect_past_state_error(Backend backend, const char* backend_name) {
  OpTest test("CausalConvWithState", 27);
  test.input(random_f32({1, 2, 5}, 1))
      .input(random_f32({2, 1, 3}, 2))
      .input(Tensor())
      .input(random_f32({1, 2, 3}, 3));
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), backend);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << backend_name << " is not available here: " << e.what();
  }
  try {
    test.run(*worker);
    ADD_FAILURE() << "ran with a [1, 2, 3] past_state for a 3-tap kernel";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("past_state must be"), std::string::npos) << e.what();
  }
}

TEST(GpuComputeCausalConv, PastStateOfTheWrongShapeIsAnError) {
  expect_past_state_error(Backend::GpuCompute, "gpu-compute");
}

TEST(GpuPixelCausalConv, PastStateOfTheWrongShapeIsAnError) {
  expect_past_state_error(Backend::GpuPixel, "gpu-pixel");
}

}  // namespace
}  // namespace kiln::testing
