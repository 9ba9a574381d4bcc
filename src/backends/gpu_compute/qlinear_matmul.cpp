// QLinearMatMul on the GPU (shaders/qlinear_matmul.comp): int8 and uint8 operands with batch
// broadcasting (the MatMul geometry, matmul.h), requantized with the parameters its definition
// (opdefs/qlinear_matmul.h) resolves for the CPU kernel too. The scales and zero points are read
// on the host (they are constants or inputs in practice); one computed on the device sends the
// node to the CPU for that run. Needs shaderInt64 for the exact rounding.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/matmul.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
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
  uint32_t a_zeros = 1, b_zeros = 1, rows = 1, cols = 1;
  uint32_t batch_offsets = 0;
};
static_assert(sizeof(QLinearMatMulPushConstants) <= kMaxPushConstantBytes);

class QLinearMatMul {
 public:
  explicit QLinearMatMul(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::qlinear_matmul(), 4,
                                       sizeof(QLinearMatMulPushConstants), kWorkgroup}) {}

  // An invocation per output word (four 8-bit elements).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const QLinearMatMulPushConstants& pc,
              const Buffer& a, const Buffer& b, const Buffer& params, const Buffer& y) const {
    const Buffer* buffers[] = {&a, &b, &params, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, (uint64_t{pc.count} + 3) / 4, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// A multiplier as mantissa * 2^-shift with |mantissa| < 2^24 (exact: the multiplier is a float32,
// float16 or bfloat16 value), for sums |acc| <= acc_bound. A shift so large that the product is
// below half a unit gives (0, 0): the result is the zero point. RunOnCpu for multipliers beyond
// the shader's 64-bit arithmetic (huge, or not finite).
void push_multiplier(std::vector<int32_t>& params, double multiplier, double acc_bound) {
  if (multiplier == 0.0) {
    params.insert(params.end(), {0, 0});
    return;
  }
  if (!std::isfinite(multiplier))
    throw RunOnCpu(RunTimeCause::InputValues, "a scale gives a multiplier that is not finite");
  int exponent = 0;
  const double fraction = std::frexp(multiplier, &exponent);  // multiplier = fraction * 2^exponent
  const auto mantissa = static_cast<int32_t>(std::ldexp(fraction, 24));
  const int shift = 24 - exponent;
  // |acc * mantissa| < 2^55 and |y_zero| < 2^8: both fit 64 bits shifted by at most 54.
  if (shift > 54 &&
      acc_bound * std::fabs(static_cast<double>(mantissa)) < std::ldexp(1.0, shift - 1)) {
    params.insert(params.end(), {0, 0});
    return;
  }
  if (shift < 0 || shift > 54)
    throw RunOnCpu(RunTimeCause::InputValues, "a multiplier beyond the GPU kernel's arithmetic");
  params.insert(params.end(), {mantissa, shift});
}

RecordFn qlinear_matmul(const NodeInfo& info) {
  return [node = NodeRef(info)](OpRecorder& r) {
    if (!r.device().info().has_int64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
    std::vector<Tensor> inputs;
    for (size_t k = 0; k < r.num_inputs(); ++k) {
      const Tensor& t = r.input(k);
      if (k != kQA && k != kQB && t.defined() && t.impl()->device)
        throw RunOnCpu(RunTimeCause::InputValues, "a scale or zero point computed on the device");
      inputs.push_back(t);
    }
    const NodeInputs node_inputs{*node.node, inputs};
    check_qlinear_matmul_operands(node_inputs);
    const MatMulProblem p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
      return matmul_problem(r.shape(kQA), r.shape(kQB));
    });
    const QLinearMatMulParams q = resolve_qlinear_matmul(node_inputs, p.m, p.n);
    const int64_t count = p.out_shape.element_count();
    // The CPU sums in int32: operand differences of at most 255 each.
    const double acc_bound = 65025.0 * static_cast<double>(p.k);
    if (count > INT32_MAX || p.a_elements > INT32_MAX || p.b_elements > INT32_MAX ||
        acc_bound > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit indexing and sums");

    QLinearMatMulPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.m = static_cast<uint32_t>(std::max<int64_t>(p.m, 1));
    pc.n = static_cast<uint32_t>(std::max<int64_t>(p.n, 1));
    pc.k = static_cast<uint32_t>(p.k);
    pc.a_row_stride = static_cast<uint32_t>(p.a_row_stride);
    pc.a_col_stride = static_cast<uint32_t>(p.a_col_stride);
    pc.b_row_stride = static_cast<uint32_t>(p.b_row_stride);
    pc.b_col_stride = static_cast<uint32_t>(p.b_col_stride);
    pc.a_signed = r.dtype(kQA) == DataType::Int8 ? 1 : 0;
    pc.b_signed = r.dtype(kQB) == DataType::Int8 ? 1 : 0;
    IntRange range;
    quantized_int_range(q.out_type, range);
    pc.lo = static_cast<int32_t>(range.lo);
    pc.hi = static_cast<int32_t>(range.hi);
    pc.y_zero = static_cast<int32_t>(q.y_zero);

    // Zero points, multipliers, then each batch's offsets into A and B.
    std::vector<int32_t> params;
    for (double z : q.a_zero) params.push_back(static_cast<int32_t>(z));
    for (double z : q.b_zero) params.push_back(static_cast<int32_t>(z));
    pc.a_zeros = static_cast<uint32_t>(q.a_zero.size());
    pc.b_zeros = static_cast<uint32_t>(q.b_zero.size());
    pc.rows = static_cast<uint32_t>(q.rows);
    pc.cols = static_cast<uint32_t>(q.cols);
    for (double m : q.multiplier) push_multiplier(params, m, acc_bound);
    pc.batch_offsets = static_cast<uint32_t>(params.size());
    const int64_t batches = p.batch.element_count();
    for (int64_t i = 0; i < batches; ++i) {
      int64_t rest = i, a_offset = 0, b_offset = 0;
      for (size_t d = p.batch.size(); d-- > 0;) {
        const int64_t index = rest % p.batch[d];
        rest /= p.batch[d];
        a_offset += index * p.a_batch_strides[d];
        b_offset += index * p.b_batch_strides[d];
      }
      params.push_back(static_cast<int32_t>(a_offset));
      params.push_back(static_cast<int32_t>(b_offset));
    }
    const Buffer& a = r.buffer(kQA);
    const Buffer& b = r.buffer(kQB);
    const Buffer& table = r.upload(std::as_bytes(std::span(params)));
    const Buffer& y = r.output(0, q.out_type, p.out_shape);
    r.add_work(static_cast<uint64_t>(count) * static_cast<uint64_t>(p.k));
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
}

}  // namespace kiln::gpu_compute
