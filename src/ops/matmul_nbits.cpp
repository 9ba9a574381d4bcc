// MatMulNBits (com.microsoft): A times a block-quantized weight (opdefs/block_quantized.h has
// the layout and the checks). accuracy_level 4 lets the GEMV quantize A to int8 per block, as
// ONNX Runtime does (cpu::NBitsArithmetic says where); everything else computes in float32 (a
// level only allows lower precision).
//
// Blocks in order (no g_idx, or the g_idx that says the same, as the quantization tools write
// for models without act-order) run on the packed weight (backends/cpu/nbits_matmul.h): a GEMV
// reading it directly for few rows of A, a GEMM over tiles dequantized on the fly for more. No
// float copy is kept: it would take 32 / bits times the memory, and token generation, which
// reads every weight once a step, would read that much more memory.
//
// A g_idx that permutes the blocks: the weight is dequantized to float32 and multiplied by
// kiln's GEMM, once at load time, packed, when the weights are initializers, else on every run.
#include <string>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/nbits_matmul.h"
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

// Whether g_idx (when given) maps every k to block k / block_size, as without it.
bool blocks_in_order(const NBitsAttrs& a, const Tensor* g_idx) {
  if (!g_idx) return true;
  const int32_t* g = g_idx->data<int32_t>();
  for (int64_t k = 0; k < a.K; ++k) {
    if (g[k] != k / a.block_size) return false;
  }
  return true;
}

cpu::NBitsWeight packed_weight(const NBitsAttrs& a, const NBitsInputs& in) {
  cpu::NBitsWeight w;
  w.N = a.N;
  w.K = a.K;
  w.bits = a.bits;
  w.block_size = a.block_size;
  w.data = in.b->data<uint8_t>();
  w.scales = in.scales->data<float>();
  if (const Tensor* zp = in.zero_points) {
    if (zp->dtype() == DataType::UInt8) {
      w.packed_zero_points = zp->data<uint8_t>();
    } else {
      w.float_zero_points = zp->data<float>();
    }
  }
  return w;
}

const Tensor* optional_input(const OpContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i) : nullptr;
}

CpuKernel make_matmul_nbits(const NodeInfo& info) {
  const NBitsAttrs attrs = parse_matmul_nbits_attrs(info);
  if (info.num_inputs() < 3) info.fail("expects at least the inputs A, B and scales");
  // Weights known at load time with a permuting g_idx: dequantized and packed once.
  std::shared_ptr<const cpu::PackedB> packed;
  auto constant = [&](size_t i) { return info.has_input(i) ? info.constant_input(i) : nullptr; };
  const bool weights_constant = constant(1) && constant(2) && (!info.has_input(3) || constant(3)) &&
                                (!info.has_input(4) || constant(4));
  if (weights_constant) {
    const NBitsInputs in{nullptr, constant(1), constant(2), constant(3), constant(4), nullptr};
    check_matmul_nbits_inputs(info.node(), attrs, in);
    if (!blocks_in_order(attrs, in.g_idx)) {
      std::vector<float> w(static_cast<size_t>(attrs.N * attrs.K));
      dequantize(attrs, in, w.data());
      auto p = std::make_shared<cpu::PackedB>();
      cpu::pack_b(true, attrs.K, attrs.N, w.data(), attrs.K, *p);
      packed = std::move(p);
    }
  }
  return [attrs, packed](OpContext& ctx) {
    const NBitsInputs in{&ctx.input(0),          &ctx.input(1),          &ctx.input(2),
                         optional_input(ctx, 3), optional_input(ctx, 4), optional_input(ctx, 5)};
    check_matmul_nbits_inputs(ctx.node(), attrs, in);
    const Tensor& a = ctx.input(0);
    Shape out_shape = a.shape();
    out_shape.back() = attrs.N;
    Tensor& y = ctx.allocate_output(0, DataType::Float32, out_shape);
    if (y.element_count() == 0) return;
    const int64_t M = a.element_count() / attrs.K;
    if (!packed && blocks_in_order(attrs, in.g_idx)) {
      cpu::nbits_matmul(packed_weight(attrs, in), M, a.data<float>(),
                        in.bias ? in.bias->data<float>() : nullptr, y.mutable_data<float>(),
                        attrs.accuracy_level == 4 ? cpu::NBitsArithmetic::kInt8Activations
                                                  : cpu::NBitsArithmetic::kFloat32);
      return;
    }
    cpu::GemmEpilogue epilogue;
    if (in.bias) {
      epilogue.bias_kind = cpu::GemmBias::kPerColumn;
      epilogue.bias = in.bias->data<float>();
    }
    if (packed) {
      cpu::sgemm_packed(false, M, a.data<float>(), attrs.K, *packed, y.mutable_data<float>(),
                        attrs.N, epilogue);
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
