// Float ops GPU-pixel once left to the CPU: the unary and binary elementwise draws on bfloat16
// (computed in float32 and rounded once, as the CPU kernels compute them, so the results match
// bit for bit), and 3-D ConvTranspose. Both GPU backends run them. LSTM layout 1 is in
// backend_ops_gc_gaps_cases.cpp, shared by both backends.
#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

Tensor to_bf16(const Tensor& f) {
  std::vector<BFloat16> v;
  for (float x : f.to_vector<float>()) v.push_back(BFloat16(x));
  return Tensor::from_data<BFloat16>(f.shape(), v);
}

// Random bfloat16 values, with NaN, both infinities and both zeros among them.
Tensor bf16_with_specials(const Shape& shape, unsigned seed) {
  std::vector<float> v = random_f32(shape, seed, -3.0f, 3.0f).to_vector<float>();
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::nanf(""), inf, -inf, 0.0f, -0.0f};
  for (size_t i = 0; i < std::size(specials) && 3 * i < v.size(); ++i) v[3 * i] = specials[i];
  return to_bf16(Tensor::from_data<float>(shape, v));
}

void push_bit_exact(std::vector<OpCase>& c, std::string name, std::function<OpTest()> make) {
  c.push_back({std::move(name), std::move(make)});
  c.back().bit_exact = true;
}

void add_bfloat16_elementwise_cases(std::vector<OpCase>& c) {
  push_bit_exact(c, "BFloat16_Celu", [] {
    return OpTest("Celu").input(bf16_with_specials({3, 4, 5}, 5101)).attr("alpha", 2.0f);
  });
  push_bit_exact(c, "BFloat16_Elu", [] {
    return OpTest("Elu").input(bf16_with_specials({4, 7}, 5102)).attr("alpha", 0.5f);
  });
  push_bit_exact(c, "BFloat16_Exp", [] {
    return OpTest("Exp").input(bf16_with_specials({2, 9}, 5103));
  });
  // Broadcast operands; zeros in the divisor make infinities and NaNs.
  push_bit_exact(c, "BFloat16_Div_broadcast", [] {
    return OpTest("Div")
        .input(bf16_with_specials({3, 4, 5}, 5104))
        .input(bf16_with_specials({4, 1}, 5105));
  });
  push_bit_exact(c, "BFloat16_Mul_broadcast", [] {
    return OpTest("Mul")
        .input(bf16_with_specials({2, 1, 6}, 5106))
        .input(bf16_with_specials({5, 6}, 5107));
  });
  push_bit_exact(c, "BFloat16_Max", [] {
    return OpTest("Max")
        .input(bf16_with_specials({3, 6}, 5108))
        .input(bf16_with_specials({3, 6}, 5109));
  });
}

// 3-D ConvTranspose: every axis with its own stride, pads, dilation and output_padding (so that a
// mix-up of depth with height shows), groups, and with and without a bias. The tolerances of the
// 2-D ConvTranspose cases: the sums run in another order than the CPU's.
void add_conv_transpose_3d_cases(std::vector<OpCase>& c) {
  struct Case {
    std::string name;
    Shape x, w;
    int64_t group;
    std::vector<int64_t> strides, pads, dilations, output_padding;
    bool bias;
  };
  const std::vector<Case> cases = {
      {"strided",
       {1, 2, 3, 4, 5},
       {2, 3, 3, 2, 3},
       1,
       {2, 1, 3},
       {1, 0, 0, 0, 1, 2},
       {1, 1, 1},
       {1, 0, 2},
       true},
      {"grouped_dilated",
       {2, 4, 4, 3, 3},
       {4, 1, 2, 3, 2},
       2,
       {1, 2, 1},
       {0, 1, 0, 1, 0, 1},
       {2, 1, 3},
       {0, 1, 0},
       false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    c.push_back({"ConvTranspose_3d_" + cases[i].name,
                 [k = cases[i], seed = static_cast<unsigned>(5200 + 10 * i)] {
                   OpTest t("ConvTranspose");
                   t.input(random_f32(k.x, seed))
                       .input(random_f32(k.w, seed + 1))
                       .input(k.bias ? random_f32({k.w[1] * k.group}, seed + 2) : Tensor())
                       .constant_input(1)
                       .attr("group", k.group)
                       .attr("strides", k.strides)
                       .attr("pads", k.pads)
                       .attr("dilations", k.dilations)
                       .attr("output_padding", k.output_padding);
                   return t;
                 },
                 1e-4, 1e-5});
  }
}

REGISTER_OP_CASES(add_bfloat16_elementwise_cases);
REGISTER_OP_CASES(add_conv_transpose_3d_cases);

}  // namespace
}  // namespace kiln::testing
