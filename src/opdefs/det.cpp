#include "opdefs/det.h"

#include "opdefs/node_inputs.h"

namespace kiln {

int64_t resolve_det_order(const ir::Node& node, const Shape& shape) {
  const size_t rank = shape.size();
  if (rank < 2 || shape[rank - 1] != shape[rank - 2]) {
    fail_at(node, "input must have shape [*, M, M], got " + shape.to_string());
  }
  return shape[rank - 1];
}

Shape det_output_shape(const Shape& shape) {
  return shape.size() < 2 ? Shape{} : Shape(shape.begin(), shape.end() - 2);
}

}  // namespace kiln
