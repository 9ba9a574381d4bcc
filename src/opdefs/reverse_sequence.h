// ReverseSequence's attributes and its resolution per run, shared by the CPU kernel and the GPU
// ones: which of axes 0 and 1 is the batch and which the time, and each batch entry's length
// (sequence_lens, a host value): its first `length` steps are reversed, the rest kept.
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct ReverseSequenceAttrs {
  int64_t batch_axis = 1;
  int64_t time_axis = 0;
};

// kiln::Error (naming the node) unless batch_axis and time_axis are 0 and 1 in some order.
ReverseSequenceAttrs parse_reverse_sequence_attrs(const NodeInfo& info);

// The lengths, one per batch entry, for input 0 and the host-held sequence_lens (input 1);
// kiln::Error naming the node for an input of rank below 2, sequence_lens of another shape or
// dtype than int32 / int64, or a length outside [0, time steps].
std::vector<int64_t> resolve_reverse_sequence(const NodeInputs& inputs,
                                              const ReverseSequenceAttrs& attrs);

}  // namespace kiln
