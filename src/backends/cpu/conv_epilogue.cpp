#include "backends/cpu/conv_epilogue.h"

#include <algorithm>

#include "backends/cpu/vector_math.h"

namespace kiln::cpu {

GemmEpilogue conv_gemm_epilogue(const float* bias, const ConvEpilogue& e) {
  GemmEpilogue ep;
  if (bias) {
    ep.bias_kind = GemmBias::kPerRow;
    ep.bias = bias;
  }
  if (e.residual) ep.beta = 1.0f;
  if (e.activation == FusedActivation::kRelu) {
    ep.activation = GemmActivation::kRelu;
  } else if (e.activation == FusedActivation::kClip) {
    ep.activation = GemmActivation::kClip;
    ep.clip_min = e.clip_min;
    ep.clip_max = e.clip_max;
  }
  return ep;
}

namespace {

// The same formulas as the standalone ops (ops/activations.cpp), so fusing does not change
// the results.
void activate_row(const ConvEpilogue& e, float* x, int64_t n) {
  switch (e.activation) {
    case FusedActivation::kNone:
      return;
    case FusedActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? 0.0f : x[i];
      return;
    case FusedActivation::kClip:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], e.clip_min), e.clip_max);
      return;
    case FusedActivation::kHardSwish:
      for (int64_t i = 0; i < n; ++i) {
        const float v = x[i] / 6.0f + 0.5f;
        x[i] = x[i] * (v < 0 ? 0.0f : (v > 1 ? 1.0f : v));
      }
      return;
    case FusedActivation::kSilu:
      // x * sigmoid(x) through the vectorised kernel the Sigmoid op uses, in one pass.
      silu_f32(x, x, n);
      return;
    case FusedActivation::kSigmoid:
      sigmoid_f32(x, x, n);
      return;
    case FusedActivation::kTanh:
      tanh_f32(x, x, n);
      return;
    case FusedActivation::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? e.alpha * x[i] : x[i];
      return;
    case FusedActivation::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i)
        x[i] = std::min(std::max(e.alpha * x[i] + e.beta, 0.0f), 1.0f);
      return;
  }
}

}  // namespace

void apply_conv_activation(const ConvEpilogue& e, float* data, int64_t rows, int64_t cols,
                           int64_t ld, bool in_gemm) {
  if (e.activation == FusedActivation::kNone || (in_gemm && e.activation_in_gemm())) return;
  for (int64_t r = 0; r < rows; ++r) activate_row(e, data + r * ld, cols);
}

}  // namespace kiln::cpu
