// Col2Im (opset 18): the inverse of im2col. Each column of the input holds one sliding block's
// values; they are added back into the image at the block's position, so pixels that several
// blocks cover receive the sum. Any number of spatial axes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

struct Col2ImAttrs {
  std::vector<int64_t> dilations, pads, strides;  // empty: the defaults (1, 0, 1)
};

// The geometry of one run, per spatial axis.
struct Col2ImGeometry {
  Shape image, block, dilation, pad_begin, stride, positions;  // positions: blocks along axis
  int64_t block_size = 1, image_size = 1, columns = 1;
};

Col2ImGeometry resolve_geometry(const OpContext& ctx, const Col2ImAttrs& a, const Shape& image,
                                const Shape& block) {
  const size_t r = image.size();
  if (r == 0 || block.size() != r) {
    ctx.fail("image_shape and block_shape must have the same non-zero length, got " +
             image.to_string() + " and " + block.to_string());
  }
  auto per_axis = [&](const std::vector<int64_t>& v, size_t count, const char* name) {
    if (!v.empty() && v.size() != count) {
      ctx.fail(std::string(name) + " must have " + std::to_string(count) + " values, got " +
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
      ctx.fail("dilations and strides must be positive and pads not negative");
    }
    if (image[d] <= 0 || block[d] <= 0) {
      ctx.fail("image_shape and block_shape must be positive, got " + image.to_string() + " and " +
               block.to_string());
    }
    // Sizes past 2^30 are corrupt input, and would overflow the arithmetic below.
    constexpr int64_t kLimit = int64_t{1} << 30;
    if (image[d] > kLimit || block[d] > kLimit || dil > kLimit || pb > kLimit || pe > kLimit) {
      ctx.fail("image_shape, block_shape, dilations or pads too large");
    }
    const int64_t extent = dil * (block[d] - 1) + 1;
    const int64_t room = image[d] + pb + pe;
    if (room < extent) {
      ctx.fail("block of extent " + std::to_string(extent) + " does not fit the padded image (" +
               std::to_string(room) + ") along axis " + std::to_string(d));
    }
    g.dilation.push_back(dil);
    g.stride.push_back(stride);
    g.pad_begin.push_back(pb);
    g.positions.push_back((room - extent) / stride + 1);
    if (__builtin_mul_overflow(g.block_size, block[d], &g.block_size) ||
        __builtin_mul_overflow(g.image_size, image[d], &g.image_size) ||
        __builtin_mul_overflow(g.columns, g.positions.back(), &g.columns)) {
      ctx.fail("image_shape and block_shape describe more than 2^63 elements");
    }
  }
  return g;
}

// Adds one (batch, channel)'s columns, [block_size, columns], into its image plane.
template <class Acc, class T>
void fold_plane(const Col2ImGeometry& g, const T* cols, Acc* image) {
  const size_t r = g.image.size();
  Shape b, s;
  b.resize(r, 0);
  s.resize(r, 0);
  for (int64_t k = 0; k < g.block_size; ++k) {
    const T* row = cols + k * g.columns;
    for (size_t d = 0; d < r; ++d) s[d] = 0;
    for (int64_t l = 0; l < g.columns; ++l) {
      int64_t offset = 0;
      bool inside = true;
      for (size_t d = 0; d < r; ++d) {
        const int64_t p = s[d] * g.stride[d] - g.pad_begin[d] + b[d] * g.dilation[d];
        if (p < 0 || p >= g.image[d]) {
          inside = false;
          break;
        }
        offset = offset * g.image[d] + p;
      }
      if (inside) {
        if constexpr (std::is_same_v<Acc, double>) {
          image[offset] += vision::load(row[l]);
        } else {
          image[offset] += static_cast<Acc>(row[l]);
        }
      }
      for (size_t d = r; d-- > 0;) {  // next sliding position
        if (++s[d] < g.positions[d]) break;
        s[d] = 0;
      }
    }
    for (size_t d = r; d-- > 0;) {  // next offset inside the block
      if (++b[d] < g.block[d]) break;
      b[d] = 0;
    }
  }
}

CpuKernel make_col2im(const NodeInfo& info) {
  Col2ImAttrs a;
  a.dilations = info.attr_ints("dilations");
  a.pads = info.attr_ints("pads");
  a.strides = info.attr_ints("strides");
  return [a](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape image = read_index_list(ctx, ctx.input(1), "image_shape");
    const Shape block = read_index_list(ctx, ctx.input(2), "block_shape");
    const Col2ImGeometry g = resolve_geometry(ctx, a, image, block);
    const Shape& xs = x.shape();
    if (xs.size() != 3 || xs[1] % g.block_size != 0 || xs[2] != g.columns) {
      ctx.fail("input must have shape (N, C * " + std::to_string(g.block_size) + ", " +
               std::to_string(g.columns) + ") for these image and block shapes, got " +
               xs.to_string());
    }
    const int64_t planes = xs[0] * (xs[1] / g.block_size);
    Shape out_shape{xs[0], xs[1] / g.block_size};
    for (int64_t d : image) out_shape.push_back(d);
    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T> || is_plain_int_v<T>) {
        // Floats add up in double; integers wrap around in 64 bits, as numpy's do.
        using Acc = std::conditional_t<is_float_like_v<T>, double, uint64_t>;
        const T* xd = x.data<T>();
        T* yd = y.mutable_data<T>();
        parallel_for(planes, 1, [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(static_cast<size_t>(g.image_size));
          for (int64_t p = begin; p < end; ++p) {
            std::fill(acc.begin(), acc.end(), Acc{});
            fold_plane(g, xd + p * g.block_size * g.columns, acc.data());
            T* out = yd + p * g.image_size;
            for (int64_t i = 0; i < g.image_size; ++i) {
              if constexpr (is_float_like_v<T>) {
                out[i] = vision::store<T>(acc[i]);
              } else {
                out[i] = static_cast<T>(acc[i]);
              }
            }
          }
        });
      } else {
        ctx.fail("element type " + std::string(dtype_name(x.dtype())) + " is not supported");
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(col2im);
void register_col2im_ops(OpRegistry& registry) { registry.add("Col2Im", make_col2im); }

}  // namespace kiln
