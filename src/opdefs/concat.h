// Concat's one definition: the axis attribute and the output shape of a run, shared by the CPU
// kernel and both GPU backends so that every backend accepts the same inputs with the same
// messages.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/function_ref.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// Concat-1 had a default axis (1); it is required from opset 4.
int64_t parse_concat_axis(const NodeInfo& info);

// The shape of concatenating `count` inputs, input i of shape `shape_of(i)`, along `axis`
// (negative counts from the back): kiln::Error prefixed with `where()` for no inputs, scalars,
// an axis out of range, or inputs that differ in rank or outside the axis. Allocation-free
// unless it fails.
Shape concat_output_shape(size_t count, FunctionRef<const Shape&(size_t)> shape_of, int64_t axis,
                          FunctionRef<std::string()> where);

inline Shape concat_output_shape(std::span<const Shape> shapes, int64_t axis,
                                 const std::string& where) {
  return concat_output_shape(
      shapes.size(), [&](size_t i) -> const Shape& { return shapes[i]; }, axis,
      [&] { return where; });
}

}  // namespace kiln
