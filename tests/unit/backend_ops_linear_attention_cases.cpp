#include <gtest/gtest.h>

#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

struct LinearAttentionCase {
  std::string name;
  std::string rule = "gated_delta";
  int64_t batch = 2, seq = 5, q_heads = 2, kv_heads = 2, key_size = 4, value_size = 3;
  bool past = false;
  bool decay_per_head = false;
  bool beta_shared = false;
  float scale = -1.0f;  // absent when negative
  int outputs = 2;
  bool f16 = false;
};

OpTest make_linear_attention(const LinearAttentionCase& c, unsigned seed) {
  auto values = [&](const Shape& s, unsigned k, float lo, float hi) {
    const Tensor t = random_f32(s, seed + k, lo, hi);
    if (!c.f16) return t;
    std::vector<Float16> v;
    for (float x : t.to_vector<float>()) v.push_back(Float16(x));
    return Tensor::from_data<Float16>(s, v);
  };
  const bool decay = c.rule == "gated" || c.rule == "gated_delta";
  const bool beta = c.rule == "delta" || c.rule == "gated_delta";
  const int64_t b = c.batch, s = c.seq;
  OpTest t("LinearAttention", 27);
  // Keys of norm about 1 and beta in (0, 1), so the delta rule's state stays bounded.
  t.input(values({b, s, c.q_heads * c.key_size}, 0, -1.0f, 1.0f))
      .input(values({b, s, c.kv_heads * c.key_size}, 1, -0.5f, 0.5f))
      .input(values({b, s, c.kv_heads * c.value_size}, 2, -1.0f, 1.0f))
      .input(c.past ? values({b, c.kv_heads, c.key_size, c.value_size}, 3, -1.0f, 1.0f) : Tensor())
      .input(decay ? values({b, s, c.decay_per_head ? c.kv_heads : c.kv_heads * c.key_size}, 4,
                            -0.7f, 0.0f)
                   : Tensor())
      .input(beta ? values({b, s, c.beta_shared ? 1 : c.kv_heads}, 5, 0.1f, 0.9f) : Tensor())
      .attr("q_num_heads", c.q_heads)
      .attr("kv_num_heads", c.kv_heads)
      .attr("update_rule", c.rule)
      .outputs(c.outputs);
  if (c.scale >= 0.0f) t.attr("scale", c.scale);
  return t;
}

// LinearAttention on both GPU backends: every update rule, per-feature and per-head decay,
// per-head and shared beta, grouped and multi-query heads, past state, an explicit scale, the
// output alone, a single decode step, float16.
std::vector<LinearAttentionCase> linear_attention_cases() {
  return {
      {.name = "LinearAttention_linear", .rule = "linear"},
      {.name = "LinearAttention_gated_past", .rule = "gated", .past = true},
      {.name = "LinearAttention_gated_per_head_decay", .rule = "gated", .decay_per_head = true},
      {.name = "LinearAttention_delta", .rule = "delta", .past = true},
      {.name = "LinearAttention_gated_delta_gqa", .q_heads = 4, .kv_heads = 2, .past = true},
      {.name = "LinearAttention_gated_delta_mqa_shared_beta",
       .q_heads = 3,
       .kv_heads = 1,
       .beta_shared = true},
      {.name = "LinearAttention_explicit_scale_output_only",
       .rule = "linear",
       .scale = 0.3f,
       .outputs = 1},
      {.name = "LinearAttention_decode_step", .seq = 1, .past = true},
      {.name = "LinearAttention_float16", .past = true, .f16 = true},
  };
}

void add_linear_attention_cases(std::vector<OpCase>& c) {
  const std::vector<LinearAttentionCase> cases = linear_attention_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    c.push_back({cases[i].name, [la = cases[i], seed = static_cast<unsigned>(900 + 10 * i)] {
                   return make_linear_attention(la, seed);
                 }});
  }
}

REGISTER_OP_CASES(add_linear_attention_cases);

// A gated rule without its decay input is the node's error on the GPU as on the CPU.
void expect_missing_decay_error(Backend backend, const char* backend_name) {
  OpTest test("LinearAttention", 27);
  test.input(random_f32({1, 3, 4}, 1))
      .input(random_f32({1, 3, 4}, 2))
      .input(random_f32({1, 3, 2}, 3))
      .attr("q_num_heads", 1)
      .attr("kv_num_heads", 1)
      .attr("update_rule", "gated");
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), backend);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << backend_name << " is not available here: " << e.what();
  }
  try {
    test.run(*worker);
    ADD_FAILURE() << "a gated LinearAttention ran without decay";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs the decay input"), std::string::npos) << e.what();
  }
}

TEST(GpuComputeLinearAttention, GatedRuleWithoutDecayIsAnError) {
  expect_missing_decay_error(Backend::GpuCompute, "gpu-compute");
}

TEST(GpuPixelLinearAttention, GatedRuleWithoutDecayIsAnError) {
  expect_missing_decay_error(Backend::GpuPixel, "gpu-pixel");
}

}  // namespace
}  // namespace kiln::testing
