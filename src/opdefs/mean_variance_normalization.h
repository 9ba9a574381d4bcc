// MeanVarianceNormalization's axes, shared by the CPU kernel and the GPU ones: which of the
// input's axes one mean and variance run over (ONNX's default: 0, 2 and 3).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace kiln {

class NodeInfo;

// The CPU kernel keeps the reduced axes as a bit mask, so ranks above this are rejected.
inline constexpr int64_t kMvnMaxRank = 14;

struct MvnAttrs {
  std::vector<int64_t> axes;  // as given (negative from the back)
};

MvnAttrs parse_mvn_attrs(const NodeInfo& info);

// The reduced axes of an input of rank `rank` as a bit mask (bit d: axis d); kiln::Error naming
// `node` for a rank above kMvnMaxRank or an axis out of range.
uint32_t mvn_reduced_axes(const ir::Node& node, const MvnAttrs& attrs, int64_t rank);

}  // namespace kiln
