// kiln's own ops, emitted by the Gradient expansion (passes/expand_gradient.cpp).
//
// kiln::SumToShape(G, shape) sums G over the axes along which a tensor of `shape` (1-D int64)
// was broadcast to G's shape, giving a tensor of `shape`: the gradient of a broadcasting op
// with respect to its smaller input. Standard ReduceSum cannot do this before opset 13 (its
// axes are an attribute, while here they are known only at run time), so the Gradient
// expansion uses this op at every opset.
#pragma once

namespace kiln {

inline constexpr const char* kKilnDomain = "kiln";
inline constexpr const char* kSumToShapeOp = "SumToShape";

}  // namespace kiln
