// CenterCropPad (opset 18): crops or zero-pads the chosen axes to the requested sizes, keeping
// the content centred. When the difference is odd, the extra element is cropped from (or padded
// at) the end.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/strided_copy.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/op_utils.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

CpuKernel make_center_crop_pad(const NodeInfo& info) {
  const std::vector<int64_t> axes_attr = info.attr_ints("axes");
  const bool has_axes = info.has_attr("axes");
  return [axes_attr, has_axes](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape sizes = read_index_list(ctx, ctx.input(1), "shape");
    const Shape& in = x.shape();
    const auto rank = static_cast<int64_t>(in.size());

    Shape axes;
    if (has_axes) {
      for (int64_t a : axes_attr) axes.push_back(checked_axis(ctx, a, rank, "axis"));
    } else {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    if (sizes.size() != axes.size()) {
      ctx.fail("shape has " + std::to_string(sizes.size()) + " values but there are " +
               std::to_string(axes.size()) + " axes");
    }

    Shape out = in;
    Shape region = in;           // the part of the input that survives
    Shape src_start, dst_start;  // where that part starts in the input and in the output
    src_start.resize(in.size(), 0);
    dst_start.resize(in.size(), 0);
    std::vector<bool> seen(in.size(), false);
    bool padded = false;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i], want = sizes[i], have = in[a];
      if (seen[a]) ctx.fail("axis " + std::to_string(a) + " is repeated in axes");
      seen[a] = true;
      if (want < 0) ctx.fail("shape values must not be negative, got " + std::to_string(want));
      out[a] = want;
      region[a] = std::min(want, have);
      if (want < have) src_start[a] = (have - want) / 2;
      if (want > have) {
        dst_start[a] = (want - have) / 2;
        padded = true;
      }
    }

    vision::check_shape_size(ctx, out, "the output shape");
    Tensor& y = ctx.allocate_output(0, x.dtype(), out);
    if (y.element_count() == 0) return;
    // Strings come out as empty strings already; every other type pads with zero bytes.
    if (padded && x.dtype() != DataType::String)
      std::memset(y.mutable_raw_data(), 0, y.byte_size());
    if (region.element_count() == 0) return;
    const Shape in_strides = strides_of(in), out_strides = strides_of(out);
    int64_t src_offset = 0, dst_offset = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      src_offset += src_start[d] * in_strides[d];
      dst_offset += dst_start[d] * out_strides[d];
    }
    const size_t element = dtype_size(x.dtype());
    cpu::strided_copy(
        x.dtype(), region, static_cast<std::byte*>(y.mutable_raw_data()) + dst_offset * element,
        out_strides, static_cast<const std::byte*>(x.raw_data()) + src_offset * element,
        in_strides);
  };
}

}  // namespace

KILN_CPU_OPS(center_crop_pad);
void register_center_crop_pad_ops(OpRegistry& registry) {
  registry.add("CenterCropPad", make_center_crop_pad);
}

}  // namespace kiln
