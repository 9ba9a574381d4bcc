// Softmax, LogSoftmax and Hardmax: one definition for the CPU kernel and both GPU backends.
//
// Two semantics, chosen by opset: before opset 13 the input is flattened to 2-D at `axis`
// (default 1) and the op works on each row of the flattened view; from opset 13 it works along
// the single dimension `axis` (default -1). Both are the same computation over a tensor viewed
// as [outer, n, inner] lines; the old semantics is inner == 1 with n spanning the trailing
// dimensions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/graph.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The Vulkan shader takes these values as its op codes: append only.
enum class SoftmaxOp : uint32_t {
  Softmax,
  LogSoftmax,
  Hardmax,  // 1 at the line's first maximum, 0 elsewhere
};

std::optional<SoftmaxOp> softmax_op_named(const std::string& op_type);
const char* op_type_of(SoftmaxOp op);

struct SoftmaxAttrs {
  SoftmaxOp op = SoftmaxOp::Softmax;
  int64_t axis = -1;
  bool flatten = false;  // before opset 13
};

SoftmaxAttrs parse_softmax_attrs(const NodeInfo& info, SoftmaxOp op);

// The input seen as `outer` x `n` x `inner`, the op working along n.
struct SoftmaxLines {
  int64_t outer = 1, n = 1, inner = 1;
};

// kiln::Error naming `node` for an axis out of range (before opset 13, axis == rank is allowed:
// it flattens to [N, 1]).
SoftmaxLines resolve_softmax(const SoftmaxAttrs& attrs, const Shape& x, const ir::Node& node);

}  // namespace kiln
