// MaxUnpool (opsets 9, 11, 22): the partial inverse of MaxPool. Each value of X goes to the
// output position its index (as MaxPool's Indices output gives it: flat over the whole output
// tensor) names; every other output element is zero. The attributes and shapes are the
// definition's (opdefs/max_unpool.h).
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/op_registry.h"
#include "opdefs/broadcast.h"
#include "opdefs/max_unpool.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

CpuKernel make_max_unpool(const NodeInfo& info) {
  const MaxUnpoolAttrs a = parse_max_unpool_attrs(info);
  return [a](OpContext& ctx) {
    const MaxUnpoolShapes s = resolve_max_unpool(NodeInputs{ctx.node(), ctx.inputs()}, a);
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Shape& unpooled = s.unpooled;
    Tensor& y = ctx.allocate_output(0, x.dtype(), s.output);
    const int64_t total = unpooled.element_count();
    const size_t element = dtype_size(x.dtype());
    auto* out = static_cast<std::byte*>(y.mutable_raw_data());
    if (y.element_count() > 0) std::memset(out, 0, y.byte_size());
    const auto* in = static_cast<const std::byte*>(x.raw_data());
    const int64_t* idx = indices.data<int64_t>();
    const Shape out_strides = strides_of(s.output);
    const bool same = s.output == unpooled;
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
