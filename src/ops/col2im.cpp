// Col2Im (opset 18): the inverse of im2col. Each column of the input holds one sliding block's
// values; they are added back into the image at the block's position, so pixels that several
// blocks cover receive the sum. Any number of spatial axes, with the geometry its definition
// (opdefs/col2im.h) resolves.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/col2im.h"
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

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
  const Col2ImAttrs a = parse_col2im_attrs(info);
  return [a](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Col2ImGeometry g = resolve_col2im(NodeInputs{ctx.node(), ctx.inputs()}, a);
    const int64_t planes = g.planes;
    Tensor& y = ctx.allocate_output(0, x.dtype(), g.out_shape);
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
