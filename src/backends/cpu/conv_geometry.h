// The resolved geometry of a sliding window over an N-D image, as the CPU kernels see it:
// output position o and kernel tap k along axis d read image position
//   o * stride[d] + k * dilation[d] - pad[d]
// which is padding (zero, or skipped) when it falls outside [0, in[d]).
#pragma once

#include <cstdint>

#include "kiln/shape.h"

namespace kiln::cpu {

struct ConvGeometry {
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

}  // namespace kiln::cpu
