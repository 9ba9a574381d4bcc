// Which axes a Reduce node reduces, for the fusions that turn op-by-op spellings of
// normalizations and Softmax into one node: those kernels work over the trailing axes only.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"

namespace kiln::passes {

// The rank of `value` when its value info gives one.
std::optional<int64_t> known_rank(const ir::Graph& graph, const std::string& value);

// k when `reduce` (a Reduce* node at ai.onnx `opset`, with one output) keeps its dims
// (keepdims = 1) and reduces exactly the last k >= 1 axes of its input, whose rank is `rank`
// (nullopt: unknown, then only negative axes can be told trailing); nullopt otherwise. The axes
// are the attribute before the op's axes-input opset and a constant input from it; no axes
// means every axis (unless noop_with_empty_axes).
std::optional<int64_t> trailing_reduction(const ir::Graph& graph, const ir::Node& reduce, int opset,
                                          std::optional<int64_t> rank);

}  // namespace kiln::passes
