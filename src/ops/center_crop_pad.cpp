// CenterCropPad (opset 18): crops or zero-pads the chosen axes to the requested sizes, keeping
// the content centred, as its definition (opdefs/center_crop_pad.h) resolves them.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cpu/strided_copy.h"
#include "kernels/op_registry.h"
#include "opdefs/center_crop_pad.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

CpuKernel make_center_crop_pad(const NodeInfo& info) {
  const CenterCropPadAttrs attrs = parse_center_crop_pad_attrs(info);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const CenterCropPadPlan plan =
        resolve_center_crop_pad(NodeInputs{ctx.node(), ctx.inputs()}, attrs);
    const Shape& in = x.shape();
    const Shape& out = plan.out;
    const size_t rank = in.size();

    Shape region = in;           // the part of the input that survives
    Shape src_start, dst_start;  // where that part starts in the input and in the output
    src_start.resize(rank, 0);
    dst_start.resize(rank, 0);
    bool padded = false;
    for (size_t a = 0; a < rank; ++a) {
      const int64_t begin = plan.pads[a];
      region[a] = std::min(out[a], in[a]);
      if (begin < 0) src_start[a] = -begin;
      if (begin > 0) dst_start[a] = begin;
      if (out[a] > in[a]) padded = true;
    }

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
