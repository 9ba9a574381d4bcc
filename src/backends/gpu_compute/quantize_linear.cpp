// QuantizeLinear and DequantizeLinear on the GPU (shaders/quantize_linear.comp): float32 values
// and scales against int8, uint8, int16, uint16, int4, uint4, int2, uint2 and the four float8
// types and float4e2m1, per tensor, per axis or blocked, as their definition
// (opdefs/quantize_linear.h) lays the parameters out; DequantizeLinear into float16 too, computed
// in float32 and rounded once as the CPU does (ops/float32_compute.h). Int32 and other float
// types stay on the CPU.
// DynamicQuantizeLinear (float32 to uint8) computes its scale and zero point on the device
// (shaders/dynamic_quantize.comp), then quantizes with QuantizeLinear's kernel.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/loop_budget.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/quantize_linear.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct QuantizePushConstants {
  uint32_t quantize = 0, count = 0, bits = 8, is_signed = 0, has_zero_point = 0;
  int32_t lo = 0, hi = 0;
  uint32_t extent = 1, inner = 1, block = 1;
  uint32_t outer_stride = 0, axis_stride = 0, inner_stride = 0;
  uint32_t float8 = 0;  // the narrow float type's ONNX code (float8 or float4); 0: integers
  uint32_t saturate = 1;
};
static_assert(sizeof(QuantizePushConstants) <= kMaxPushConstantBytes);

class QuantizeLinear {
 public:
  explicit QuantizeLinear(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::quantize_linear(), 4, sizeof(QuantizePushConstants),
                                       kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const QuantizePushConstants& pc,
              const Buffer& x, const Buffer& scale, const Buffer& zero_point,
              const Buffer& y) const {
    if (pc.count == 0) return;
    const Buffer* buffers[] = {&x, &scale, &zero_point, &y};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&y};
    // Quantizing writes a whole word (32 / bits elements) per invocation.
    const uint64_t per_invocation = pc.quantize ? 32 / pc.bits : 1;
    record_dispatch(
        cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
        groups_for(device_, pipeline_, (pc.count + per_invocation - 1) / per_invocation), written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Mirrors the push-constant block of shaders/dynamic_quantize.comp.
struct DynamicQuantizePushConstants {
  uint32_t stage = 0, count = 0, chunk = 1, chunks = 0;
};

// DynamicQuantizeLinear's range and parameters: per-chunk ranges into `ranges` (2 floats per
// chunk), then the scale into `scale` and the zero point into the low byte of `zero_point`.
class DynamicQuantizeParams {
 public:
  static constexpr uint32_t kChunk = 1024;

  explicit DynamicQuantizeParams(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::dynamic_quantize(), 4,
                                       sizeof(DynamicQuantizePushConstants), kWorkgroup}) {}

  static uint32_t chunks(uint32_t count) { return (count + kChunk - 1) / kChunk; }

  void record(VkCommandBuffer cmd, DescriptorArena& arena, uint32_t count, const Buffer& x,
              const Buffer& ranges, const Buffer& scale, const Buffer& zero_point) const {
    DynamicQuantizePushConstants pc;
    pc.count = count;
    pc.chunk = kChunk;
    pc.chunks = chunks(count);
    const Buffer* buffers[] = {&x, &ranges, &scale, &zero_point};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* range_written[] = {&ranges};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.chunks), range_written);
    pc.stage = 1;
    const Buffer* params_written[] = {&scale, &zero_point};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, 1), params_written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

bool is_float8(DataType t) {
  return t == DataType::Float8E4M3FN || t == DataType::Float8E4M3FNUZ ||
         t == DataType::Float8E5M2 || t == DataType::Float8E5M2FNUZ;
}

// The float types the shader encodes and decodes (narrow_float.glsl): float8, and float4e2m1,
// which takes a zero point as well.
bool is_narrow_float(DataType t) { return is_float8(t) || t == DataType::Float4E2M1; }

// Bits an element of the types the shader takes occupies (kiln's tensors hold the 4- and 2-bit
// types a byte per element, the integers sign-extended); nullopt for the others.
std::optional<uint32_t> packed_bits(DataType t) {
  switch (t) {
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float4E2M1:
    case DataType::Int8:
    case DataType::UInt8:
    case DataType::Int4:
    case DataType::UInt4:
    case DataType::Int2:
    case DataType::UInt2:
      return 8;
    case DataType::Int16:
    case DataType::UInt16:
      return 16;
    default:
      return std::nullopt;
  }
}

