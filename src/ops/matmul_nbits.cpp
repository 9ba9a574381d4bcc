// MatMulNBits (com.microsoft): A times a block-quantized weight (opdefs/block_quantized.h has
// the layout and the checks). When B, its scales and zero points are initializers (as they are
// in the models ONNX Runtime's quantization tools write):
//   - 4-bit weights without g_idx: a product of at most kGemvRows rows of A (a decode step) reads
//     the packed weight directly (backends/cpu/int4_gemv.h), 4 bits a weight; larger products
//     use the dequantized weight below, made by the first run that needs it;
//   - otherwise the weight is dequantized to float32 and packed for kiln's GEMM once, at load.
// Weights that are not constants are dequantized on every run. The dequantized weight takes
// 32 / bits times the memory of the quantized one, and every accuracy_level computes in float32
// (the level only allows lower precision).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/int4_gemv.h"
#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/block_quantized.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

// W [N, K] = (q - zero point) * scale, row by row.
void dequantize(const NBitsAttrs& a, const NBitsInputs& in, float* w) {
  const int64_t K = a.K, blocks = a.k_blocks(), per = a.per_byte(), bits = a.bits;
  const unsigned mask = (1u << bits) - 1;
  const uint8_t* b = in.b->data<uint8_t>();
  const float* scales = in.scales->data<float>();
  const bool packed_zp = in.zero_points && in.zero_points->dtype() == DataType::UInt8;
  const uint8_t* zp_bytes = packed_zp ? in.zero_points->data<uint8_t>() : nullptr;
  const float* zp_floats = in.zero_points && !packed_zp ? in.zero_points->data<float>() : nullptr;
  const int32_t* g_idx = in.g_idx ? in.g_idx->data<int32_t>() : nullptr;
  const int64_t zp_row = a.zero_point_row_bytes();
  const float default_zp = static_cast<float>(a.default_zero_point());
  parallel_for(a.N, std::max<int64_t>(1, 16384 / K), [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const uint8_t* row = b + n * blocks * a.blob_size();
      for (int64_t k = 0; k < K; ++k) {
        const int64_t block = g_idx ? g_idx[k] : k / a.block_size;
        const unsigned q = (row[k / per] >> ((k % per) * bits)) & mask;
        float zp = default_zp;
        if (zp_bytes) {
          zp = static_cast<float>((zp_bytes[n * zp_row + block / per] >> ((block % per) * bits)) &
                                  mask);
        } else if (zp_floats) {
          zp = zp_floats[n * blocks + block];
        }
        w[n * K + k] = (static_cast<float>(q) - zp) * scales[n * blocks + block];
      }
    }
  });
}

// Up to this many rows of A, a 4-bit product reads the packed weight (int4_gemv).
constexpr int64_t kGemvRows = 4;

// The 4-bit weight as int4_gemv reads it: B's bytes as given, the scales, and each block's zero
// point times its scale.
std::shared_ptr<const cpu::Int4Weights> int4_weights(const NBitsAttrs& a, const NBitsInputs& in) {
  auto w = std::make_shared<cpu::Int4Weights>();
  w->N = a.N;
  w->K = a.K;
  w->block_size = a.block_size;
  w->blocks = a.k_blocks();
  const uint8_t* b = in.b->data<uint8_t>();
  w->packed.assign(b, b + a.N * w->blocks * a.blob_size());
  const float* scales = in.scales->data<float>();
  w->scales.assign(scales, scales + a.N * w->blocks);
  w->zero_scaled.resize(w->scales.size());
  const bool packed_zp = in.zero_points && in.zero_points->dtype() == DataType::UInt8;
  const int64_t zp_row = a.zero_point_row_bytes();
  for (int64_t n = 0; n < a.N; ++n) {
    for (int64_t blk = 0; blk < w->blocks; ++blk) {
      float zp = static_cast<float>(a.default_zero_point());
      if (packed_zp) {
        zp = static_cast<float>(
            (in.zero_points->data<uint8_t>()[n * zp_row + blk / 2] >> ((blk % 2) * 4)) & 0x0F);
      } else if (in.zero_points) {
        zp = in.zero_points->data<float>()[n * w->blocks + blk];
      }
      const int64_t i = n * w->blocks + blk;
      w->zero_scaled[i] = zp * w->scales[i];
    }
  }
  return w;
}

