// Resize and Upsample attributes, and their resolution against the inputs (scales or sizes,
// roi, axes, keep_aspect_ratio_policy) into one cpu::ResizeAxis per dimension: shared by the CPU
// op and the GPU backends, so every backend computes the same output shape and coordinates.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/resize_kernel.h"
#include "kernels/op_context.h"

namespace kiln {

class NodeInfo;

enum class AspectPolicy { Stretch, NotLarger, NotSmaller };

struct ResizeConfig {
  cpu::ResizeOptions options;
  AspectPolicy policy = AspectPolicy::Stretch;
  std::vector<int64_t> axes;  // empty: every axis
  bool is_upsample = false;
  int opset = 0;
  std::vector<float> attr_scales;  // Upsample-7
};

ResizeConfig parse_resize_config(const NodeInfo& info, bool is_upsample);

// Reads scales / sizes / roi from ctx's inputs (host values) for input 0's shape; errors through
// ctx.fail. Each axis's `out` is the output's size along it.
std::vector<cpu::ResizeAxis> resolve_resize(const ResizeConfig& cfg, const OpContext& ctx);

}  // namespace kiln
