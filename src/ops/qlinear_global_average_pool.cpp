// ONNX Runtime's QLinearGlobalAveragePool (com.microsoft): the mean over the spatial axes of an
// int8 or uint8 image, requantized.
//
//   inputs: X, x_scale, x_zero_point, y_scale, y_zero_point   (per-tensor parameters)
//   channels_last: 0 for [N, C, spatial...] (output [N, C, 1, ...]), 1 for [N, spatial..., C]
//     (output [N, 1, ..., C])
//
//   y = saturate(rint(float(sum(x) - x_zero_point * size) * (x_scale / (y_scale * size)))
//                + y_zero_point)
//
// with the exact int32 sum and the float32 multiplier ONNX Runtime uses.
#include <algorithm>
#include <string>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

template <class T>
void pool(const T* x, T* y, int64_t images, int64_t channels, int64_t size, bool channels_last,
          const QuantScalar& qx, const QuantScalar& qy) {
  const float multiplier = qx.scale / (qy.scale * static_cast<float>(size));
  const int64_t bias = -static_cast<int64_t>(qx.zero_point) * size;
  const int64_t lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  parallel_for(images * channels, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, size)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t i = begin; i < end; ++i) {
                   const int64_t n = i / channels, c = i % channels;
                   int64_t sum = bias;
                   if (channels_last) {
                     const T* p = x + n * size * channels + c;
                     for (int64_t s = 0; s < size; ++s) sum += p[s * channels];
                   } else {
                     const T* p = x + i * size;
                     for (int64_t s = 0; s < size; ++s) sum += p[s];
                   }
                   const float v = static_cast<float>(sum) * multiplier;
                   y[i] = static_cast<T>(
                       rint_clamped(std::nearbyint(v) + static_cast<float>(qy.zero_point), lo, hi));
                 }
               });
}

CpuKernel make_qlinear_global_average_pool(const NodeInfo& info) {
  const bool channels_last = info.attr_int("channels_last", 0) != 0;
  return [channels_last](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DataType t = x.dtype();
    if (t != DataType::Int8 && t != DataType::UInt8) {
      ctx.fail("X must be int8 or uint8, got " + std::string(dtype_name(t)));
    }
    if (x.rank() < 3) {
      ctx.fail("X must have rank 3 or more (batch, channels and spatial axes), got " +
               x.shape().to_string());
    }
    const QuantScalar qx = quant_scalar(ctx, 1, 2, t, "x");
    const QuantScalar qy = quant_scalar(ctx, 3, 4, t, "y");
    const Shape& xs = x.shape();
    const int64_t images = xs[0];
    const int64_t channels = channels_last ? xs.back() : xs[1];
    Shape out = xs;
    std::fill(out.begin(), out.end(), 1);
    out[0] = images;
    (channels_last ? out.back() : out[1]) = channels;
    const int64_t size = x.element_count() / std::max<int64_t>(1, images * channels);
    Tensor& y = ctx.allocate_output(0, t, out);
    if (y.element_count() == 0) return;
    if (size == 0) ctx.fail("X " + xs.to_string() + " has an empty spatial axis: no mean");
    if (t == DataType::Int8) {
      pool(x.data<int8_t>(), y.mutable_data<int8_t>(), images, channels, size, channels_last, qx,
           qy);
    } else {
      pool(x.data<uint8_t>(), y.mutable_data<uint8_t>(), images, channels, size, channels_last, qx,
           qy);
    }
  };
}

}  // namespace

KILN_CPU_OPS(qlinear_global_average_pool);
void register_qlinear_global_average_pool_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "QLinearGlobalAveragePool", make_qlinear_global_average_pool);
}

}  // namespace kiln
