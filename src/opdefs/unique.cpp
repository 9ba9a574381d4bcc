#include "opdefs/unique.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {

UniqueAttrs parse_unique_attrs(const NodeInfo& info) {
  return UniqueAttrs{info.has_attr("axis"), info.attr_int("axis", 0),
                     info.attr_int("sorted", 1) != 0};
}

UniqueLayout resolve_unique(const NodeInputs& inputs, const UniqueAttrs& attrs) {
  const Tensor& x = inputs.input(0);
  if (x.dtype() == DataType::Complex64 || x.dtype() == DataType::Complex128)
    inputs.fail("complex tensors have no order for Unique");
  UniqueLayout l;
  // Without an axis the input is flattened and its elements are the slices.
  l.source = attrs.has_axis ? x.shape() : Shape{x.element_count()};
  const auto rank = static_cast<int64_t>(l.source.size());
  if (attrs.axis < -rank || attrs.axis >= rank) {
    inputs.fail("axis " + std::to_string(attrs.axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  l.axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  for (int64_t d = 0; d < l.axis; ++d) l.outer *= l.source[static_cast<size_t>(d)];
  l.extent = l.source[static_cast<size_t>(l.axis)];
  for (int64_t d = l.axis + 1; d < rank; ++d) l.inner *= l.source[static_cast<size_t>(d)];
  return l;
}

}  // namespace kiln
