// QLinearMatMul and MatMulInteger on the GPU (shaders/qlinear_matmul.comp): int8 and uint8
// operands with batch broadcasting (the MatMul geometry, matmul.h), summed exactly in int32;
// QLinearMatMul's sums requantized with the parameters its definition (opdefs/qlinear_matmul.h)
// resolves for the CPU kernel too, MatMulInteger's written as they are. The scales and zero points
// are read on the host (they are constants or inputs in practice); one computed on the device
// sends the node to the CPU for that run. QLinearMatMul needs shaderInt64 for the exact rounding.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/loop_budget.h"
#include "backends/gpu_compute/matmul.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/requantize.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/qlinear_matmul.h"
#include "opdefs/quantize_linear.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct QLinearMatMulPushConstants {
  uint32_t count = 0, m = 1, n = 1, k = 0;
  uint32_t a_row_stride = 0, a_col_stride = 1, b_row_stride = 0, b_col_stride = 1;
  uint32_t a_signed = 0, b_signed = 0;
  int32_t y_zero = 0, lo = 0, hi = 255;
  uint32_t a_zero_per_row = 0, b_zero_per_col = 0, b_zero_start = 1;
  uint32_t rows = 1, cols = 1;
  uint32_t mult_start = 0, batch_offsets = 0;
  uint32_t requantize_output = 1;
};
static_assert(sizeof(QLinearMatMulPushConstants) <= kMaxPushConstantBytes);

class QLinearMatMul {
 public:
  explicit QLinearMatMul(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::qlinear_matmul(), 4,
                                       sizeof(QLinearMatMulPushConstants), kWorkgroup}) {}

  // An invocation per output word: four 8-bit elements requantized, or one int32 sum.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const QLinearMatMulPushConstants& pc,
              const Buffer& a, const Buffer& b, const Buffer& params, const Buffer& y) const {
    const Buffer* buffers[] = {&a, &b, &params, &y};
    const uint64_t words = pc.requantize_output ? (uint64_t{pc.count} + 3) / 4 : pc.count;
    record_per_element(cmd, device_, arena, pipeline_, pc, words, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// Push constants for the product's geometry `p` of operands of types `a_type` and `b_type`;
// RunOnCpu beyond the kernel's 32-bit indexing.
QLinearMatMulPushConstants geometry_constants(const MatMulProblem& p, DataType a_type,
                                              DataType b_type) {
  const int64_t count = p.out_shape.element_count();
  if (count > INT32_MAX || p.a_elements > INT32_MAX || p.b_elements > INT32_MAX)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit indexing");
  if (static_cast<uint64_t>(p.k) > kShaderLoopBudget)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "a sum beyond the shader's loop budget");
  QLinearMatMulPushConstants pc;
  pc.count = static_cast<uint32_t>(count);
  pc.m = static_cast<uint32_t>(std::max<int64_t>(p.m, 1));
  pc.n = static_cast<uint32_t>(std::max<int64_t>(p.n, 1));
  pc.k = static_cast<uint32_t>(p.k);
  pc.a_row_stride = static_cast<uint32_t>(p.a_row_stride);
  pc.a_col_stride = static_cast<uint32_t>(p.a_col_stride);
  pc.b_row_stride = static_cast<uint32_t>(p.b_row_stride);
  pc.b_col_stride = static_cast<uint32_t>(p.b_col_stride);
  pc.a_signed = a_type == DataType::Int8 ? 1 : 0;
  pc.b_signed = b_type == DataType::Int8 ? 1 : 0;
  return pc;
}

// Appends the zero points of A and B (sets a_zero_per_row, b_zero_per_col, b_zero_start).
void push_zero_points(QLinearMatMulPushConstants& pc, const std::vector<double>& a_zero,
                      const std::vector<double>& b_zero, std::vector<int32_t>& params) {
  for (double z : a_zero) params.push_back(static_cast<int32_t>(z));
  pc.b_zero_start = static_cast<uint32_t>(params.size());
  for (double z : b_zero) params.push_back(static_cast<int32_t>(z));
  pc.a_zero_per_row = a_zero.size() == 1 ? 0 : 1;
  pc.b_zero_per_col = b_zero.size() == 1 ? 0 : 1;
}

// Appends each batch's offsets into A and B and the index of its first zero point of A and B:
// 0, or that of the operand's own batch matrix where the zero points are per row (column) of
// every batch matrix (more of them than lines). Sets batch_offsets.
void push_batch_table(QLinearMatMulPushConstants& pc, const MatMulProblem& p, size_t a_zeros,
                      size_t b_zeros, std::vector<int32_t>& params) {
  pc.batch_offsets = static_cast<uint32_t>(params.size());
  const int64_t batches = p.batch.element_count();
  const int64_t a_matrix = std::max<int64_t>(p.m * p.k, 1),
                b_matrix = std::max<int64_t>(p.k * p.n, 1);
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rest = i, a_offset = 0, b_offset = 0;
    for (size_t d = p.batch.size(); d-- > 0;) {
      const int64_t index = rest % p.batch[d];
      rest /= p.batch[d];
      a_offset += index * p.a_batch_strides[d];
      b_offset += index * p.b_batch_strides[d];
    }
    const int64_t a_zero = static_cast<int64_t>(a_zeros) > p.m ? (a_offset / a_matrix) * p.m : 0;
    const int64_t b_zero = static_cast<int64_t>(b_zeros) > p.n ? (b_offset / b_matrix) * p.n : 0;
    params.insert(params.end(), {static_cast<int32_t>(a_offset), static_cast<int32_t>(b_offset),
                                 static_cast<int32_t>(a_zero), static_cast<int32_t>(b_zero)});
  }
}

