// ConvInteger and QLinearConv on the GPU (shaders/conv_integer.comp): int8 and uint8 images and
// weights with 1 to 3 spatial axes, summed exactly in int32, an output element per invocation;
// QLinearConv requantized as QLinearMatMul is (requantize.h). The operands' checks, zero points
// and multipliers are the definition's (opdefs/conv_integer.h), as on the CPU; the geometry is
// Conv's push constants (conv.h). Zero points and scales are read on the host; one computed on
// the device sends the node to the CPU for that run. Needs shaderInt64 for the exact rounding.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/conv.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/loop_budget.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/requantize.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/conv_integer.h"
#include "opdefs/quantize_linear.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

enum IntConvFlags : uint32_t {
  kXSigned = 1,
  kWSigned = 2,
  kWZeroPerChannel = 4,
  kRequantize = 8,
  kHasBias = 16,
  kMultiplierPerChannel = 32
};

// Mirrors the shader's push-constant block.
struct IntConvPushConstants {
  uint32_t in[3] = {1, 1, 1};
  uint32_t out[3] = {1, 1, 1};
  uint32_t kernel[3] = {1, 1, 1};
  uint32_t stride[3] = {1, 1, 1};
  uint32_t dilation[3] = {1, 1, 1};
  int32_t pad[3] = {};
  uint32_t cg = 0, mg = 0, channels = 0, count = 0, flags = 0;
  int32_t x_zero = 0;
  uint32_t mult_start = 0;
  int32_t y_zero = 0, lo = 0, hi = 0;
};
static_assert(sizeof(IntConvPushConstants) <= kMaxPushConstantBytes);

