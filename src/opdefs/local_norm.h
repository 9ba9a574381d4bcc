// LRN and MeanVarianceNormalization, defined once for the CPU kernel and the GPU backends: LRN's
// attributes and channel window, MeanVarianceNormalization's axes and epsilon.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kiln {

class NodeInfo;
namespace ir {
struct Node;
}

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the window
// around channel c being [c - before, c + after].
struct LrnAttrs {
  int64_t size = 1;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
  int64_t before = 0, after = 0;  // floor((size - 1) / 2) and ceil((size - 1) / 2)
};

// kiln::Error naming the node for a missing or non-positive size.
LrnAttrs parse_lrn_attrs(const NodeInfo& info);

// MeanVarianceNormalization: y = (x - mean) / (std + kMvnEpsilon) over `axes` (the function
// body's constant, added to the standard deviation, not to the variance).
constexpr double kMvnEpsilon = 1e-9;
constexpr int64_t kMvnMaxRank = 14;  // the reduced axes travel as a bit mask

// The `axes` attribute, {0, 2, 3} by default.
std::vector<int64_t> parse_mvn_axes(const NodeInfo& info);

// The reduced dimensions of an input of `rank` as a bit mask (bit d: dimension d is reduced);
// kiln::Error naming the node for an axis out of range or a rank above kMvnMaxRank.
uint32_t resolve_mvn_axes(const ir::Node& node, std::span<const int64_t> axes, int64_t rank);

}  // namespace kiln
