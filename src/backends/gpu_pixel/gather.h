// Gather on a texture tensor of any format with indices from host memory: the indices travel as
// a uniform array of at most kGatherMaxIndices entries, and Gathers with more indices stay on
// the CPU (indices a draw made are downloaded first). An int64 tensor goes as its words
// (texel_dtype.h): its shape with a trailing axis of 2, the axis counted before it.
//
//   Gather gather(context);
//   const int64_t idx[] = {2, 0, -1};
//   gather.record(x, {4, 5}, idx, {3}, 0, y);  // y holds 3 x 5
#pragma once

#include <cstdint>
#include <span>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

constexpr int kGatherMaxIndices = 1024;

// True when a Gather with `index_count` indices can run here.
bool gather_supported(int64_t index_count);

// ONNX Gather's output shape: data.shape[:axis] + indices_shape + data.shape[axis+1:].
Shape gather_shape(const Shape& data_shape, const Shape& indices_shape, int64_t axis);

class Gather {
 public:
  explicit Gather(Context& context) : context_(context) {}

  // Draws y = Gather(x, indices, axis). Negative indices count from the end. kiln::Error naming
  // the index when one is out of range, when there are more than kGatherMaxIndices, or when y
  // has the wrong size.
  void record(const TextureTensor& x, const Shape& x_shape, std::span<const int64_t> indices,
              const Shape& indices_shape, int64_t axis, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
