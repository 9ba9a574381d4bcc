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

Tensor take_range(const Tensor& t, int64_t axis, int64_t begin, int64_t length) {
  Shape out_shape = t.shape();
  out_shape[static_cast<size_t>(axis)] = length;
  const Shape strides = strides_of(t.shape());
  Tensor out = make_host_tensor(t.dtype(), out_shape);
  if (out.element_count() > 0) {
    cpu::strided_copy_to_contiguous(t.dtype(), out_shape, out.mutable_raw_data(),
                                    element_at(t, begin * strides[static_cast<size_t>(axis)]),
                                    strides);
  }
  return out;
}

Tensor concat_tensors(const std::vector<Tensor>& parts, int64_t axis, const std::string& where) {
  check(!parts.empty(), where + ": nothing to concatenate");
  const Tensor& first = parts.front();
  axis = normalize_axis(axis, static_cast<int64_t>(first.rank()), where);
  Shape out_shape = first.shape();
  int64_t total = 0;
  for (const Tensor& p : parts) {
    bool same = p.dtype() == first.dtype() && p.rank() == first.rank();
    for (size_t d = 0; same && d < p.rank(); ++d)
      same = static_cast<int64_t>(d) == axis || p.shape()[d] == first.shape()[d];
    if (!same) {
      throw Error(where + ": cannot concatenate " + first.to_string(0) + " and " + p.to_string(0) +
                  " along axis " + std::to_string(axis));
    }
    total += p.shape()[static_cast<size_t>(axis)];
  }
  out_shape[static_cast<size_t>(axis)] = total;
  Tensor out = make_host_tensor(first.dtype(), out_shape);
  const Shape out_strides = strides_of(out_shape);
  auto* base = static_cast<char*>(out.mutable_raw_data());
  const auto elem = static_cast<int64_t>(dtype_size(first.dtype()));
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    if (p.element_count() > 0) {
      cpu::strided_copy(first.dtype(), p.shape(),
                        base + offset * out_strides[static_cast<size_t>(axis)] * elem, out_strides,
                        p.raw_data(), strides_of(p.shape()));
    }
    offset += p.shape()[static_cast<size_t>(axis)];
  }
  return out;
}

}  // namespace kiln
