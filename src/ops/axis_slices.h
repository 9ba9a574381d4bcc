// Cutting a tensor into slices along an axis and stacking slices back: what Loop's and Scan's
// scan outputs, Scan's scan inputs and the sequence ops need.
#pragma once

#include <vector>

#include "kiln/tensor.h"

namespace kiln {

// Element `index` along `axis` of `t`, with that axis removed (a new host tensor).
Tensor take_slice(const Tensor& t, int64_t axis, int64_t index);

// The slices (all of one dtype and shape) stacked along a new axis `axis` of the result.
// `element_shape` and `dtype` describe the slices when there are none.
Tensor stack_slices(const std::vector<Tensor>& slices, int64_t axis, DataType dtype,
                    const Shape& element_shape, const std::string& where);

// Elements [begin, begin + length) along `axis` of `t`, keeping the axis (a new host tensor).
Tensor take_range(const Tensor& t, int64_t axis, int64_t begin, int64_t length);

// The parts joined along the existing axis `axis`; every other dimension must agree.
Tensor concat_tensors(const std::vector<Tensor>& parts, int64_t axis, const std::string& where);

}  // namespace kiln
