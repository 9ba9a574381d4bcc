#include "opdefs/trilu.h"

#include <algorithm>
#include <string>

#include "core/element_storage.h"
#include "opdefs/node_info.h"

namespace kiln {

TriluAttrs parse_trilu_attrs(const NodeInfo& info) {
  return TriluAttrs{.upper = info.attr_int("upper", 1) != 0};
}

TriluPlan resolve_trilu(const NodeInputs& inputs) {
  const Shape& shape = inputs.input(0).shape();
  if (shape.size() < 2) inputs.fail("input must have rank >= 2, got " + shape.to_string());
  TriluPlan p;
  p.rows = shape[shape.size() - 2];
  p.cols = shape[shape.size() - 1];
  if (inputs.has_input(1)) {
    const Tensor& k = inputs.input(1);
    if (k.element_count() != 1) inputs.fail("k must be a scalar, got " + k.shape().to_string());
    Shape v;
    if (!copy_int_list(k, v)) {
      inputs.fail("k must be int32 or int64, got " + std::string(dtype_name(k.dtype())));
    }
    p.k = std::clamp<int64_t>(v[0], -p.rows - 1, p.cols + 1);
  }
  return p;
}

}  // namespace kiln
