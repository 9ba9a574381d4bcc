// The data-movement ops as strided reads: Transpose, Slice, Expand, DepthToSpace and
// SpaceToDepth each produce a contiguous row-major output whose every element is one element of
// the input, found through per-dimension strides. Shared by the GPU backends, so that both plan
// the same regions and reject the same attributes with the same messages.
//
//   const StridedRegion r = plan_transpose(Shape{2, 3, 4}, perm);
//   // for every index i of r.shape, in row-major order:
//   //   out[i] = in[r.in_offset + sum_k i_k r.in_strides[k]]
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kiln/shape.h"

namespace kiln {

// Input strides may be 0 (broadcast) or negative (reversed).
struct StridedRegion {
  std::vector<int64_t> shape;  // the output's shape
  int64_t in_offset = 0;
  std::vector<int64_t> in_strides;
};

// The regions of ONNX ops on row-major inputs. kiln::Error on bad attributes, naming the op.
// `perm` empty reverses the dimensions.
StridedRegion plan_transpose(const Shape& in_shape, std::span<const int64_t> perm);
// `axes` empty means 0..starts.size()-1 and `steps` empty means all 1; starts and ends clamp.
StridedRegion plan_slice(const Shape& in_shape, std::span<const int64_t> starts,
                         std::span<const int64_t> ends, std::span<const int64_t> axes,
                         std::span<const int64_t> steps);
// Broadcasts `in_shape` with `target` (numpy rules, as ONNX Expand).
StridedRegion plan_expand(const Shape& in_shape, const Shape& target);
// NCHW inputs. DepthToSpace reads the input as [N, b, b, C', H, W] (DCR) or [N, C', b, b, H, W]
// (CRD) in the order [N, C', H, b, W, b]; SpaceToDepth reads [N, C, H/b, b, W/b, b] in the order
// [N, b, b, C, H/b, W/b]. kiln::Error unless the input is 4-D, the block is in [1, 2^20], and the
// channels (DepthToSpace) or height and width (SpaceToDepth) divide by the block.
StridedRegion plan_depth_to_space(const Shape& in_shape, int64_t block, bool crd);
StridedRegion plan_space_to_depth(const Shape& in_shape, int64_t block);

}  // namespace kiln
