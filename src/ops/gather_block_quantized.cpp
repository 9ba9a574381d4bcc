// GatherBlockQuantized (com.microsoft): gathers rows of a block-quantized table (an embedding)
// and dequantizes them, (q - zero point) * scale, into the scales' float type.
// opdefs/block_quantized.h has the layout, the checks and the output shape.
#include <string>

#include "core/dtype_dispatch.h"
#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/block_quantized.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

template <class T>
void gather_rows(const GatherBlockQuantizedAttrs& a, const GatherBlockQuantizedProblem& p,
                 const Tensor& data, const Shape& rows, const Tensor& scales,
                 const Tensor* zero_points, T* out) {
  const int64_t per = a.per_byte(), bits = a.bits;
  const unsigned mask = (1u << bits) - 1;
  const uint8_t* q = data.data<uint8_t>();
  const T* s = scales.data<T>();
  const uint8_t* zp = zero_points ? zero_points->data<uint8_t>() : nullptr;
  const float default_zp = static_cast<float>(a.default_zero_point());
  const int64_t lines = static_cast<int64_t>(rows.size()) * p.inner;
  parallel_for(
      lines, std::max<int64_t>(1, 4096 / std::max<int64_t>(p.cols, 1)),
      [&](int64_t begin, int64_t end) {
        for (int64_t l = begin; l < end; ++l) {
          // Line l of the output is line `inner` of the gathered row.
          const int64_t line = rows[l / p.inner] * p.inner + l % p.inner;
          const uint8_t* in = q + line * p.packed_cols;
          const T* scale = s + line * p.blocks;
          const uint8_t* zrow = zp ? zp + line * p.zp_row_bytes : nullptr;
          T* o = out + l * p.cols;
          for (int64_t c = 0; c < p.cols; ++c) {
            const int64_t b = c / a.block_size;
            const unsigned v = (in[c / per] >> ((c % per) * bits)) & mask;
            const float z = zrow ? static_cast<float>((zrow[b / per] >> ((b % per) * bits)) & mask)
                                 : default_zp;
            o[c] = static_cast<T>((static_cast<float>(v) - z) * static_cast<float>(scale[b]));
          }
        }
      });
}

CpuKernel make_gather_block_quantized(const NodeInfo& info) {
  const GatherBlockQuantizedAttrs attrs = parse_gather_block_quantized_attrs(info);
  if (info.num_inputs() < 3) info.fail("expects at least the inputs data, indices and scales");
  return [attrs](OpContext& ctx) {
    const Tensor &data = ctx.input(0), &indices = ctx.input(1), &scales = ctx.input(2);
    const Tensor* zero_points = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const GatherBlockQuantizedProblem p = resolve_gather_block_quantized(
        ctx.node(), attrs, data, indices.shape(), scales, zero_points);
    Shape rows;
    if (!copy_int_list(indices, rows)) {
      ctx.fail("indices must be int32 or int64, got " + indices.to_string(0));
    }
    for (auto& r : rows) {
      if (r < -p.rows || r >= p.rows) {
        ctx.fail("index " + std::to_string(r) + " is out of range for " + std::to_string(p.rows) +
                 " rows");
      }
      if (r < 0) r += p.rows;
    }
    Tensor& y = ctx.allocate_output(0, scales.dtype(), p.output);
    if (y.element_count() == 0) return;
    if (scales.dtype() == DataType::Float32) {
      gather_rows<float>(attrs, p, data, rows, scales, zero_points, y.mutable_data<float>());
    } else {
      gather_rows<Float16>(attrs, p, data, rows, scales, zero_points, y.mutable_data<Float16>());
    }
  };
}

}  // namespace

KILN_CPU_OPS(gather_block_quantized);
void register_gather_block_quantized_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "GatherBlockQuantized", make_gather_block_quantized);
}

}  // namespace kiln