// The push constants for x of shape `x` and the scale's shape; nullopt when the layout does not
// fit (the CPU kernel reports it) or the tensor exceeds 32-bit indexing.
std::optional<QuantizePushConstants> plan(const QuantAttrs& a, bool quantize, DataType int_type,
                                          const Shape& x, const Shape& scale) {
  std::string error;
  const std::optional<QuantParamLayout> l =
      quant_param_layout(x, scale, a.axis, a.block_size, "scale", error);
  const std::optional<uint32_t> bits = packed_bits(int_type);
  IntRange range;
  const bool float8 = is_narrow_float(int_type);
  if (!l || !bits || (!float8 && !quantized_int_range(int_type, range)) ||
      x.element_count() > INT32_MAX)
    return std::nullopt;
  QuantizePushConstants pc;
  pc.float8 = float8 ? static_cast<uint32_t>(int_type) : 0;
  pc.saturate = a.saturate ? 1 : 0;
  pc.quantize = quantize ? 1 : 0;
  pc.count = static_cast<uint32_t>(x.element_count());
  pc.bits = *bits;
  pc.is_signed = range.lo < 0 ? 1 : 0;
  pc.lo = static_cast<int32_t>(range.lo);
  pc.hi = static_cast<int32_t>(range.hi);
  pc.extent = static_cast<uint32_t>(std::max<int64_t>(l->extent, 1));
  pc.inner = static_cast<uint32_t>(std::max<int64_t>(l->inner, 1));
  pc.block = static_cast<uint32_t>(l->block);
  pc.outer_stride = static_cast<uint32_t>(l->outer_stride);
  pc.axis_stride = static_cast<uint32_t>(l->axis_stride);
  pc.inner_stride = static_cast<uint32_t>(l->inner_stride);
  return pc;
}

// Whether the zero point (of shape `zero_point`, nullptr when absent) fits the scale: one value,
// or the scale's shape.
bool zero_point_fits(const Shape* zero_point, const Shape& scale) {
  return !zero_point || *zero_point == scale || zero_point->element_count() == 1;
}

// Whether every float8 zero point is zero, as ONNX requires (+0, or -0 where the format has it),
// from the tensor's bytes.
bool float8_zero_points_are_zero(const Tensor& zero_point) {
  const bool has_negative_zero =
      zero_point.dtype() == DataType::Float8E4M3FN || zero_point.dtype() == DataType::Float8E5M2;
  const auto* bytes = static_cast<const uint8_t*>(zero_point.raw_data());
  for (size_t i = 0; i < zero_point.byte_size(); ++i) {
    if (bytes[i] != 0 && !(has_negative_zero && bytes[i] == 0x80)) return false;
  }
  return true;
}

RecordFn quantize_linear(QuantAttrs attrs, bool quantize, DataType int_type) {
  return [=](OpRecorder& r) {
    std::optional<QuantizePushConstants> pc =
        plan(attrs, quantize, int_type, r.shape(0), r.shape(1));
    bool has_zero_point = r.has_input(2);
    if (has_zero_point && is_float8(int_type)) {
      // The kernel takes no float8 zero point: a zero one changes nothing (and must not turn -0
      // into +0), any other is an error the CPU kernel reports.
      const Tensor& zero_point = r.input(2);
      if (device_tensor_of(zero_point, r.context()) || !float8_zero_points_are_zero(zero_point))
        throw RunOnCpu(RunTimeCause::InputValues,
                       "a float8 zero point that is not a host value of zeros");
      has_zero_point = false;
    }
    if (!pc || !zero_point_fits(has_zero_point ? &r.shape(2) : nullptr, r.shape(1)))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "parameter shapes outside the GPU quantization kernel");
    pc->has_zero_point = has_zero_point ? 1 : 0;
    const Buffer& x = r.buffer(0);
    const Buffer& scale = r.buffer(1);
    const Buffer& zero_point = has_zero_point ? r.buffer(2) : scale;
    const Buffer& y = r.output(0, quantize ? int_type : DataType::Float32, r.shape(0));
    r.kernel<QuantizeLinear>().record(r.cmd(), r.arena(), *pc, x, scale, zero_point, y);
  };
}

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

