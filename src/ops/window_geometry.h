// Sliding-window geometry shared by Conv, ConvTranspose and the pooling ops: parsing of
// kernel_shape / strides / dilations / pads / auto_pad / ceil_mode at load time, and resolving
// them against an input shape at run time into the begin pads and output sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/conv_geometry.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;
class OpContext;

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

// The attributes as written on the node. Empty vectors mean "the default for the rank", which
// for Conv is only known once W's shape is (kernel_shape may be absent).
struct WindowAttrs {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // begin pads of every axis, then end pads
  bool ceil_mode = false;
};

WindowAttrs parse_window_attrs(const NodeInfo& info);

// Resolves the window of a forward (Conv / pool) op over `in` spatial dims with `kernel`
// spatial dims. Sets geometry.in/out/kernel/stride/dilation/pad and returns the end pads.
// Errors (wrong attribute lengths, non-positive values, a window larger than the padded
// input) go through ctx.fail.
cpu::ConvGeometry resolve_window(const WindowAttrs& attrs, const Shape& in, const Shape& kernel,
                                 const OpContext& ctx, Shape* end_pads = nullptr);

// Checks that an optional per-axis attribute has `rank` entries (or is empty) and that all
// entries are positive; returns it, or `rank` copies of `fallback` when empty.
Shape per_axis(const std::vector<int64_t>& values, size_t rank, int64_t fallback, const char* name,
               const OpContext& ctx);

}  // namespace kiln
