#include "opdefs/max_unpool.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {
namespace {

// The unpooled shape for X of shape `xs` (rank >= 3).
Shape unpooled_shape(const NodeInputs& in, const MaxUnpoolAttrs& a, const Shape& xs) {
  const size_t r = xs.size() - 2;
  if (a.kernel_shape.size() != r) {
    in.fail("kernel_shape has " + std::to_string(a.kernel_shape.size()) + " values but X " +
            xs.to_string() + " has " + std::to_string(r) + " spatial axes");
  }
  if ((!a.strides.empty() && a.strides.size() != r) ||
      (!a.pads.empty() && a.pads.size() != 2 * r)) {
    in.fail("strides must have " + std::to_string(r) + " values and pads " + std::to_string(2 * r));
  }
  Shape out{xs[0], xs[1]};
  for (size_t d = 0; d < r; ++d) {
    const int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    const int64_t pads = a.pads.empty() ? 0 : a.pads[d] + a.pads[d + r];
    if (stride <= 0 || a.kernel_shape[d] <= 0) in.fail("kernel_shape and strides must be positive");
    int64_t size = 0;
    if (__builtin_mul_overflow(xs[2 + d] - 1, stride, &size) ||
        __builtin_add_overflow(size, a.kernel_shape[d] - pads, &size)) {
      in.fail("the unpooled size along axis " + std::to_string(d) + " overflows");
    }
    if (size < 0)
      in.fail("the pads are larger than the unpooled size along axis " + std::to_string(d));
    out.push_back(size);
  }
  return out;
}

// output_shape's values: an int32 or int64 tensor of rank 0 or 1.
Shape output_shape_values(const NodeInputs& in, const Tensor& t) {
  if (t.rank() > 1)
    in.fail("output_shape must be a 1-D tensor, got shape " + t.shape().to_string());
  Shape out;
  if (t.dtype() == DataType::Int64) {
    for (int64_t i = 0; i < t.element_count(); ++i) out.push_back(t.data<int64_t>()[i]);
  } else if (t.dtype() == DataType::Int32) {
    for (int64_t i = 0; i < t.element_count(); ++i) out.push_back(t.data<int32_t>()[i]);
  } else {
    in.fail("output_shape must be int32 or int64, got " + std::string(dtype_name(t.dtype())));
  }
  return out;
}

}  // namespace

MaxUnpoolAttrs parse_max_unpool_attrs(const NodeInfo& info) {
  MaxUnpoolAttrs a;
  a.kernel_shape = info.required_ints("kernel_shape");
  a.pads = info.attr_ints("pads");
  a.strides = info.attr_ints("strides");
  constexpr int64_t kLimit = int64_t{1} << 31;
  for (const auto* v : {&a.kernel_shape, &a.pads, &a.strides}) {
    for (int64_t e : *v) {
      if (e < 0 || e > kLimit) info.fail("kernel_shape, pads and strides must be in [0, 2^31]");
    }
  }
  return a;
}

MaxUnpoolShapes resolve_max_unpool(const NodeInputs& in, const MaxUnpoolAttrs& a) {
  const Tensor& x = in.input(0);
  const Tensor& indices = in.input(1);
  const Shape& xs = x.shape();
  if (xs.size() < 3) in.fail("X must have shape (N, C, D1, ...), got " + xs.to_string());
  if (indices.shape() != xs || indices.dtype() != DataType::Int64) {
    in.fail("I must be int64 with X's shape " + xs.to_string() + ", got " +
            std::string(dtype_name(indices.dtype())) + indices.shape().to_string());
  }
  if (x.dtype() == DataType::String) in.fail("X must be numeric");
  MaxUnpoolShapes s;
  s.unpooled = unpooled_shape(in, a, xs);
  s.output = s.unpooled;
  if (in.has_input(2)) {
    s.output = output_shape_values(in, in.inputs[2]);
    bool fits = s.output.size() == xs.size();
    for (size_t d = 0; fits && d < xs.size(); ++d) fits = s.output[d] >= s.unpooled[d];
    if (!fits) {
      in.fail("output_shape " + s.output.to_string() +
              " must have X's rank and be at least the unpooled shape " + s.unpooled.to_string());
    }
  }
  int64_t count = 1;
  for (int64_t d : s.output) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) {
      in.fail("output_shape " + s.output.to_string() + " is not a valid tensor shape");
    }
  }
  return s;
}

}  // namespace kiln
