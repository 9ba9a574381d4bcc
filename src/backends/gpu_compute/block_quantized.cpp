// ONNX Runtime's block-quantized ops (com.microsoft) on the GPU: MatMulNBits
// (shaders/matmul_nbits.comp) and GatherBlockQuantized (shaders/gather_block_quantized.comp).
// Their weights stay packed on the device, as on the host: int4 takes an eighth of float32's
// memory, and token generation, which reads every weight once a step, reads that much less.
//
// The family in one file: the kernels (the pipelines and their dispatch) and the adapters that
// place ONNX nodes on them. Attributes, input checks and shapes are the ops' definitions
// (opdefs/block_quantized.h), as on the CPU.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "ir/domains.h"
#include "kiln/error.h"
#include "opdefs/block_quantized.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernels -----------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
// Rows of A one MatMulNBits workgroup takes (the shader's kRows).
constexpr int64_t kNBitsRows = 8;

uint32_t narrow(int64_t v, const char* op) {
  check(v >= 0 && v <= UINT32_MAX,
        std::string(op) + " on the GPU: the tensors exceed 32-bit indexing");
  return static_cast<uint32_t>(v);
}

enum class ZeroPointKind : uint32_t { Default, Packed, Float };

// Mirrors the shader's push-constant block.
struct NBitsPushConstants {
  uint32_t M = 0, N = 0, K = 0, bits = 0, block_size = 0, k_blocks = 0, row_bytes = 0;
  uint32_t zp_kind = 0, zp_row_bytes = 0, has_g_idx = 0, has_bias = 0;
};
static_assert(sizeof(NBitsPushConstants) <= kMaxPushConstantBytes);

// The operands; zero_points, g_idx and bias may be null.
struct NBitsBuffers {
  const Buffer *a = nullptr, *b = nullptr, *scales = nullptr, *zero_points = nullptr;
  const Buffer *g_idx = nullptr, *bias = nullptr, *y = nullptr;
};

class NBitsMatMul {
 public:
  explicit NBitsMatMul(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::matmul_nbits(), 7, sizeof(NBitsPushConstants),
                                       kWorkgroup}) {}

  // y [M, N] = a [M, K] times the packed weight. Records nothing when y is empty.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const NBitsAttrs& attrs, int64_t M,
              ZeroPointKind zp, const NBitsBuffers& b) const {
    if (M == 0) return;
    const char* op = "MatMulNBits";
    NBitsPushConstants pc;
    pc.M = narrow(M, op);
    pc.N = narrow(attrs.N, op);
    pc.K = narrow(attrs.K, op);
    narrow(M * attrs.N, op);
    narrow(M * attrs.K, op);
    pc.bits = narrow(attrs.bits, op);
    pc.block_size = narrow(attrs.block_size, op);
    pc.k_blocks = narrow(attrs.k_blocks(), op);
    pc.row_bytes = narrow(attrs.k_blocks() * attrs.blob_size(), op);
    narrow(attrs.N * attrs.k_blocks() * attrs.blob_size(), op);
    pc.zp_kind = static_cast<uint32_t>(zp);
    pc.zp_row_bytes = narrow(attrs.zero_point_row_bytes(), op);
    pc.has_g_idx = b.g_idx ? 1 : 0;
    pc.has_bias = b.bias ? 1 : 0;
    check(b.y->size() >= static_cast<uint64_t>(M * attrs.N) * sizeof(float),
          "MatMulNBits on the GPU: the output buffer is too small");
    // Bindings the problem does not read still need a buffer: A stands in, never read there.
    auto or_a = [&](const Buffer* buf) { return buf != nullptr ? buf : b.a; };
    const Buffer* buffers[] = {b.a,           b.b,          b.scales, or_a(b.zero_points),
                               or_a(b.g_idx), or_a(b.bias), b.y};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {b.y};
    record_dispatch(
        cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
        groups_for(device_, pipeline_,
                   static_cast<uint64_t>((M + kNBitsRows - 1) / kNBitsRows * attrs.N) * kWorkgroup),
        written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Mirrors the shader's push-constant block.
struct GatherBlockQuantizedPushConstants {
  uint32_t count = 0, inner = 0, cols = 0, packed_cols = 0, blocks = 0, zp_row_bytes = 0, bits = 0,
           block_size = 0, has_zp = 0;
};
static_assert(sizeof(GatherBlockQuantizedPushConstants) <= kMaxPushConstantBytes);

class GatherBlockQuantizedKernel {
 public:
  explicit GatherBlockQuantizedKernel(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::gather_block_quantized(), 5,
                                       sizeof(GatherBlockQuantizedPushConstants), kWorkgroup}) {}

  // y = the dequantized lines of the table rows `rows` (int32, checked), zero_points may be
  // null. Records nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const GatherBlockQuantizedAttrs& a,
              const GatherBlockQuantizedProblem& p, const Buffer& data, const Buffer& rows,
              const Buffer& scales, const Buffer* zero_points, const Buffer& y) const {
    const int64_t count = p.output.element_count();
    if (count == 0) return;
    const char* op = "GatherBlockQuantized";
    GatherBlockQuantizedPushConstants pc;
    pc.count = narrow(count, op);
    pc.inner = narrow(p.inner, op);
    pc.cols = narrow(p.cols, op);
    pc.packed_cols = narrow(p.packed_cols, op);
    pc.blocks = narrow(p.blocks, op);
    pc.zp_row_bytes = narrow(p.zp_row_bytes, op);
    narrow(p.rows * p.inner * p.packed_cols, op);
    narrow(p.rows * p.inner * p.blocks, op);
    pc.bits = narrow(a.bits, op);
    pc.block_size = narrow(a.block_size, op);
    pc.has_zp = zero_points ? 1 : 0;
    check(y.size() >= static_cast<uint64_t>(count) * sizeof(float),
          "GatherBlockQuantized on the GPU: the output buffer is too small");
    const Buffer* buffers[] = {&data, &rows, &scales, zero_points ? zero_points : &data, &y};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&y};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, static_cast<uint64_t>(count)), written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapters ----------------------------------------------------------------------------

