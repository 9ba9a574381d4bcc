#include "opdefs/top_k.h"

#include <string>

#include "core/element_storage.h"
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

TopKPlan resolve_top_k(const NodeInputs& inputs, const TopKAttrs& attrs) {
  const Shape& x = inputs.input(0).shape();
  const auto rank = static_cast<int64_t>(x.size());
  if (rank == 0) inputs.fail("input must have rank >= 1");
  if (attrs.axis < -rank || attrs.axis >= rank) {
    inputs.fail("axis " + std::to_string(attrs.axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  TopKPlan p;
  p.axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  p.k = attrs.k;
  if (attrs.k_is_input) {
    const Tensor& k = inputs.input(1);
    if (k.element_count() != 1 || k.rank() > 1) {
      inputs.fail("K must be a 1-D tensor with one value, got shape " + k.shape().to_string());
    }
    Shape v;
    if (!copy_int_list(k, v)) {
      inputs.fail("K must be int32 or int64, got " + std::string(dtype_name(k.dtype())));
    }
    p.k = v[0];
  }
  const int64_t extent = x[static_cast<size_t>(p.axis)];
  if (p.k < 0 || p.k > extent) {
    inputs.fail("k = " + std::to_string(p.k) + " is out of range for axis " +
                std::to_string(p.axis) + " of size " + std::to_string(extent));
  }
  return p;
}

}  // namespace kiln
