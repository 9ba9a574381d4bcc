// BitShift's direction attribute, parsed once for the CPU kernel and the GPU backends.
#pragma once

namespace kiln {

class NodeInfo;

// Whether the node shifts left ("LEFT") rather than right ("RIGHT"); kiln::Error naming the node
// for any other direction.
bool parse_bit_shift_left(const NodeInfo& info);

}  // namespace kiln