// With the shapes fixed at load time, whether the kernel covers them (else `reason` says why).
bool static_shapes_covered(const DevicePlacementQuery& q, const QuantAttrs& attrs, bool quantize,
                           DataType int_type, std::string& reason) {
  const Shape *x = static_input_shape(q, 0), *scale = static_input_shape(q, 1),
              *zero_point = static_input_shape(q, 2);
  if (!x || !scale || (q.info.has_input(2) && !zero_point)) return true;  // decided per run
  if (plan(attrs, quantize, int_type, *x, *scale) && zero_point_fits(zero_point, *scale))
    return true;
  reason = "parameter shapes outside the GPU quantization kernel";
  return false;
}

OpFactory quantize_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 2)) return nullptr;
    const QuantAttrs attrs = parse_quant_attrs(q.info, true);
    if (attrs.precision != DataType::Undefined && attrs.precision != DataType::Float32) {
      reason = "no GPU kernel dividing in " + type_name(attrs.precision);
      return nullptr;
    }
    const DataType out = quantize_output_type(
        attrs.output_dtype, q.info.has_input(2) ? std::optional(q.input_types[2]) : std::nullopt);
    if (!packed_bits(out)) {
      reason = "no GPU kernel quantizing to " + type_name(out);
      return nullptr;
    }
    if (!static_shapes_covered(q, attrs, true, out, reason)) return nullptr;
    return quantize_linear(attrs, true, out);
  };
}

OpFactory dequantize_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    // Float16 scales and outputs arrive as float32 here (ops/float32_compute.h).
    if (!inputs_are(q, {DataType::Float32}, reason, 1, 1)) return nullptr;
    const QuantAttrs attrs = parse_quant_attrs(q.info, false);
    if (attrs.output_dtype != DataType::Undefined && attrs.output_dtype != DataType::Float32 &&
        attrs.output_dtype != DataType::Float16) {
      reason = "no GPU kernel dequantizing to " + type_name(attrs.output_dtype);
      return nullptr;
    }
    const DataType in = q.input_types[0];
    if (!packed_bits(in) || (q.info.has_input(2) && q.input_types[2] != in)) {
      reason = "no GPU kernel dequantizing " + type_name(in);
      return nullptr;
    }
    if (!static_shapes_covered(q, attrs, false, in, reason)) return nullptr;
    return quantize_linear(attrs, false, in);
  };
}

// y = saturate(round_half_even(x / scale) + zero_point) to uint8, with scale and zero point from
// x's range (and 0), all on the device.
RecordFn dynamic_quantize_linear() {
  return [](OpRecorder& r) {
    const Shape& shape = r.shape(0);
    if (shape.element_count() > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit indexing");
    const auto count = static_cast<uint32_t>(shape.element_count());
    // The parameters' pass folds every chunk's range in one invocation.
    if (DynamicQuantizeParams::chunks(count) > kShaderLoopBudget)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "more chunks than the shader's loop budget");
    const Buffer& x = r.buffer(0);
    const Buffer& ranges =
        r.scratch(std::max<size_t>(DynamicQuantizeParams::chunks(count), 1) * 2 * sizeof(float));
    const Buffer& scale = r.output(1, DataType::Float32, Shape{});
    const Buffer& zero_point = r.output(2, DataType::UInt8, Shape{});
    const Buffer& y = r.output(0, DataType::UInt8, shape);
    r.kernel<DynamicQuantizeParams>().record(r.cmd(), r.arena(), count, x, ranges, scale,
                                             zero_point);
    QuantizePushConstants pc;  // per tensor: every parameter stride 0
    pc.quantize = 1;
    pc.count = count;
    pc.bits = 8;
    pc.has_zero_point = 1;
    pc.lo = 0;
    pc.hi = 255;
    r.kernel<QuantizeLinear>().record(r.cmd(), r.arena(), pc, x, scale, zero_point, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(quantize_linear);
void register_quantize_linear_ops(OpTable& t) {
  t.add("QuantizeLinear", quantize_factory());
  t.add("DequantizeLinear", dequantize_factory());
  t.add("DynamicQuantizeLinear",
        [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
          if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
          return dynamic_quantize_linear();
        });
}

}  // namespace kiln::gpu_compute
