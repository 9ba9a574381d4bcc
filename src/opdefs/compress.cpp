#include "opdefs/compress.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {

CompressAttrs parse_compress_attrs(const NodeInfo& info) {
  return CompressAttrs{info.has_attr("axis"), info.attr_int("axis", 0)};
}

CompressSelection resolve_compress(const NodeInputs& inputs, const CompressAttrs& attrs) {
  const Tensor& x = inputs.input(0);
  const Tensor& condition = inputs.input(1);
  if (condition.dtype() != DataType::Bool || condition.rank() != 1) {
    inputs.fail("condition must be a 1-D bool tensor, got " +
                std::string(dtype_name(condition.dtype())) + condition.shape().to_string());
  }
  CompressSelection s;
  // Without an axis the input is flattened first.
  s.source = attrs.has_axis ? x.shape() : Shape{x.element_count()};
  const auto rank = static_cast<int64_t>(s.source.size());
  const int64_t axis = attrs.has_axis ? attrs.axis : 0;
  if (axis < -rank || axis >= rank) {
    inputs.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  s.axis = axis < 0 ? axis + rank : axis;
  const int64_t extent = s.source[static_cast<size_t>(s.axis)];
  const bool* keep = condition.data<bool>();
  for (int64_t i = 0; i < condition.element_count(); ++i) {
    if (!keep[i]) continue;
    if (i >= extent) {
      inputs.fail("condition selects index " + std::to_string(i) + " beyond the axis of size " +
                  std::to_string(extent));
    }
    s.picked.push_back(i);
  }
  s.out = s.source;
  s.out[static_cast<size_t>(s.axis)] = static_cast<int64_t>(s.picked.size());
  return s;
}

}  // namespace kiln
