// The definitions of ONNX Runtime's block-quantized ops (com.microsoft): MatMulNBits' and
// GatherBlockQuantized's attributes, input checks and resolution (block_quantized.h), and their
// shape rules.
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

// GatherBlockQuantized: indices' shape in place of data's first axis, the last unpacked; the
// scales' type.
std::vector<ValueInfo> gather_block_quantized_rule(const InferenceContext& ctx) {
  const ValueInfo* scales = ctx.input(2);
  if (!scales) return {};
  const GatherBlockQuantizedAttrs attrs = parse_gather_block_quantized_attrs(ctx.info());
  const std::vector<Dim>*ds = ctx.shape(0), *is = ctx.shape(1);
  if (!ds || !is || ds->size() < 2) return {dtype_only(scales->dtype)};
  std::vector<Dim> out = *is;
  out.insert(out.end(), ds->begin() + 1, ds->end());
  const Dim& last = ds->back();
  out.back() = last.is_fixed() ? fixed_dim(last.value * attrs.per_byte()) : Dim{};
  return {tensor_type(scales->dtype, out)};
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

GatherBlockQuantizedAttrs parse_gather_block_quantized_attrs(const NodeInfo& info) {
  GatherBlockQuantizedAttrs a;
  a.gather_axis = info.attr_int("gather_axis", 0);
  a.quantize_axis = info.attr_int("quantize_axis", 1);
  a.block_size = info.attr_int("block_size", 128);
  a.bits = info.attr_int("bits", 4);
  if (a.bits != 2 && a.bits != 4 && a.bits != 8) {
    info.fail("bits must be 2, 4 or 8, got " + std::to_string(a.bits));
  }
  if (a.block_size < 16 || (a.block_size & (a.block_size - 1)) != 0) {
    info.fail("block_size must be a power of two of at least 16, got " +
              std::to_string(a.block_size));
  }
  return a;
}

GatherBlockQuantizedProblem resolve_gather_block_quantized(const ir::Node& node,
                                                           const GatherBlockQuantizedAttrs& attrs,
                                                           const Tensor& data, const Shape& indices,
                                                           const Tensor& scales,
                                                           const Tensor* zero_points) {
  const Shape& ds = data.shape();
  const int64_t rank = static_cast<int64_t>(ds.size());
  if (data.dtype() != DataType::UInt8) {
    fail(node, "input data must be uint8 (packed values), got " + data.to_string(0));
  }
  if (rank < 2) fail(node, "input data must have at least 2 dimensions, got " + dims(data));
  const int64_t gather_axis = attrs.gather_axis < 0 ? attrs.gather_axis + rank : attrs.gather_axis;
  const int64_t quantize_axis =
      attrs.quantize_axis < 0 ? attrs.quantize_axis + rank : attrs.quantize_axis;
  if (gather_axis != 0 || quantize_axis != rank - 1) {
    fail(node, "with uint8 data, gather_axis must be 0 and quantize_axis the last axis (" +
                   std::to_string(rank - 1) + "), got " + std::to_string(attrs.gather_axis) +
                   " and " + std::to_string(attrs.quantize_axis));
  }
  GatherBlockQuantizedProblem p;
  p.rows = ds[0];
  p.packed_cols = ds.back();
  for (int64_t d = 1; d + 1 < rank; ++d) p.inner *= ds[d];
  p.cols = p.packed_cols * attrs.per_byte();
  p.blocks = (p.cols + attrs.block_size - 1) / attrs.block_size;
  p.zp_row_bytes = (p.blocks + attrs.per_byte() - 1) / attrs.per_byte();
  Shape want_scales = ds;
  want_scales.back() = p.blocks;
  if (scales.dtype() != DataType::Float32 && scales.dtype() != DataType::Float16) {
    fail(node, "input scales must be float32 or float16, got " + scales.to_string(0));
  }
  if (scales.shape() != want_scales) {
    fail(node, "input scales must be " + want_scales.to_string() + " (data's shape with " +
                   std::to_string(p.blocks) + " blocks in the last axis), got " + dims(scales));
  }
  if (zero_points) {
    Shape want_zp = ds;
    want_zp.back() = p.zp_row_bytes;
    if (zero_points->dtype() != DataType::UInt8 || zero_points->shape() != want_zp) {
      fail(node, "input zero_points must be uint8 " + want_zp.to_string() + ", got " +
                     zero_points->to_string(0));
    }
  }
  p.output = indices;
  for (int64_t d = 1; d < rank; ++d) p.output.push_back(ds[d]);
  p.output.back() = p.cols;
  return p;
}

KILN_OP_DEFS(block_quantized);
void define_block_quantized_ops(OpDefs& defs) {
  defs.define(ir::kMicrosoftDomain, "MatMulNBits").infer = matmul_nbits_rule;
  defs.define(ir::kMicrosoftDomain, "GatherBlockQuantized").infer = gather_block_quantized_rule;
}

}  // namespace kiln
