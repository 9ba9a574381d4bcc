// Det, defined once for the CPU kernel and the GPU backends: the input is a stack of square
// matrices [*, M, M], the output one determinant per matrix, [*].
#pragma once

#include <cstdint>

#include "kiln/shape.h"

namespace kiln {

namespace ir {
struct Node;
}

// M, the matrices' order; kiln::Error naming the node unless `shape` is [*, M, M].
int64_t resolve_det_order(const ir::Node& node, const Shape& shape);

// The output shape: `shape` without its last two dimensions.
Shape det_output_shape(const Shape& shape);

}  // namespace kiln
