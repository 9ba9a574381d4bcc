// What Constant and Range produce, worked out once for the CPU kernels and the GPU backends.
#pragma once

#include <cstdint>
#include <optional>

#include "kiln/tensor.h"

namespace kiln {

class NodeInfo;

// Constant's value: whichever of its value attributes it has (exactly one). kiln::Error naming
// the node when it has none or several, or a sparse one.
Tensor parse_constant_value(const NodeInfo& info);

// The length of a Range of floats, ceil((limit - start) / delta) and at least 0; nullopt when the
// range is unbounded (a zero delta, or a bound that is not finite).
std::optional<int64_t> float_range_count(double start, double limit, double delta);

}  // namespace kiln
