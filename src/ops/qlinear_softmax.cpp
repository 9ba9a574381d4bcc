// ONNX Runtime's QLinearSoftmax (com.microsoft): softmax of an int8 or uint8 tensor, requantized,
// computed as ONNX Runtime computes it so that the results agree bit for bit:
//
//   e(x) = float(exp((x - max + shift) * x_scale))     from a 256-entry table, shift chosen so
//                                                      the row's sum stays finite
//   y    = saturate(rint(e(x) * floor(1 / y_scale) / sum_row e) + y_zero_point)
//
// with the row sum accumulated in float32 in order. Note the floor: the output scale is taken as
// 1 / floor(1 / y_scale), exact only for y_scale = 1/256 and the like (ONNX Runtime's choice).
//
//   inputs: X, X_scale, x_zero_point, y_scale, y_zero_point?   (per-tensor parameters;
//           x_zero_point does not change a softmax and is only checked)
//   opset (required): the ONNX Softmax semantics to follow: before 13 the input is seen as
//     [N, D] split at `axis`; from 13 the softmax runs along `axis` alone.
//   axis: default -1 under either opset (the operator's own default, which ONNX Runtime fills in
//     before its opset-dependent fallback could apply).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

// e(x) for x - max = d - 255, d in [0, 255], for rows of `extent` values.
std::vector<float> exp_table(float x_scale, int64_t extent) {
  double shift = std::log(std::numeric_limits<float>::max() / static_cast<float>(extent));
  constexpr double kReserveBits = 5;
  shift = std::max(0.0, shift - kReserveBits) / x_scale;
  std::vector<float> table(256);
  for (int d = 0; d < 256; ++d) {
    table[d] = static_cast<float>(std::exp((d - 255 + shift) * static_cast<double>(x_scale)));
  }
  return table;
}

template <class T>
void softmax_rows(const T* x, T* y, int64_t outer, int64_t extent, int64_t inner,
                  const std::vector<float>& table, float y_multiplier, int32_t y_zero_point) {
  constexpr int64_t lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  parallel_for(outer * inner, std::max<int64_t>(1, 4096 / extent), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t base = (r / inner) * extent * inner + r % inner;
      int32_t max = x[base];
      for (int64_t k = 1; k < extent; ++k) max = std::max<int32_t>(max, x[base + k * inner]);
      auto e = [&](int64_t i) { return table[255 + x[i] - max]; };
      float sum = 0.0f;
      for (int64_t k = 0; k < extent; ++k) sum += e(base + k * inner);
      for (int64_t k = 0; k < extent; ++k) {
        const int64_t i = base + k * inner;
        const float q = std::nearbyint(e(i) * y_multiplier / sum);
        y[i] = static_cast<T>(rint_clamped(q + static_cast<float>(y_zero_point), lo, hi));
      }
    }
  });
}

CpuKernel make_qlinear_softmax(const NodeInfo& info) {
  if (!info.has_attr("opset")) info.fail("the opset attribute is required");
  const int64_t opset = info.attr_int("opset", 13);
  const int64_t axis_attr = info.attr_int("axis", -1);
  return [opset, axis_attr](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DataType t = x.dtype();
    if (t != DataType::Int8 && t != DataType::UInt8) {
      ctx.fail("X must be int8 or uint8, got " + std::string(dtype_name(t)));
    }
    const QuantScalar qx = quant_scalar(ctx, 1, 2, t, "x");
    const QuantScalar qy = quant_scalar(ctx, 3, 4, t, "y");
    const Shape& xs = x.shape();
    const auto rank = static_cast<int64_t>(xs.size());
    if (rank == 0) ctx.fail("X must have rank 1 or more");
    const int64_t axis = checked_axis(ctx, axis_attr, rank, "axis");
    int64_t outer = 1, extent = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= xs[d];
    if (opset < 13) {
      for (int64_t d = axis; d < rank; ++d) extent *= xs[d];
    } else {
      extent = xs[axis];
      for (int64_t d = axis + 1; d < rank; ++d) inner *= xs[d];
    }
    Tensor& y = ctx.allocate_output(0, t, xs);
    if (y.element_count() == 0) return;
    if (!(qx.scale > 0.0f) || !(qy.scale > 0.0f)) ctx.fail("the scales must be positive");
    const std::vector<float> table = exp_table(qx.scale, extent);
    const float y_multiplier = std::floor(1.0f / qy.scale);
    if (t == DataType::Int8) {
      softmax_rows(x.data<int8_t>(), y.mutable_data<int8_t>(), outer, extent, inner, table,
                   y_multiplier, qy.zero_point);
    } else {
      softmax_rows(x.data<uint8_t>(), y.mutable_data<uint8_t>(), outer, extent, inner, table,
                   y_multiplier, qy.zero_point);
    }
  };
}

}  // namespace

KILN_CPU_OPS(qlinear_softmax);
void register_qlinear_softmax_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "QLinearSoftmax", make_qlinear_softmax);
}

}  // namespace kiln