enum NBitsInput : size_t { kA, kB, kScales, kZeroPoints, kGIdx, kBias };

const Tensor* optional_input(const OpRecorder& r, size_t k) {
  return r.has_input(k) ? &r.input(k) : nullptr;
}

RecordFn matmul_nbits(NBitsAttrs attrs, NodeRef node) {
  return [=](OpRecorder& r) {
    const NBitsInputs in{&r.input(kA),
                         &r.input(kB),
                         &r.input(kScales),
                         optional_input(r, kZeroPoints),
                         optional_input(r, kGIdx),
                         optional_input(r, kBias)};
    check_matmul_nbits_inputs(*node.node, attrs, in);
    Shape out_shape = r.shape(kA);
    out_shape.back() = attrs.N;
    const int64_t M = r.shape(kA).element_count() / attrs.K;
    NBitsBuffers b;
    b.a = &r.buffer(kA);
    b.b = &r.buffer(kB);
    b.scales = &r.buffer(kScales);
    ZeroPointKind zp = ZeroPointKind::Default;
    if (in.zero_points) {
      zp =
          in.zero_points->dtype() == DataType::UInt8 ? ZeroPointKind::Packed : ZeroPointKind::Float;
      b.zero_points = &r.buffer(kZeroPoints);
    }
    if (in.g_idx) b.g_idx = &r.buffer(kGIdx);
    if (in.bias) b.bias = &r.buffer(kBias);
    b.y = &r.output(0, DataType::Float32, out_shape);
    r.add_work(static_cast<uint64_t>(M * attrs.N * attrs.K));
    r.kernel<NBitsMatMul>().record(r.cmd(), r.arena(), attrs, M, zp, b);
  };
}

RecordFn matmul_nbits_factory(const DevicePlacementQuery& q, std::string& reason) {
  if (!inputs_are(q, {DataType::Float32}, reason, kA, 1) ||
      !inputs_are(q, {DataType::UInt8}, reason, kB, 1) ||
      !inputs_are(q, {DataType::Float32}, reason, kScales, 1) ||
      !inputs_are(q, {DataType::UInt8, DataType::Float32}, reason, kZeroPoints, 1) ||
      !inputs_are(q, {DataType::Int32}, reason, kGIdx, 1) ||
      !inputs_are(q, {DataType::Float32}, reason, kBias, 1))
    return nullptr;
  // The definition checks g_idx's values, which must then be on the host.
  if (q.info.has_input(kGIdx) && !q.info.constant_input(kGIdx)) {
    reason = "g_idx computed at run time";
    return nullptr;
  }
  if (q.info.num_inputs() < 3) {
    reason = "fewer than the inputs A, B and scales";
    return nullptr;
  }
  return matmul_nbits(parse_matmul_nbits_attrs(q.info), NodeRef(q.info));
}

