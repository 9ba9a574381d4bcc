// ONNX Runtime's QLinearConcat (com.microsoft): int8 or uint8 tensors, each with its own
// per-tensor scale and zero point, joined along `axis` in Y's quantization.
//
//   inputs: Y_scale, Y_zero_point, then (X_i, X_i_scale, X_i_zero_point) for each input
//
// An input quantized as Y is copied; any other is requantized through a 256-entry table
// (build_qlinear_table with the identity), as ONNX Runtime does.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/concat.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

CpuKernel make_qlinear_concat(const NodeInfo& info) {
  if (!info.has_attr("axis")) info.fail("the axis attribute is required");
  const int64_t axis_attr = info.attr_int("axis", 0);
  return [axis_attr](OpContext& ctx) {
    const size_t n_in = ctx.num_inputs();
    if (n_in < 5 || (n_in - 2) % 3 != 0) {
      ctx.fail("takes Y_scale, Y_zero_point and (X, X_scale, X_zero_point) for each input, got " +
               std::to_string(n_in) + " inputs");
    }
    if (!ctx.has_input(1)) ctx.fail("Y_zero_point is required");
    const DataType t = ctx.input(1).dtype();
    if (t != DataType::Int8 && t != DataType::UInt8) {
      ctx.fail("Y_zero_point must be int8 or uint8, got " + std::string(dtype_name(t)));
    }
    const QuantScalar qy = quant_scalar(ctx, 0, 1, t, "Y");
    const size_t count = (n_in - 2) / 3;
    std::vector<Shape> shapes;
    std::vector<std::array<uint8_t, 256>> tables(count);
    std::vector<bool> copy(count);
    for (size_t i = 0; i < count; ++i) {
      const size_t xi = 2 + 3 * i;
      if (!ctx.has_input(xi)) ctx.fail("input " + std::to_string(xi) + " is required");
      const Tensor& x = ctx.input(xi);
      if (x.dtype() != t) {
        ctx.fail("input " + std::to_string(xi) + " is " + std::string(dtype_name(x.dtype())) +
                 ", Y is " + std::string(dtype_name(t)));
      }
      const std::string name = "X" + std::to_string(i);
      const QuantScalar qx = quant_scalar(ctx, xi + 1, xi + 2, t, name.c_str());
      copy[i] = qx.scale == qy.scale && qx.zero_point == qy.zero_point;
      if (!copy[i])
        build_qlinear_table(
            t, qx, qy, [](float*) {}, tables[i].data());
      shapes.push_back(x.shape());
    }
    Shape out;
    try {
      out = concat_output_shape(shapes, axis_attr, ctx.node().op_type);
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
    Tensor& y = ctx.allocate_output(0, t, out);
    if (y.element_count() == 0) return;
    const int64_t rank = static_cast<int64_t>(out.size());
    const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= out[d];
    const int64_t out_row = out[axis] * inner;
    auto* py = static_cast<uint8_t*>(y.mutable_raw_data());
    int64_t offset = 0;  // of input i's block within an output row
    for (size_t i = 0; i < count; ++i) {
      const Tensor& x = ctx.input(2 + 3 * i);
      const auto* px = static_cast<const uint8_t*>(x.raw_data());
      const int64_t row = shapes[i][axis] * inner;
      const uint8_t* table = tables[i].data();
      const bool same = copy[i];
      parallel_for(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row)),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t o = begin; o < end; ++o) {
                       const uint8_t* src = px + o * row;
                       uint8_t* dst = py + o * out_row + offset;
                       if (same) {
                         std::memcpy(dst, src, static_cast<size_t>(row));
                       } else {
                         for (int64_t k = 0; k < row; ++k) dst[k] = table[src[k]];
                       }
                     }
                   });
      offset += row;
    }
  };
}

}  // namespace

KILN_CPU_OPS(qlinear_concat);
void register_qlinear_concat_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "QLinearConcat", make_qlinear_concat);
}

}  // namespace kiln
