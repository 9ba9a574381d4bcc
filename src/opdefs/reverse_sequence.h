// ReverseSequence's one definition: the axes attributes, the input checks and the copies that
// make the output, shared by the CPU kernel (ops/selection.cpp) and the GPU kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"
#include "opdefs/strided_copy.h"

namespace kiln {
class NodeInfo;
}

namespace kiln::reverse_sequence {

struct Axes {
  int64_t batch = 1, time = 0;  // 0 and 1 in some order
};

Axes parse_axes(const NodeInfo& info);

// Checks the input (rank >= 2) and sequence_lens (shape [batch], int32 or int64 host values in
// [0, steps]) and returns the lengths, one per batch entry: its first `length` steps are
// reversed, the rest kept. kiln::Error naming the node otherwise.
std::vector<int64_t> resolve_lengths(const NodeInputs& ctx, const Axes& axes);

// The same checks, and returns the copies from input to output (both row-major with the input's
// shape): per batch entry, the first sequence_lens[b] steps read backwards, the others straight.
// Copies with no elements are left out.
std::vector<StridedCopy> plan_copies(const NodeInputs& ctx, const Axes& axes);

}  // namespace kiln::reverse_sequence
