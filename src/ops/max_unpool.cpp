// MaxUnpool (opsets 9, 11, 22): the partial inverse of MaxPool. Each value of X goes to the
// output position its index (as MaxPool's Indices output gives it: flat over the whole output
// tensor) names; every other output element is zero.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/op_utils.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

struct MaxUnpoolAttrs {
  std::vector<int64_t> kernel_shape, pads, strides;
};

// The output shape MaxPool would have been run on: (in - 1) * stride + kernel - pads per axis.
Shape default_output_shape(const OpContext& ctx, const MaxUnpoolAttrs& a, const Shape& xs) {
  const size_t r = xs.size() - 2;
  if (a.kernel_shape.size() != r) {
    ctx.fail("kernel_shape has " + std::to_string(a.kernel_shape.size()) + " values but X " +
             xs.to_string() + " has " + std::to_string(r) + " spatial axes");
  }
  if ((!a.strides.empty() && a.strides.size() != r) ||
      (!a.pads.empty() && a.pads.size() != 2 * r)) {
    ctx.fail("strides must have " + std::to_string(r) + " values and pads " +
             std::to_string(2 * r));
  }
  Shape out{xs[0], xs[1]};
  for (size_t d = 0; d < r; ++d) {
    const int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    const int64_t pads = a.pads.empty() ? 0 : a.pads[d] + a.pads[d + r];
    if (stride <= 0 || a.kernel_shape[d] <= 0) {
      ctx.fail("kernel_shape and strides must be positive");
    }
    int64_t size = 0;
    if (__builtin_mul_overflow(xs[2 + d] - 1, stride, &size) ||
        __builtin_add_overflow(size, a.kernel_shape[d] - pads, &size)) {
      ctx.fail("the unpooled size along axis " + std::to_string(d) + " overflows");
    }
    if (size < 0)
      ctx.fail("the pads are larger than the unpooled size along axis " + std::to_string(d));
    out.push_back(size);
  }
  return out;
}

CpuKernel make_max_unpool(const NodeInfo& info) {
  MaxUnpoolAttrs a;
  a.kernel_shape = info.required_ints("kernel_shape");
  a.pads = info.attr_ints("pads");
  a.strides = info.attr_ints("strides");
  // Window sizes past 2^31 are corrupt; bounding them keeps the shape arithmetic exact.
  constexpr int64_t kLimit = int64_t{1} << 31;
  for (const auto* v : {&a.kernel_shape, &a.pads, &a.strides}) {
    for (int64_t e : *v) {
      if (e < 0 || e > kLimit) info.fail("kernel_shape, pads and strides must be in [0, 2^31]");
    }
  }
  return [a](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Shape& xs = x.shape();
    if (xs.size() < 3) ctx.fail("X must have shape (N, C, D1, ...), got " + xs.to_string());
    if (indices.shape() != xs || indices.dtype() != DataType::Int64) {
      ctx.fail("I must be int64 with X's shape " + xs.to_string() + ", got " +
               std::string(dtype_name(indices.dtype())) + indices.shape().to_string());
    }
    if (x.dtype() == DataType::String) ctx.fail("X must be numeric");
    // Indices address the unpooled shape MaxPool saw; a larger output_shape (which recovers
    // sizes the pooling's rounding lost) holds that shape in its leading corner.
    const Shape unpooled = default_output_shape(ctx, a, xs);
    Shape out_shape = unpooled;
    if (ctx.has_input(2)) {
      out_shape = read_index_list(ctx, ctx.input(2), "output_shape");
      bool fits = out_shape.size() == xs.size();
      for (size_t d = 0; fits && d < xs.size(); ++d) fits = out_shape[d] >= unpooled[d];
      if (!fits) {
        ctx.fail("output_shape " + out_shape.to_string() +
                 " must have X's rank and be at least "
                 "the unpooled shape " +
                 unpooled.to_string());
      }
    }
    vision::check_shape_size(ctx, out_shape, "output_shape");
    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    const int64_t total = unpooled.element_count();
    const size_t element = dtype_size(x.dtype());
    auto* out = static_cast<std::byte*>(y.mutable_raw_data());
    if (y.element_count() > 0) std::memset(out, 0, y.byte_size());
    const auto* in = static_cast<const std::byte*>(x.raw_data());
    const int64_t* idx = indices.data<int64_t>();
    const Shape out_strides = strides_of(out_shape);
    const bool same = out_shape == unpooled;
    for (int64_t i = 0; i < x.element_count(); ++i) {
      if (idx[i] < 0 || idx[i] >= total) {
        ctx.fail("index " + std::to_string(idx[i]) + " is outside the unpooled shape " +
                 unpooled.to_string());
      }
      int64_t target = idx[i];
      if (!same) {  // the same coordinates in the larger output
        int64_t rest = idx[i];
        target = 0;
        for (size_t d = unpooled.size(); d-- > 0;) {
          target += (rest % unpooled[d]) * out_strides[d];
          rest /= unpooled[d];
        }
      }
      std::memcpy(out + target * element, in + i * element, element);
    }
  };
}

}  // namespace

KILN_CPU_OPS(max_unpool);
void register_max_unpool_ops(OpRegistry& registry) { registry.add("MaxUnpool", make_max_unpool); }

}  // namespace kiln