// The dequantized, packed weight of constant inputs, made once by the first run that needs it.
struct LazyPackedWeight {
  NBitsAttrs attrs;
  Tensor b, scales, zero_points;  // the constants (zero_points undefined when absent)
  std::once_flag once;
  std::unique_ptr<cpu::PackedB> packed;

  const cpu::PackedB& get() {
    std::call_once(once, [this] {
      const NBitsInputs in{
          nullptr, &b,
          &scales, zero_points.dtype() == DataType::Undefined ? nullptr : &zero_points,
          nullptr, nullptr};
      std::vector<float> w(static_cast<size_t>(attrs.N * attrs.K));
      dequantize(attrs, in, w.data());
      auto p = std::make_unique<cpu::PackedB>();
      cpu::pack_b(true, attrs.K, attrs.N, w.data(), attrs.K, *p);
      packed = std::move(p);
    });
    return *packed;
  }
};

const Tensor* optional_input(const OpContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i) : nullptr;
}

CpuKernel make_matmul_nbits(const NodeInfo& info) {
  const NBitsAttrs attrs = parse_matmul_nbits_attrs(info);
  if (info.num_inputs() < 3) info.fail("expects at least the inputs A, B and scales");
  // Weights known at load time: dequantized and packed once.
  std::shared_ptr<const cpu::PackedB> packed;
  std::shared_ptr<const cpu::Int4Weights> int4;
  std::shared_ptr<LazyPackedWeight> lazy;
  auto constant = [&](size_t i) { return info.has_input(i) ? info.constant_input(i) : nullptr; };
  const bool weights_constant = constant(1) && constant(2) && (!info.has_input(3) || constant(3)) &&
                                (!info.has_input(4) || constant(4));
  if (weights_constant) {
    const NBitsInputs in{nullptr, constant(1), constant(2), constant(3), constant(4), nullptr};
    check_matmul_nbits_inputs(info.node(), attrs, in);
    if (attrs.bits == 4 && !info.has_input(4)) {
      int4 = int4_weights(attrs, in);
      lazy = std::make_shared<LazyPackedWeight>();
      lazy->attrs = attrs;
      lazy->b = *in.b;
      lazy->scales = *in.scales;
      if (in.zero_points) lazy->zero_points = *in.zero_points;
    } else {
      std::vector<float> w(static_cast<size_t>(attrs.N * attrs.K));
      dequantize(attrs, in, w.data());
      auto p = std::make_shared<cpu::PackedB>();
      cpu::pack_b(true, attrs.K, attrs.N, w.data(), attrs.K, *p);
      packed = std::move(p);
    }
  }
  return [attrs, packed, int4, lazy](OpContext& ctx) {
    const NBitsInputs in{&ctx.input(0),          &ctx.input(1),          &ctx.input(2),
                         optional_input(ctx, 3), optional_input(ctx, 4), optional_input(ctx, 5)};
    check_matmul_nbits_inputs(ctx.node(), attrs, in);
    const Tensor& a = ctx.input(0);
    Shape out_shape = a.shape();
    out_shape.back() = attrs.N;
    Tensor& y = ctx.allocate_output(0, DataType::Float32, out_shape);
    if (y.element_count() == 0) return;
    const int64_t M = a.element_count() / attrs.K;
    cpu::GemmEpilogue epilogue;
    if (in.bias) {
      epilogue.bias_kind = cpu::GemmBias::kPerColumn;
      epilogue.bias = in.bias->data<float>();
    }
    if (int4 && M <= kGemvRows) {
      cpu::int4_gemv(*int4, a.data<float>(), M, in.bias ? in.bias->data<float>() : nullptr,
                     y.mutable_data<float>());
      return;
    }
    if (packed || lazy) {
      cpu::sgemm_packed(false, M, a.data<float>(), attrs.K, packed ? *packed : lazy->get(),
                        y.mutable_data<float>(), attrs.N, epilogue);
      return;
    }
    thread_local std::vector<float> w;
    w.resize(static_cast<size_t>(attrs.N * attrs.K));
    dequantize(attrs, in, w.data());
    cpu::sgemm(false, true, M, attrs.N, attrs.K, a.data<float>(), attrs.K, w.data(), attrs.K,
               y.mutable_data<float>(), attrs.N, epilogue);
  };
}

}  // namespace

KILN_CPU_OPS(matmul_nbits);
void register_matmul_nbits_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "MatMulNBits", make_matmul_nbits);
}

}  // namespace kiln