class IntegerConv {
 public:
  explicit IntegerConv(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::conv_integer(), 5, sizeof(IntConvPushConstants),
                                       kWorkgroup}) {}

  // An invocation per output word: four 8-bit outputs requantized, or one int32 sum.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const IntConvPushConstants& pc,
              const Buffer& x, const Buffer& w, const Buffer& params, const Buffer& bias,
              const Buffer& y) const {
    const Buffer* buffers[] = {&x, &w, &params, &bias, &y};
    const uint64_t words =
        (pc.flags & kRequantize) != 0 ? (uint64_t{pc.count} + 3) / 4 : uint64_t{pc.count};
    record_per_element(cmd, device_, arena, pipeline_, pc, words, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The geometry of `q` as the shader takes it; RunOnCpu beyond 32-bit indexing.
IntConvPushConstants geometry_constants(const IntConvParams& q, const Tensor& x, const Tensor& w) {
  const ConvPushConstants conv = or_run_on_cpu(
      RunTimeCause::ShapeOutsideKernel, [&] { return conv_push_constants(q.problem, false, {}); });
  if (q.y_shape.element_count() > INT32_MAX || x.element_count() > INT32_MAX ||
      w.element_count() > INT32_MAX)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit indexing");
  // The window's loops: channels x taps, and the loops over z and y and channels themselves.
  const uint64_t taps = uint64_t{conv.kernel[0]} * conv.kernel[1] * conv.kernel[2];
  const uint64_t channels = conv.in_channels_per_group;
  if (channels * (taps + uint64_t{conv.kernel[0]} * conv.kernel[1] + conv.kernel[0] + 1) >
      kShaderLoopBudget)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "a window beyond the shader's loop budget");
  IntConvPushConstants pc;
  for (size_t d = 0; d < 3; ++d) {
    pc.in[d] = conv.in[d];
    pc.out[d] = conv.out[d];
    pc.kernel[d] = conv.kernel[d];
    pc.stride[d] = conv.stride[d];
    pc.dilation[d] = conv.dilation[d];
    pc.pad[d] = conv.pad[d];
  }
  pc.cg = conv.in_channels_per_group;
  pc.mg = conv.out_channels_per_group;
  pc.channels = static_cast<uint32_t>(q.problem.out_channels);
  pc.count = static_cast<uint32_t>(q.y_shape.element_count());
  pc.x_zero = q.x_zero;
  if (x.dtype() == DataType::Int8) pc.flags |= kXSigned;
  if (w.dtype() == DataType::Int8) pc.flags |= kWSigned;
  if (q.w_zero.size() > 1) pc.flags |= kWZeroPerChannel;
  return pc;
}

// Input k's host tensor; RunOnCpu when it was computed on the device.
const Tensor& host_parameter(const OpRecorder& r, size_t k) {
  const Tensor& t = r.input(k);
  if (t.defined() && t.impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues, "a scale or zero point computed on the device");
  return t;
}

// Both ops: x and w are inputs `x_index` and `w_index`, B (QLinearConv) the last.
RecordFn integer_conv(ConvAttrs attrs, NodeRef node, bool qlinear) {
  return [attrs, node, qlinear](OpRecorder& r) {
    if (!r.device().info().has_int64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
    const size_t x_index = qlinear ? kQConvX : 0, w_index = qlinear ? kQConvW : 1;
    std::vector<Tensor> inputs;
    for (size_t k = 0; k < r.num_inputs(); ++k) {
      const bool operand = k == x_index || k == w_index || (qlinear && k == kQConvBias);
      inputs.push_back(operand ? r.input(k) : host_parameter(r, k));
    }
    const NodeInputs node_inputs{*node.node, inputs};
    const IntConvParams q = qlinear ? resolve_qlinear_conv(node_inputs, attrs)
                                    : resolve_conv_integer(node_inputs, attrs);
    IntConvPushConstants pc = geometry_constants(q, inputs[x_index], inputs[w_index]);
    std::vector<int32_t> params(q.w_zero.begin(), q.w_zero.end());
    if (qlinear) {
      // The sums of the products, each of two differences of at most 255: int32 as on the CPU.
      const double taps = static_cast<double>(q.problem.geometry.kernel_size());
      const double products =
          65025.0 * taps * static_cast<double>(q.problem.in_channels / q.problem.group);
      if (products > INT32_MAX)
        throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit sums");
      // A bias may take the (wrapping) sum anywhere in int32.
      const double acc_bound = q.has_bias ? 2147483648.0 : products;
      pc.flags |= kRequantize;
      if (q.has_bias) pc.flags |= kHasBias;
      if (q.multiplier.size() > 1) pc.flags |= kMultiplierPerChannel;
      pc.mult_start = static_cast<uint32_t>(params.size());
      for (double m : q.multiplier) push_multiplier(params, m, acc_bound);
      IntRange range;
      quantized_int_range(q.out_type, range);
      pc.lo = static_cast<int32_t>(range.lo);
      pc.hi = static_cast<int32_t>(range.hi);
      pc.y_zero = q.y_zero;
    }
    const Buffer& x = r.buffer(x_index);
    const Buffer& w = r.buffer(w_index);
    const Buffer& table = r.upload(std::as_bytes(std::span(params)));
    const Buffer& bias = q.has_bias ? r.buffer(kQConvBias) : table;
    const Buffer& y = r.output(0, q.out_type, q.y_shape);
    r.add_work(uint64_t{pc.count} * static_cast<uint64_t>(q.problem.geometry.kernel_size()) *
               pc.cg);
    r.kernel<IntegerConv>().record(r.cmd(), r.arena(), pc, x, w, table, bias, y);
  };
}

// The factory for either op: 8-bit operands (int32 B), float32 scales, and, where shape
// inference fixed x's shape, 1 to 3 spatial axes.
OpFactory integer_conv_factory(bool qlinear) {
  return [qlinear](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const std::initializer_list<DataType> bytes = {DataType::Int8, DataType::UInt8};
    if (qlinear) {
      for (size_t k : {kQConvX, kQConvXZero, kQConvW, kQConvWZero, kQConvYZero})
        if (!inputs_are(q, bytes, reason, k, 1)) return nullptr;
      for (size_t k : {kQConvXScale, kQConvWScale, kQConvYScale})
        if (!inputs_are(q, {DataType::Float32}, reason, k, 1)) return nullptr;
      if (!inputs_are(q, {DataType::Int32}, reason, kQConvBias, 1)) return nullptr;
    } else if (!inputs_are(q, bytes, reason, 0, 4)) {
      return nullptr;
    }
    if (const Shape* x = static_input_shape(q, qlinear ? kQConvX : 0);
        x && (x->size() < 3 || x->size() - 2 > kConvMaxSpatialRank)) {
      reason = "the GPU kernel takes 1 to 3 spatial axes";
      return nullptr;
    }
    return integer_conv(parse_conv_attrs(q.info, false), NodeRef(q.info), qlinear);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(conv_integer);
void register_conv_integer_ops(OpTable& t) {
  t.add("ConvInteger", integer_conv_factory(false));
  t.add("QLinearConv", integer_conv_factory(true));
}

}  // namespace kiln::gpu_compute
