#include "opdefs/scatter_reduction.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {

ScatterReduction parse_scatter_reduction(const NodeInfo& info) {
  const bool has_reduction =
      (info.op_type() == "ScatterElements" || info.op_type() == "ScatterND") && info.opset() >= 16;
  if (!has_reduction) return ScatterReduction::None;
  const std::string r = info.attr_string("reduction", "none");
  if (r == "none") return ScatterReduction::None;
  if (r == "add") return ScatterReduction::Add;
  if (r == "mul") return ScatterReduction::Mul;
  if (r == "max") return ScatterReduction::Max;
  if (r == "min") return ScatterReduction::Min;
  info.fail("unknown reduction '" + r + "' (expected none, add, mul, max or min)");
}

const char* scatter_reduction_name(ScatterReduction r) {
  switch (r) {
    case ScatterReduction::None:
      return "none";
    case ScatterReduction::Add:
      return "add";
    case ScatterReduction::Mul:
      return "mul";
    case ScatterReduction::Max:
      return "max";
    case ScatterReduction::Min:
      return "min";
  }
  return "?";
}

}  // namespace kiln
