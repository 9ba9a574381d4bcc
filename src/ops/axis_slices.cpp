#include "ops/axis_slices.h"

#include "backends/cpu/strided_copy.h"
#include "core/tensor_impl.h"
#include "ops/op_utils.h"

namespace kiln {

namespace {

const char* element_at(const Tensor& t, int64_t offset) {
  return static_cast<const char*>(t.raw_data()) +
         offset * static_cast<int64_t>(dtype_size(t.dtype()));
}

}  // namespace

Tensor take_slice(const Tensor& t, int64_t axis, int64_t index) {
  Shape shape = t.shape();
  const Shape strides = strides_of(shape);
  Shape src_strides;
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int64_t>(d) == axis) continue;
    out_shape.push_back(shape[d]);
    src_strides.push_back(strides[d]);
  }
  Tensor out = make_host_tensor(t.dtype(), out_shape);
  if (out.element_count() > 0) {
    cpu::strided_copy_to_contiguous(t.dtype(), out_shape, out.mutable_raw_data(),
                                    element_at(t, index * strides[static_cast<size_t>(axis)]),
                                    src_strides);
  }
  return out;
}

Tensor stack_slices(const std::vector<Tensor>& slices, int64_t axis, DataType dtype,
                    const Shape& element_shape, const std::string& where) {
  const Shape& shape = slices.empty() ? element_shape : slices.front().shape();
  if (!slices.empty()) dtype = slices.front().dtype();
  for (const Tensor& s : slices) {
    if (s.kind() != ValueKind::Tensor || s.dtype() != dtype || s.shape() != shape) {
      throw Error(where + ": slices to stack differ (" + slices.front().to_string(0) + " and " +
                  s.to_string(0) + ")");
    }
  }
  const int64_t rank = static_cast<int64_t>(shape.size()) + 1;
  axis = normalize_axis(axis, rank, where);
  Shape out_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis) {
      out_shape.push_back(static_cast<int64_t>(slices.size()));
    } else {
      out_shape.push_back(shape[static_cast<size_t>(d < axis ? d : d - 1)]);
    }
  }
  Tensor out = make_host_tensor(dtype, out_shape);
  const Shape out_strides = strides_of(out_shape);
  Shape dst_strides;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) dst_strides.push_back(out_strides[static_cast<size_t>(d)]);
  }
  auto* base = static_cast<char*>(out.mutable_raw_data());
  const auto elem = static_cast<int64_t>(dtype_size(dtype));
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices[i].element_count() == 0) continue;
    cpu::strided_copy(
        dtype, shape,
        base + static_cast<int64_t>(i) * out_strides[static_cast<size_t>(axis)] * elem, dst_strides,
        slices[i].raw_data(), strides_of(shape));
  }
  return out;
}

}  // namespace kiln
