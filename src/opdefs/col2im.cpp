#include "opdefs/col2im.h"

#include <string>

#include "core/element_storage.h"
#include "opdefs/node_info.h"

namespace kiln {

namespace {

// The values of a 1-D int32 or int64 host tensor; kiln::Error naming `what` otherwise.
Shape index_list(const NodeInputs& inputs, size_t index, const char* what) {
  const Tensor& t = inputs.input(index);
  if (t.rank() > 1) {
    inputs.fail(std::string(what) + " must be a 1-D tensor, got shape " + t.shape().to_string());
  }
  Shape out;
  if (!copy_int_list(t, out)) {
    inputs.fail(std::string(what) + " must be int32 or int64, got " +
                std::string(dtype_name(t.dtype())));
  }
  return out;
}

}  // namespace

Col2ImAttrs parse_col2im_attrs(const NodeInfo& info) {
  Col2ImAttrs a;
  a.dilations = info.attr_ints("dilations");
  a.pads = info.attr_ints("pads");
  a.strides = info.attr_ints("strides");
  return a;
}

Col2ImGeometry resolve_col2im(const NodeInputs& inputs, const Col2ImAttrs& a) {
  const Shape image = index_list(inputs, 1, "image_shape");
  const Shape block = index_list(inputs, 2, "block_shape");
  const size_t r = image.size();
  if (r == 0 || block.size() != r) {
    inputs.fail("image_shape and block_shape must have the same non-zero length, got " +
                image.to_string() + " and " + block.to_string());
  }
  auto per_axis = [&](const std::vector<int64_t>& v, size_t count, const char* name) {
    if (!v.empty() && v.size() != count) {
      inputs.fail(std::string(name) + " must have " + std::to_string(count) + " values, got " +
                  std::to_string(v.size()));
    }
  };
  per_axis(a.dilations, r, "dilations");
  per_axis(a.strides, r, "strides");
  per_axis(a.pads, 2 * r, "pads");
  Col2ImGeometry g;
  g.image = image;
  g.block = block;
  for (size_t d = 0; d < r; ++d) {
    const int64_t dil = a.dilations.empty() ? 1 : a.dilations[d];
    const int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    const int64_t pb = a.pads.empty() ? 0 : a.pads[d];
    const int64_t pe = a.pads.empty() ? 0 : a.pads[d + r];
    if (dil <= 0 || stride <= 0 || pb < 0 || pe < 0) {
      inputs.fail("dilations and strides must be positive and pads not negative");
    }
    if (image[d] <= 0 || block[d] <= 0) {
      inputs.fail("image_shape and block_shape must be positive, got " + image.to_string() +
                  " and " + block.to_string());
    }
    // Sizes past 2^30 are corrupt input, and would overflow the arithmetic below.
    constexpr int64_t kLimit = int64_t{1} << 30;
    if (image[d] > kLimit || block[d] > kLimit || dil > kLimit || pb > kLimit || pe > kLimit) {
      inputs.fail("image_shape, block_shape, dilations or pads too large");
    }
    const int64_t extent = dil * (block[d] - 1) + 1;
    const int64_t room = image[d] + pb + pe;
    if (room < extent) {
      inputs.fail("block of extent " + std::to_string(extent) + " does not fit the padded image (" +
                  std::to_string(room) + ") along axis " + std::to_string(d));
    }
    g.dilation.push_back(dil);
    g.stride.push_back(stride);
    g.pad_begin.push_back(pb);
    g.positions.push_back((room - extent) / stride + 1);
    if (__builtin_mul_overflow(g.block_size, block[d], &g.block_size) ||
        __builtin_mul_overflow(g.image_size, image[d], &g.image_size) ||
        __builtin_mul_overflow(g.columns, g.positions.back(), &g.columns)) {
      inputs.fail("image_shape and block_shape describe more than 2^63 elements");
    }
  }
  const Shape& xs = inputs.input(0).shape();
  if (xs.size() != 3 || xs[1] % g.block_size != 0 || xs[2] != g.columns) {
    inputs.fail("input must have shape (N, C * " + std::to_string(g.block_size) + ", " +
                std::to_string(g.columns) + ") for these image and block shapes, got " +
                xs.to_string());
  }
  g.planes = xs[0] * (xs[1] / g.block_size);
  g.out_shape = Shape{xs[0], xs[1] / g.block_size};
  for (int64_t d : image) g.out_shape.push_back(d);
  return g;
}

}  // namespace kiln
