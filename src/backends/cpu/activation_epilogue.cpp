#include "backends/cpu/activation_epilogue.h"

#include <algorithm>

#include "backends/cpu/gelu.h"
#include "backends/cpu/vector_math.h"

namespace kiln::cpu {
namespace {

// The same formulas as the standalone ops (ops/activations.cpp).
void activate_row(const ActivationAttrs& a, float* x, int64_t n) {
  switch (a.activation) {
    case FusedActivation::kNone:
      return;
    case FusedActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? 0.0f : x[i];
      return;
    case FusedActivation::kClip:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], a.clip_min), a.clip_max);
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
    case FusedActivation::kGelu:
      gelu_f32(x, x, n);
      return;
    case FusedActivation::kGeluTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = gelu_tanh(x[i]);
      return;
    case FusedActivation::kTanh:
      tanh_f32(x, x, n);
      return;
    case FusedActivation::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? a.alpha * x[i] : x[i];
      return;
    case FusedActivation::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i)
        x[i] = std::min(std::max(a.alpha * x[i] + a.beta, 0.0f), 1.0f);
      return;
  }
}

void apply_to_block(const void* context, float* c, int64_t rows, int64_t cols, int64_t ldc) {
  apply_activation(*static_cast<const ActivationAttrs*>(context), c, rows, cols, ldc);
}

}  // namespace

bool activation_in_gemm_tile(FusedActivation a) {
  return a == FusedActivation::kRelu || a == FusedActivation::kClip;
}

void apply_activation(const ActivationAttrs& a, float* data, int64_t rows, int64_t cols,
                      int64_t ld) {
  if (a.activation == FusedActivation::kNone) return;
  for (int64_t r = 0; r < rows; ++r) activate_row(a, data + r * ld, cols);
}

void set_gemm_activation(const ActivationAttrs& a, GemmEpilogue& ep) {
  if (a.activation == FusedActivation::kRelu) {
    ep.activation = GemmActivation::kRelu;
  } else if (a.activation == FusedActivation::kClip) {
    ep.activation = GemmActivation::kClip;
    ep.clip_min = a.clip_min;
    ep.clip_max = a.clip_max;
  } else if (a.activation != FusedActivation::kNone) {
    ep.finish_block = &apply_to_block;
    ep.finish_context = &a;
  }
}

}  // namespace kiln::cpu
