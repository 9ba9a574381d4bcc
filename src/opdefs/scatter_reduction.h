// How ScatterElements, Scatter and ScatterND combine an update with the element it lands on,
// parsed once for the CPU kernel and the GPU backends.
#pragma once

#include <cstdint>

namespace kiln {

class NodeInfo;

// The Vulkan shader takes these values as its codes: append only.
enum class ScatterReduction : uint32_t { None, Add, Mul, Max, Min };

// The node's reduction: its attribute for ScatterElements from opset 16 and ScatterND from
// opset 16, none for Scatter (deprecated) and older opsets. kiln::Error (naming the node) for an
// unknown one.
ScatterReduction parse_scatter_reduction(const NodeInfo& info);

const char* scatter_reduction_name(ScatterReduction r);

}  // namespace kiln
