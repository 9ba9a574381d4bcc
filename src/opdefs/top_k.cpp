#include "opdefs/top_k.h"

#include "opdefs/node_info.h"

namespace kiln {

TopKAttrs parse_top_k_attrs(const NodeInfo& info) {
  TopKAttrs a;
  a.axis = info.attr_int("axis", -1);
  a.largest = info.attr_int("largest", 1) != 0;
  a.sorted = info.attr_int("sorted", 1) != 0;
  a.k_is_input = info.opset() >= 10;
  if (!a.k_is_input) a.k = info.required_int("k");
  return a;
}

}  // namespace kiln
