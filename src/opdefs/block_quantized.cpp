// The definitions of ONNX Runtime's block-quantized ops (com.microsoft): MatMulNBits' attributes
// and input checks (block_quantized.h), and the shape rules.
#include "opdefs/block_quantized.h"

#include <string>

#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

[[noreturn]] void fail(const ir::Node& node, const std::string& message) {
  throw Error(node.describe() + ": " + message);
}

std::string dims(const Tensor& t) { return t.shape().to_string(); }

// MatMulNBits: A's shape with its last dimension N, A's type.
std::vector<ValueInfo> matmul_nbits_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a) return {};
  const NBitsAttrs attrs = parse_matmul_nbits_attrs(ctx.info());
  const std::vector<Dim>* as = ctx.shape(0);
  if (!as || as->empty()) return {dtype_only(a->dtype)};
  std::vector<Dim> out = *as;
  out.back() = fixed_dim(attrs.N);
  return {tensor_type(a->dtype, out)};
}

}  // namespace

NBitsAttrs parse_matmul_nbits_attrs(const NodeInfo& info) {
  NBitsAttrs a;
  for (const char* required : {"K", "N", "block_size"}) {
    if (!info.has_attr(required)) info.fail(std::string("attribute ") + required + " is required");
  }
  a.K = info.attr_int("K", 0);
  a.N = info.attr_int("N", 0);
  a.bits = info.attr_int("bits", 4);
  a.block_size = info.attr_int("block_size", 0);
  a.accuracy_level = info.attr_int("accuracy_level", 0);
  if (a.K <= 0 || a.N <= 0) info.fail("K and N must be positive");
  if (a.bits != 2 && a.bits != 4 && a.bits != 8) {
    info.fail("bits must be 2, 4 or 8, got " + std::to_string(a.bits));
  }
  if (a.block_size < 16 || (a.block_size & (a.block_size - 1)) != 0) {
    info.fail("block_size must be a power of two of at least 16, got " +
              std::to_string(a.block_size));
  }
  if (a.accuracy_level < 0 || a.accuracy_level > 4) {
    info.fail("accuracy_level must be 0 to 4, got " + std::to_string(a.accuracy_level));
  }
  return a;
}

void check_matmul_nbits_inputs(const ir::Node& node, const NBitsAttrs& attrs,
                               const NBitsInputs& in) {
  const int64_t N = attrs.N, blocks = attrs.k_blocks();
  // float16 A (and scales) are not supported yet: every float operand is float32.
  const DataType float_type = DataType::Float32;
  if (in.a) {
    if (in.a->dtype() != DataType::Float32) {
      fail(node, "input A must be float32, got " + in.a->to_string(0));
    }
    if (in.a->rank() == 0 || in.a->shape().back() != attrs.K) {
      fail(node, "input A's last dimension must be K = " + std::to_string(attrs.K) + ", got " +
                     dims(*in.a));
    }
  }
  const Tensor& b = *in.b;
  if (b.dtype() != DataType::UInt8 || b.shape() != Shape{N, blocks, attrs.blob_size()}) {
    fail(node, "input B must be uint8 [N, k_blocks, blob_size] = [" + std::to_string(N) + ", " +
                   std::to_string(blocks) + ", " + std::to_string(attrs.blob_size()) + "], got " +
                   b.to_string(0));
  }
  if (in.scales->dtype() != float_type || in.scales->element_count() != N * blocks) {
    fail(node, "input scales must hold N * k_blocks = " + std::to_string(N * blocks) +
                   " values of A's type, got " + in.scales->to_string(0));
  }
  if (const Tensor* zp = in.zero_points) {
    const bool packed = zp->dtype() == DataType::UInt8;
    const int64_t want = packed ? N * attrs.zero_point_row_bytes() : N * blocks;
    if ((!packed && zp->dtype() != float_type) || zp->element_count() != want) {
      fail(node, "input zero_points must be " + std::to_string(want) +
                     (packed ? " packed uint8 bytes" : " values of A's type") + ", got " +
                     zp->to_string(0));
    }
  }
  if (const Tensor* g = in.g_idx) {
    if (g->dtype() != DataType::Int32 || g->shape() != Shape{attrs.K}) {
      fail(node, "input g_idx must be int32 [K], got " + g->to_string(0));
    }
    const int32_t* p = g->data<int32_t>();
    for (int64_t k = 0; k < attrs.K; ++k) {
      if (p[k] < 0 || p[k] >= blocks) {
        fail(node, "g_idx[" + std::to_string(k) + "] = " + std::to_string(p[k]) +
                       " is not a block index below " + std::to_string(blocks));
      }
    }
  }
  if (in.bias && (in.bias->dtype() != float_type || in.bias->shape() != Shape{N})) {
    fail(node, "input bias must be [N] = [" + std::to_string(N) + "] of A's type, got " +
                   in.bias->to_string(0));
  }
}

KILN_OP_DEFS(block_quantized);
void define_block_quantized_ops(OpDefs& defs) {
  defs.define(ir::kMicrosoftDomain, "MatMulNBits").infer = matmul_nbits_rule;
}

}  // namespace kiln
