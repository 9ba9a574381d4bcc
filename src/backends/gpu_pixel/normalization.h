// Float32 normalization ops on texture tensors (inference): BatchNormalization,
// InstanceNormalization, GroupNormalization, LayerNormalization (with its Mean and InvStdDev
// outputs), RMSNormalization and LpNormalization.
//
//   Normalization norm(context);
//   norm.record_batch_norm({batch, channels, spatial}, x, scale, bias, mean, var, epsilon, y);
//   norm.record_layer_norm(rows, row_len, x, scale, &bias, epsilon, y);
//
// BatchNormalization is one draw from its per-channel inputs. The others take two: a stats draw
// writes each line's (mean, 1 / sqrt(var + epsilon)), for RMSNormalization (0, 1 / sqrt(mean of
// squares + epsilon)), or for LpNormalization (1 / norm, 0), into
// a small texture, one fragment per two lines, and an apply draw normalizes every element from
// its line's stats (and LayerNormalization's statistics outputs are copied from them). Variance is
// the mean of squared deviations from the mean (two passes over the line), so large offsets do not
// cancel.
#pragma once

#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

// NCHW with the spatial dimensions flattened.
struct ChannelShape {
  int64_t batch = 1;
  int64_t channels = 1;
  int64_t spatial = 1;
};

class Normalization {
 public:
  explicit Normalization(Context& context) : context_(context) {}

  // Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c], the four parameters
  // holding one value per channel.
  void record_batch_norm(const ChannelShape& shape, const TextureTensor& x,
                         const TextureTensor& scale, const TextureTensor& bias,
                         const TextureTensor& mean, const TextureTensor& var, float epsilon,
                         TextureTensor& y) const;

  // Each (n, c) plane normalized over its spatial elements, then scale[c] and bias[c].
  void record_instance_norm(const ChannelShape& shape, const TextureTensor& x,
                            const TextureTensor& scale, const TextureTensor& bias, float epsilon,
                            TextureTensor& y) const;

  // Each (n, group) block of channels / groups planes normalized together, then scale and
  // bias: one value per channel (opset 21), or per group when `per_group_params` (opset 18).
  void record_group_norm(const ChannelShape& shape, int64_t groups, bool per_group_params,
                         const TextureTensor& x, const TextureTensor& scale,
                         const TextureTensor& bias, float epsilon, TextureTensor& y) const;

  // Each of `rows` rows of `row_len` elements normalized, then scale[i] and bias[i] (bias may be
  // nullptr) along the row: the host expands broadcast scale and bias to row_len elements. Each
  // row's mean and 1 / sqrt(variance + epsilon) also go to `mean` and `inv_std_dev` (rows
  // elements each) where they are not nullptr.
  void record_layer_norm(int64_t rows, int64_t row_len, const TextureTensor& x,
                         const TextureTensor& scale, const TextureTensor* bias, float epsilon,
                         TextureTensor& y, TextureTensor* mean = nullptr,
                         TextureTensor* inv_std_dev = nullptr) const;

  // Each of `rows` rows of `row_len` elements divided by its root mean square (with epsilon),
  // then times scale[i] along the row (the host expands a broadcast scale to row_len elements).
  void record_rms_norm(int64_t rows, int64_t row_len, const TextureTensor& x,
                       const TextureTensor& scale, float epsilon, TextureTensor& y) const;

  // Y = X / ||line||_p along the middle axis of (outer, axis_len, inner), p 1 or 2; an all-zero
  // line stays zero.
  void record_lp_norm(int64_t outer, int64_t axis_len, int64_t inner, int p, const TextureTensor& x,
                      TextureTensor& y) const;

 private:
  // Each line of `shape` normalized; parameter k of an element e is (e / param_stride) %
  // param_count. scale == nullptr selects the Lp norm (exponent lp_p); `rms` the root mean
  // square in place of the moments.
  struct LineNorm {
    const char* op;
    FoldedShape shape;
    const TextureTensor* scale;
    const TextureTensor* bias;
    int64_t param_stride, param_count;
    float epsilon;
    int lp_p;
    bool rms = false;
    // Where the lines' stats (elements 0 and 1 of each line's pair) are wanted as outputs.
    TextureTensor* stats_out[2] = {nullptr, nullptr};
  };
  void record_lines(const LineNorm& n, const TextureTensor& x, TextureTensor& y) const;

  Context& context_;
};

}  // namespace kiln::gpu_pixel
