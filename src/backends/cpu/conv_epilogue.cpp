#include "backends/cpu/conv_epilogue.h"

namespace kiln::cpu {

GemmEpilogue conv_gemm_epilogue(const float* bias, const ConvEpilogue& e) {
  GemmEpilogue ep;
  if (bias) {
    ep.bias_kind = GemmBias::kPerRow;
    ep.bias = bias;
  }
  if (e.residual) ep.beta = 1.0f;
  if (e.activation_in_gemm()) set_gemm_activation(e, ep);
  return ep;
}

void apply_conv_activation(const ConvEpilogue& e, float* data, int64_t rows, int64_t cols,
                           int64_t ld, bool in_gemm) {
  if (in_gemm && e.activation_in_gemm()) return;
  apply_activation(e, data, rows, cols, ld);
}

void add_residual_and_activate(const ConvEpilogue& e, float* data, const float* residual,
                               int64_t rows, int64_t cols, int64_t ld, bool in_gemm) {
  if (residual) {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = data + r * ld;
      const float* z = residual + r * ld;
      for (int64_t j = 0; j < cols; ++j) row[j] += z[j];
    }
  }
  apply_conv_activation(e, data, rows, cols, ld, in_gemm);
}

}  // namespace kiln::cpu
