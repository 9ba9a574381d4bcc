// Scan's layout: how its inputs and its body's outputs split into states and scanned values,
// and the axes and directions of each, shared by the CPU kernel and shape inference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

class NodeInfo;

struct ScanLayout {
  bool batched = false;    // Scan-8: a batch axis first, and a sequence_lens input first
  size_t first_value = 0;  // the node's first state input (1 for Scan-8)
  size_t states = 0, scan_inputs = 0, scan_outputs = 0;
  std::vector<int64_t> input_axes, input_reversed, output_axes, output_reversed;
};

// For a body of `body_inputs` inputs and `body_outputs` outputs; info.fail for a node the op
// rejects.
ScanLayout parse_scan_layout(const NodeInfo& info, size_t body_inputs, size_t body_outputs);

}  // namespace kiln
