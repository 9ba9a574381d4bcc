// Sliding windows, the one definition shared by Conv, ConvTranspose, ConvInteger, the pooling
// ops, shape inference and every backend: parsing of kernel_shape / strides / dilations / pads /
// auto_pad / ceil_mode, the output size along an axis, and the geometry a kernel walks.
//
// With auto_pad SAME_UPPER / SAME_LOWER the output size is ceil(in / stride), as the ONNX spec
// says, whatever ceil_mode and dilations are; ONNX Runtime departs from the spec there for
// pooling (it applies ceil_mode and dilations to SAME as well), and kiln keeps the spec's size.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The resolved geometry of a sliding window over an N-D image: output position o and kernel
// tap k along axis d read image position
//   o * stride[d] + k * dilation[d] - pad[d]
// which is padding (zero, or skipped) when it falls outside [0, in[d]).
struct WindowGeometry {
  Shape in;      // image spatial dims
  Shape out;     // window positions per axis (the conv output / column spatial dims)
  Shape kernel;  // taps per axis
  Shape stride;
  Shape dilation;
  Shape pad;  // begin pads; may be negative for ConvTranspose with a larger output_shape

  size_t rank() const { return in.size(); }
  int64_t in_size() const { return in.element_count(); }
  int64_t out_size() const { return out.element_count(); }
  int64_t kernel_size() const { return kernel.element_count(); }

  // Whether every coordinate a window walk computes along each axis (o * stride - pad +
  // k * dilation for o < out and k < kernel, and the image extended by its pads, `pad_end` too
  // where given) fits in 32-bit signed integers, as GPU shaders compute them.
  bool coordinates_fit_int32(const Shape& pad_end = {}) const {
    // Each value within 32 bits first, so that the sums and products below cannot overflow.
    const auto magnitude = [](int64_t v) -> __int128 {
      return v < -INT32_MAX || v > INT32_MAX ? __int128{1} << 40 : (v < 0 ? -v : v);
    };
    for (size_t d = 0; d < rank(); ++d) {
      __int128 reach = magnitude(in[d]) + magnitude(pad[d]) +
                       magnitude(out[d]) * magnitude(stride[d]) +
                       magnitude(kernel[d]) * magnitude(dilation[d]);
      if (d < pad_end.size()) reach += magnitude(pad_end[d]);
      if (reach > INT32_MAX) return false;
    }
    return true;
  }
};

// MaxPool, AveragePool and LpPool (and their Global forms). The Vulkan shader takes these values
// as its op codes: append only.
enum class PoolOp : uint32_t { Max, Average, Lp };

// A pooling window resolved against an input: what every backend's pooling kernel walks.
struct PoolShape {
  WindowGeometry geometry;  // image = input plane, windows = output plane
  Shape pad_end;            // end pads (AveragePool with count_include_pad counts them)
  int64_t planes = 0;       // N * C
};

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

// The number of window positions along one axis with explicit pads (auto_pad NOTSET or VALID);
// nullopt when the window is larger than the padded input. With ceil_mode a last window that
// would start inside the end padding is dropped.
std::optional<int64_t> window_output_size(int64_t in, int64_t kernel, int64_t stride,
                                          int64_t dilation, int64_t pad_begin, int64_t pad_end,
                                          bool ceil_mode);

// Resolves the window of a forward (Conv / pool) op over `in` spatial dims with `kernel`
// spatial dims. Sets geometry.in/out/kernel/stride/dilation/pad and returns the end pads.
// Errors (wrong attribute lengths, non-positive values, a window larger than the padded
// input) are kiln::Errors naming `node`.
WindowGeometry resolve_window(const WindowAttrs& attrs, const Shape& in, const Shape& kernel,
                              const ir::Node& node, Shape* end_pads = nullptr);

// Checks that an optional per-axis attribute has `rank` entries (or is empty) and that all
// entries are positive; returns it, or `rank` copies of `fallback` when empty.
Shape per_axis(const std::vector<int64_t>& values, size_t rank, int64_t fallback, const char* name,
               const ir::Node& node);

}  // namespace kiln
