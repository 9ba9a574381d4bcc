// float32 Conv and ConvTranspose on the CPU, lowered to kiln's GEMM.
//
// Conv, per image and group:  Y_g [M/group, out_size] = W_g [M/group, C/group * taps] * cols
// where cols is the im2col matrix of X_g, built in column blocks that stay in cache; on
// several threads the blocks are the parallel jobs. A 1x1 stride-1 unpadded conv is the GEMM
// on X itself; a depthwise conv (one input channel per group) and one over a few input
// channels (conv_direct.h) run direct kernels instead.
//
// ConvTranspose is the adjoint: cols [M/group * taps, in_size] = W_g^T X_g, then col2im adds
// the columns onto the output, which starts as the bias.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mutex>
#include <vector>

#include "backends/cpu/conv_epilogue.h"
#include "backends/cpu/gemm.h"
#include "core/host_memory.h"
#include "opdefs/conv.h"

namespace kiln::cpu {

// A constant W in the forms the GEMM-based paths want, each made by the first run that takes
// its path and then kept (thread-safe). Which path a layer takes depends on its spatial size,
// known only at run time, so nothing is made at load: a layer holds only the forms it uses (a
// Winograd layer holds no GEMM copy, a large map neither).
class PackedConvWeights {
 public:
  // W_g^T [C/group * taps, M/group] per group, packed as the GEMM's B operand. Used when the
  // output has few positions (late, small feature maps), where the product
  // Y_g^T = cols^T W_g^T streams the packed weights in order instead of reading long weight
  // rows in place. `w` must be the W these weights stand for, as p describes it.
  const std::vector<PackedB>& gemm_groups(const float* w, const ConvProblem& p) const;
  // W_g [M/group, C/group * taps] per group, packed as the GEMM's A operand: for the general
  // path (1x1 and im2col convs on larger maps), where W_g multiplies the columns.
  const std::vector<PackedA>& gemm_a_groups(const float* w, const ConvProblem& p) const;
  // W transformed for Winograd F(4x4, 3x3) (winograd_transform_weights).
  const float* winograd(const float* w, const ConvProblem& p) const;
  // Bytes held by the forms made so far, for memory accounting and tests.
  size_t size_bytes() const;

 private:
  mutable std::once_flag gemm_once_;
  mutable std::vector<PackedB> groups_;
  mutable std::once_flag gemm_a_once_;
  mutable std::vector<PackedA> a_groups_;
  mutable std::once_flag winograd_once_;
  mutable HostArray<float> winograd_;
  mutable size_t winograd_floats_ = 0;
};
// Whether a conv with `group` groups and this many input channels per group may use
// PackedConvWeights (depthwise convs never do).
bool conv_wants_packed_weights(int64_t group, int64_t channels_per_group);

// y = activation(conv(x, w) + bias + residual) (bias may be null; `epilogue` says the residual
// and the activation, none by default). x: [batch, in_channels, in...], w: [out_channels,
// in_channels / group, kernel...], y and the residual: [batch, out_channels, out...]. `packed`
// (may be null) keeps w's packed forms for the runs of one layer (w must stay the same).
void conv_f32(const ConvProblem& p, const float* x, const float* w, const float* bias, float* y,
              const PackedConvWeights* packed = nullptr, const ConvEpilogue& epilogue = {});

// y = conv_transpose(x, w) + bias. x: [batch, in_channels, out...] (the window positions),
// w: [in_channels, out_channels / group, kernel...], y: [batch, out_channels, in...].
void conv_transpose_f32(const ConvProblem& p, const float* x, const float* w, const float* bias,
                        float* y);

// Per-thread scratch that grows once to the largest size requested and is then reused, so
// that steady-state runs do not allocate. Slots let one call hold several buffers at once.
enum class ConvScratch : int {
  kColumns,
  kInput,
  kWeights,
  kBias,
  kOutput,
  kPlane,
  kTransposed,
  kWinogradInput,
  kWinogradOutput,
  kWinogradPlane,
  kCount
};
float* conv_scratch(ConvScratch slot, size_t floats);

}  // namespace kiln::cpu
