// Shape (ai.onnx): which dimensions of its input it returns. Opset 15 added `start` and `end`
// (negative counts from the back; out of range is clamped, not an error). Shared by the shape
// rule and every backend's kernel.
#pragma once

#include <cstdint>

namespace kiln {

class NodeInfo;

struct ShapeSliceAttrs {
  int64_t start = 0;
  bool has_end = false;
  int64_t end = 0;
};
ShapeSliceAttrs parse_shape_slice_attrs(const NodeInfo& info);

// The dimensions [begin, end) of an input of rank `rank` that Shape returns (begin <= end).
struct ShapeSlice {
  int64_t begin = 0, end = 0;
};
ShapeSlice resolve_shape_slice(const ShapeSliceAttrs& a, int64_t rank);

}  // namespace kiln
