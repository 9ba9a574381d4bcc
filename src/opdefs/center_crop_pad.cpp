#include "opdefs/center_crop_pad.h"

#include <string>

#include "core/element_storage.h"
#include "opdefs/node_info.h"

namespace kiln {

CenterCropPadAttrs parse_center_crop_pad_attrs(const NodeInfo& info) {
  CenterCropPadAttrs a;
  a.has_axes = info.has_attr("axes");
  a.axes = info.attr_ints("axes");
  return a;
}

CenterCropPadPlan resolve_center_crop_pad(const NodeInputs& inputs,
                                          const CenterCropPadAttrs& attrs) {
  const Shape& in = inputs.input(0).shape();
  const Tensor& shape = inputs.input(1);
  if (shape.rank() > 1) {
    inputs.fail("shape must be a 1-D tensor, got shape " + shape.shape().to_string());
  }
  Shape sizes;
  if (!copy_int_list(shape, sizes)) {
    inputs.fail("shape must be int32 or int64, got " + std::string(dtype_name(shape.dtype())));
  }
  const auto rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes;
  if (attrs.has_axes) {
    for (int64_t a : attrs.axes) {
      if (a < -rank || a >= rank) {
        inputs.fail("axis " + std::to_string(a) + " is out of range for rank " +
                    std::to_string(rank));
      }
      axes.push_back(a < 0 ? a + rank : a);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (sizes.size() != axes.size()) {
    inputs.fail("shape has " + std::to_string(sizes.size()) + " values but there are " +
                std::to_string(axes.size()) + " axes");
  }
  CenterCropPadPlan plan;
  plan.out = in;
  plan.pads.assign(2 * in.size(), 0);
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    const int64_t want = sizes[i], have = in[a];
    if (seen[a]) inputs.fail("axis " + std::to_string(a) + " is repeated in axes");
    seen[a] = true;
    if (want < 0) inputs.fail("shape values must not be negative, got " + std::to_string(want));
    plan.out[a] = want;
    // Centred: the smaller half of the difference at the start, the rest at the end.
    const int64_t change = want - have;
    const int64_t begin = change >= 0 ? change / 2 : -((-change) / 2);
    plan.pads[a] = begin;
    plan.pads[a + in.size()] = change - begin;
  }
  int64_t count = 1;
  for (int64_t d : plan.out) {
    if (__builtin_mul_overflow(count, d, &count)) {
      inputs.fail("the output shape " + plan.out.to_string() + " is not a valid tensor shape");
    }
  }
  return plan;
}

}  // namespace kiln
