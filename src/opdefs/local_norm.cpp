#include "opdefs/local_norm.h"

#include <string>

#include "opdefs/node_info.h"
#include "opdefs/node_inputs.h"

namespace kiln {

LrnAttrs parse_lrn_attrs(const NodeInfo& info) {
  LrnAttrs a;
  a.size = info.required_int("size");
  if (a.size <= 0) info.fail("size must be positive, got " + std::to_string(a.size));
  a.alpha = info.attr_float("alpha", 1e-4f);
  a.beta = info.attr_float("beta", 0.75f);
  a.bias = info.attr_float("bias", 1.0f);
  a.before = (a.size - 1) / 2;
  a.after = a.size - 1 - a.before;
  return a;
}

std::vector<int64_t> parse_mvn_axes(const NodeInfo& info) {
  return info.attr_ints("axes", {0, 2, 3});
}

uint32_t resolve_mvn_axes(const ir::Node& node, std::span<const int64_t> axes, int64_t rank) {
  if (rank > kMvnMaxRank) {
    fail_at(node, "inputs of rank above " + std::to_string(kMvnMaxRank) + " are not supported");
  }
  uint32_t reduced = 0;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      fail_at(node, "axis " + std::to_string(a) + " is out of range for input rank " +
                        std::to_string(rank));
    }
    reduced |= 1u << (a < 0 ? a + rank : a);
  }
  return reduced;
}

}  // namespace kiln
