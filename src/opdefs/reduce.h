// The Reduce family and ArgMax / ArgMin: one definition for the CPU kernel, shape inference and
// both GPU backends.
//
// Which axes a Reduce op reduces comes from the `axes` attribute up to opset 12 (ReduceSum) or
// 17 (the others) and from the optional second input after that; no axes means every axis,
// unless noop_with_empty_axes is set, in which case nothing is reduced — each element is then
// "reduced" on its own, so ReduceSumSquare still squares and ReduceL1 still takes |x|, as the
// ONNX reference does.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/graph.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The Vulkan shader takes these values as its op codes: append only.
enum class ReduceOp : uint32_t {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp,
  ArgMax,
  ArgMin,
};

// "ReduceSum" -> ReduceOp::Sum, ..., "ArgMin" -> ReduceOp::ArgMin; nullopt for other ops.
std::optional<ReduceOp> reduce_op_named(const std::string& op_type);
const char* op_type_of(ReduceOp op);
// The opset from which a Reduce op takes its axes as an input.
int reduce_axes_input_opset(ReduceOp op);

struct ReduceAttrs {
  ReduceOp op = ReduceOp::Sum;
  bool axes_from_input = false;  // else `axes` below
  std::vector<int64_t> axes;     // the attribute (older opsets); ArgMax/ArgMin: {axis}
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  bool select_last_index = false;  // ArgMax / ArgMin
};

// kiln::Error naming the node for attributes the op does not take at its opset.
ReduceAttrs parse_reduce_attrs(const NodeInfo& info, ReduceOp op);

// A reduction resolved against an input shape: which axes are reduced, and the output shape.
// Both inline for the usual ranks, so a steady-state run resolves without allocating.
struct ReducePlan {
  Shape reduced;  // per input axis: 1 when reduced, 0 when kept
  Shape out;
  bool reduces_any() const;
  // The mask as the GPU kernels' layout planners take it.
  std::vector<bool> reduced_axes() const {
    return std::vector<bool>(reduced.begin(), reduced.end());
  }
};

// `axes_input` holds the axes input's values when that input is given; otherwise the attribute's
// axes apply. kiln::Error naming `node` for an axis out of range, or an ArgMax / ArgMin of a
// scalar.
ReducePlan resolve_reduce(const ReduceAttrs& attrs, const Shape& x,
                          std::optional<std::span<const int64_t>> axes_input, const ir::Node& node);

}  // namespace kiln
