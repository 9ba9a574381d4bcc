// Host side of shaders/normalization.comp: float32 normalizations along lines of a tensor
// viewed as [outer, n, inner], a workgroup per line — LayerNormalization, RMSNormalization,
// InstanceNormalization, GroupNormalization, MeanVarianceNormalization (statistics computed),
// LpNormalization, and
// inference BatchNormalization (statistics given). Lines up to kNormSerialLine elements go
// one per invocation.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"

namespace kiln::gpu_compute {

constexpr int64_t kNormSerialLine = 16;

// The shader's modes; the order is part of the shader interface.
// Mvn is Moments with epsilon added to the standard deviation rather than to the variance.
enum class NormMode : uint32_t { Moments, Lp, Given, Rms, Mvn };

// Mirrors the shader's push-constant block.
struct NormPushConstants {
  uint32_t mode = 0, lines = 0, n = 0, inner = 1;
  // The parameter index of a line's element k: (line % mod) * mul + k / div.
  uint32_t channel_mod = 1, channel_mul = 0, channel_div = 1;
  uint32_t has_scale = 0, has_bias = 0, p = 2, write_stats = 0, serial = 0;
  float epsilon = 0;
};
static_assert(sizeof(NormPushConstants) <= kMaxPushConstantBytes);

// What to normalize: the [outer, n, inner] view and how parameters are indexed.
struct NormProblem {
  NormMode mode = NormMode::Moments;
  int64_t outer = 1, n = 1, inner = 1;
  int64_t channel_mod = 1, channel_mul = 0, channel_div = 1;
  float epsilon = 0;
  uint32_t p = 2;  // Lp's norm
};

class Normalization {
 public:
  explicit Normalization(Device& device);

  // y = the normalization of x. `scale`, `bias` (either may be null: 1 and 0) and, in Given
  // mode, `mean` and `var` are per-parameter vectors indexed as the problem says. In Moments
  // mode `mean_out` and `inv_std_out` (both or neither) receive each line's statistics.
  // Records nothing for an empty tensor; kiln::Error past 32-bit indexing.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const NormProblem& problem,
              const Buffer& x, const Buffer* scale, const Buffer* bias, const Buffer* mean,
              const Buffer* var, const Buffer& y, const Buffer* mean_out = nullptr,
              const Buffer* inv_std_out = nullptr) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