// Input k's host tensor; RunOnCpu when it was computed on the device.
const Tensor& host_parameter(const OpRecorder& r, size_t k) {
  const Tensor& t = r.input(k);
  if (t.defined() && t.impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues, "a scale or zero point computed on the device");
  return t;
}

RecordFn qlinear_matmul(const NodeInfo& info) {
  return [node = NodeRef(info)](OpRecorder& r) {
    if (!r.device().info().has_int64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
    std::vector<Tensor> inputs;
    for (size_t k = 0; k < r.num_inputs(); ++k)
      inputs.push_back(k == kQA || k == kQB ? r.input(k) : host_parameter(r, k));
    const NodeInputs node_inputs{*node.node, inputs};
    check_qlinear_matmul_operands(node_inputs);
    const MatMulProblem p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
      return matmul_problem(r.shape(kQA), r.shape(kQB));
    });
    const QLinearMatMulParams q = resolve_qlinear_matmul(node_inputs, p.m, p.n);
    // The CPU sums in int32: operand differences of at most 255 each.
    const double acc_bound = 65025.0 * static_cast<double>(p.k);
    if (acc_bound > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit sums");
    QLinearMatMulPushConstants pc = geometry_constants(p, r.dtype(kQA), r.dtype(kQB));
    const int64_t count = pc.count;
    IntRange range;
    quantized_int_range(q.out_type, range);
    pc.lo = static_cast<int32_t>(range.lo);
    pc.hi = static_cast<int32_t>(range.hi);
    pc.y_zero = static_cast<int32_t>(q.y_zero);

    std::vector<int32_t> params;
    push_zero_points(pc, q.a_zero, q.b_zero, params);
    pc.mult_start = static_cast<uint32_t>(params.size());
    pc.rows = static_cast<uint32_t>(q.rows);
    pc.cols = static_cast<uint32_t>(q.cols);
    for (double m : q.multiplier) push_multiplier(params, m, acc_bound);
    push_batch_table(pc, p, q.a_zero.size(), q.b_zero.size(), params);
    const Buffer& a = r.buffer(kQA);
    const Buffer& b = r.buffer(kQB);
    const Buffer& table = r.upload(std::as_bytes(std::span(params)));
    const Buffer& y = r.output(0, q.out_type, p.out_shape);
    r.add_work(static_cast<uint64_t>(count) * static_cast<uint64_t>(p.k));
    r.kernel<QLinearMatMul>().record(r.cmd(), r.arena(), pc, a, b, table, y);
  };
}

RecordFn matmul_integer(const NodeInfo& info) {
  return [node = NodeRef(info)](OpRecorder& r) {
    if (!r.device().info().has_int64)  // the shader is QLinearMatMul's
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
    std::vector<Tensor> inputs;
    for (size_t k = 0; k < r.num_inputs(); ++k)
      inputs.push_back(k < 2 ? r.input(k) : host_parameter(r, k));
    const NodeInputs node_inputs{*node.node, inputs};
    check_matmul_integer_operands(node_inputs);
    const MatMulProblem p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel,
                                          [&] { return matmul_problem(r.shape(0), r.shape(1)); });
    const int64_t a_batches = r.shape(0).element_count() / std::max<int64_t>(1, p.m * p.k);
    const int64_t b_batches = r.shape(1).element_count() / std::max<int64_t>(1, p.k * p.n);
    const std::vector<double> a_zero = matmul_integer_zero_points(node_inputs, 2, p.m, a_batches);
    const std::vector<double> b_zero = matmul_integer_zero_points(node_inputs, 3, p.n, b_batches);
    QLinearMatMulPushConstants pc = geometry_constants(p, r.dtype(0), r.dtype(1));
    pc.requantize_output = 0;
    std::vector<int32_t> params;
    push_zero_points(pc, a_zero, b_zero, params);
    pc.mult_start = static_cast<uint32_t>(params.size());
    push_batch_table(pc, p, a_zero.size(), b_zero.size(), params);
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer& table = r.upload(std::as_bytes(std::span(params)));
    const Buffer& y = r.output(0, DataType::Int32, p.out_shape);
    r.add_work(uint64_t{pc.count} * static_cast<uint64_t>(p.k));
    r.kernel<QLinearMatMul>().record(r.cmd(), r.arena(), pc, a, b, table, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(qlinear_matmul);
void register_qlinear_matmul_ops(OpTable& t) {
  t.add("QLinearMatMul", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const std::initializer_list<DataType> bytes = {DataType::Int8, DataType::UInt8};
    const std::initializer_list<DataType> scales = {DataType::Float32, DataType::Float16,
                                                    DataType::BFloat16};
    if (!inputs_are(q, bytes, reason, kQA, 1) || !inputs_are(q, bytes, reason, kQB, 1) ||
        !inputs_are(q, bytes, reason, kQAZero, 1) || !inputs_are(q, bytes, reason, kQBZero, 1) ||
        !inputs_are(q, bytes, reason, kQYZero, 1) || !inputs_are(q, scales, reason, kQAScale, 1) ||
        !inputs_are(q, scales, reason, kQBScale, 1) || !inputs_are(q, scales, reason, kQYScale, 1))
      return nullptr;
    return qlinear_matmul(q.info);
  });
  t.add("MatMulInteger", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const std::initializer_list<DataType> bytes = {DataType::Int8, DataType::UInt8};
    if (!inputs_are(q, bytes, reason, 0, 4)) return nullptr;
    return matmul_integer(q.info);
  });
}

}  // namespace kiln::gpu_compute