enum GatherInput : size_t { kData, kIndices, kGatherScales, kGatherZeroPoints };

// The table row of each index, wrapped and checked as the CPU kernel does; a kiln::Error
// naming the node for an index out of range.
const Buffer& table_rows(OpRecorder& r, const ir::Node& node, int64_t rows) {
  const Tensor& indices = r.input(kIndices);
  if (indices.impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues, "indices computed on the device cannot be checked");
  const int64_t n = indices.element_count();
  std::vector<int32_t> out(static_cast<size_t>(std::max<int64_t>(n, 1)), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = indices.dtype() == DataType::Int64 ? indices.data<int64_t>()[i]
                                                   : indices.data<int32_t>()[i];
    if (v < -rows || v >= rows) {
      throw Error(node.describe() + ": index " + std::to_string(v) + " is out of range for " +
                  std::to_string(rows) + " rows");
    }
    if (v < 0) v += rows;
    out[static_cast<size_t>(i)] = static_cast<int32_t>(v);
  }
  return r.upload(std::as_bytes(std::span(out)));
}

RecordFn gather_block_quantized(GatherBlockQuantizedAttrs attrs, NodeRef node) {
  return [=](OpRecorder& r) {
    const Tensor* zero_points = optional_input(r, kGatherZeroPoints);
    const GatherBlockQuantizedProblem p = resolve_gather_block_quantized(
        *node.node, attrs, r.input(kData), r.shape(kIndices), r.input(kGatherScales), zero_points);
    if (r.dtype(kIndices) != DataType::Int32 && r.dtype(kIndices) != DataType::Int64) {
      throw Error(node.node->describe() + ": indices must be int32 or int64, got " +
                  r.input(kIndices).to_string(0));
    }
    check(p.rows <= INT32_MAX, "GatherBlockQuantized on the GPU: the table exceeds 32-bit rows");
    const Buffer& rows = table_rows(r, *node.node, p.rows);
    const Buffer& data = r.buffer(kData);
    const Buffer* zp = zero_points ? &r.buffer(kGatherZeroPoints) : nullptr;
    // float16 scales: the shader computes in float32 and the result is rounded to float16, as
    // the CPU kernel rounds each value it computes in float32.
    const DataType dt = r.dtype(kGatherScales);
    const uint64_t scale_count = static_cast<uint64_t>(r.shape(kGatherScales).element_count());
    const uint64_t out_count = static_cast<uint64_t>(p.output.element_count());
    const Buffer* scales = &r.buffer(kGatherScales);
    if (dt != DataType::Float32) {
      const Buffer& f32 = r.scratch(std::max<uint64_t>(scale_count, 1) * sizeof(float));
      r.kernel<Cast>().record(r.cmd(), r.arena(), dt, *scales, DataType::Float32, f32, scale_count);
      scales = &f32;
    }
    const Buffer& y = dt == DataType::Float32
                          ? r.output(0, dt, p.output)
                          : r.scratch(std::max<uint64_t>(out_count, 1) * sizeof(float));
    r.kernel<GatherBlockQuantizedKernel>().record(r.cmd(), r.arena(), attrs, p, data, rows, *scales,
                                                  zp, y);
    if (dt != DataType::Float32) {
      r.kernel<Cast>().record(r.cmd(), r.arena(), DataType::Float32, y, dt,
                              r.output(0, dt, p.output), out_count);
    }
  };
}

RecordFn gather_block_quantized_factory(const DevicePlacementQuery& q, std::string& reason) {
  if (!inputs_are(q, {DataType::UInt8}, reason, kData, 1) ||
      !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, kIndices, 1) ||
      !inputs_are(q, {DataType::Float32, DataType::Float16}, reason, kGatherScales, 1) ||
      !inputs_are(q, {DataType::UInt8}, reason, kGatherZeroPoints, 1))
    return nullptr;
  if (q.info.num_inputs() < 3) {
    reason = "fewer than the inputs data, indices and scales";
    return nullptr;
  }
  return gather_block_quantized(parse_gather_block_quantized_attrs(q.info), NodeRef(q.info));
}

}  // namespace

KILN_GPU_COMPUTE_OPS(block_quantized);
void register_block_quantized_ops(OpTable& t) {
  t.add(ir::kMicrosoftDomain, "MatMulNBits", matmul_nbits_factory);
  t.add(ir::kMicrosoftDomain, "GatherBlockQuantized", gather_block_quantized_factory);
}

}  // namespace kiln::gpu_compute
