#include "opdefs/mean_variance_normalization.h"

#include <string>

#include "opdefs/node_info.h"
#include "opdefs/node_inputs.h"

namespace kiln {

MvnAttrs parse_mvn_attrs(const NodeInfo& info) { return {info.attr_ints("axes", {0, 2, 3})}; }

uint32_t mvn_reduced_axes(const ir::Node& node, const MvnAttrs& attrs, int64_t rank) {
  if (rank > kMvnMaxRank) fail_at(node, "inputs of rank above 14 are not supported");
  uint32_t reduced = 0;
  for (int64_t a : attrs.axes) {
    if (a < -rank || a >= rank) {
      fail_at(node, "axis " + std::to_string(a) + " is out of range for input rank " +
                        std::to_string(rank));
    }
    reduced |= 1u << (a < 0 ? a + rank : a);
  }
  return reduced;
}

}  // namespace kiln
