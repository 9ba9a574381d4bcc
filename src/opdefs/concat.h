// Concat and Split's one definition: their attributes and a run's output shapes, shared by the
// kernels of every backend and by shape inference, so that all of them accept the same inputs
// with the same messages.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/function_ref.h"
#include "ir/graph.h"
#include "kiln/shape.h"
#include "kiln/tensor.h"

namespace kiln {

class InferenceContext;
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

// Concat's output dims at load time, for Concat and QLinearConcat's shape rules: inputs `first`,
// `first + step`, ... joined along the node's 'axis'. A fixed size of any input pins a symbolic
// one; nullopt when a rank or the axis is unknown.
std::optional<std::vector<Dim>> concatenated_dims(const InferenceContext& ctx, size_t first,
                                                  size_t step);

struct SplitAttrs {
  int64_t axis = 0;
  // The part sizes come from the 'split' attribute before opset 13 (or, in Split-1, optionally
  // from a second input) and from the 'split' input since; Split-18 adds num_outputs for
  // near-equal parts. Without any of them the parts are equal.
  bool split_from_input = false;
  bool has_split_attr = false;
  Shape split_attr;
  bool has_num_outputs = false;
};

SplitAttrs parse_split_attrs(const NodeInfo& info);

// The part sizes along the axis (returned in *axis, counted from the front) when splitting `in`
// into `outputs` parts; `split_input` is the 'split' input's values when it is given. kiln::Error
// naming `node` for a scalar, an axis out of range, or sizes that do not add up.
Shape resolve_split(const SplitAttrs& attrs, const Shape& in, int64_t outputs,
                    const Shape* split_input, const ir::Node& node, int64_t* axis);

// resolve_split for a kernel that holds the 'split' input as a host tensor (null when the node
// has none): the GPU backends, which read its values on the host.
Shape resolve_split_from_host(const SplitAttrs& attrs, const Shape& in, int64_t outputs,
                              const Tensor* split_input, const ir::Node& node, int64_t* axis);

}  // namespace kiln
