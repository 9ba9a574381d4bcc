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

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (the latter is LogSoftmax over the class
// axis, then the former). Their attributes: how the per-sample losses are reduced, and the
// target value whose samples weigh nothing. The Vulkan shader takes LossReduction as its
// codes: append only.
enum class LossReduction : uint32_t { None, Sum, Mean };

struct LossAttrs {
  LossReduction reduction = LossReduction::Mean;
  bool has_ignore_index = false;
  int64_t ignore_index = 0;
};

// kiln::Error (naming the node) for a reduction other than "none", "sum" or "mean".
LossAttrs parse_loss_attrs(const NodeInfo& info);

// The input [N, C, d1, ..., dk] seen as [N, C, D] with D = d1 * ... * dk: sample s = n * D + d
// reads class c at (n * C + c) * D + d.
struct LossGeometry {
  int64_t batch = 0, classes = 0, spatial = 1;
  int64_t samples() const { return batch * spatial; }
};

// The geometry of input shape `x` with target shape `target` ([N, d1, ..., dk]) and the
// weight's shape (nullptr when absent; [C]); nullopt with `error` set when they do not fit.
std::optional<LossGeometry> loss_geometry(const Shape& x, const Shape& target, const Shape* weight,
                                          std::string& error);

}  // namespace kiln
