// Cast and CastLike on the GPU, matching the CPU's Cast bit for bit (truncation toward zero; NaN
// and out-of-range floats become the integer type's minimum; integers wrap; "!= 0" to bool;
// ONNX's rounding and saturation for the narrow floats). Between float32, float16, bfloat16,
// int32, int64 and bool: shaders/cast.comp, which needs no shaderInt64; between any other pair
// of fixed-size types: shaders/cast_wide.comp, which does. A cast to the input's own type is a
// view, and so is BitCast between types of one byte or more of equal size (their bytes are the
// same).
//
// The kernels (cast.h; Attention also converts its 16-bit operands with Cast) and the adapter
// that places ONNX nodes on them.
#include "backends/gpu_compute/cast.h"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "kiln/dtype.h"
#include "kiln/error.h"
#include "opdefs/cast.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// The shader's type codes; the order is part of the shader interface.
enum class CastType : uint32_t { Float32, Int32, Int64, Bool, Float16, BFloat16 };

// The code of `dtype`, or nullopt for a type the shader does not convert.
std::optional<CastType> cast_type(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
      return CastType::Float32;
    case DataType::Int32:
      return CastType::Int32;
    case DataType::Int64:
      return CastType::Int64;
    case DataType::Bool:
      return CastType::Bool;
    case DataType::Float16:
      return CastType::Float16;
    case DataType::BFloat16:
      return CastType::BFloat16;
    default:
      return std::nullopt;
  }
}

struct CastPushConstants {
  uint32_t count = 0;
  uint32_t from = 0;
  uint32_t to = 0;
};
static_assert(sizeof(CastPushConstants) <= kMaxPushConstantBytes);

// Must match cast_wide.comp's Params; types are ONNX's codes (DataType's values).
struct WideCastPushConstants {
  uint32_t count = 0;
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t saturate = 1;
  uint32_t round_mode = 0;  // E8M0Rounding
};
static_assert(sizeof(WideCastPushConstants) <= kMaxPushConstantBytes);

// Checked before the pipeline exists: a device without shaderInt64 cannot create it.
Device& with_int64(Device& device) {
  check(device.info().has_int64, "Cast on the GPU between these types needs shaderInt64");
  return device;
}

}  // namespace

Cast::Cast(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::cast(), 2, sizeof(CastPushConstants), workgroup_size}) {}

bool Cast::converts(DataType dtype) { return cast_type(dtype).has_value(); }

void Cast::record(VkCommandBuffer cmd, DescriptorArena& arena, DataType from, const Buffer& in,
                  DataType to, const Buffer& out, uint64_t count) const {
  const std::optional<CastType> f = cast_type(from), t = cast_type(to);
  check(f && t, "Cast on the GPU: no kernel from " + std::string(dtype_name(from)) + " to " +
                    std::string(dtype_name(to)));
  if (count == 0) return;
  // int64 elements are two words, and the shader indexes words in 32 bits.
  check(count < (uint64_t{1} << 31),
        "Cast on the GPU: " + std::to_string(count) + " elements exceed 32-bit indexing");
  const CastPushConstants pc{static_cast<uint32_t>(count), static_cast<uint32_t>(*f),
                             static_cast<uint32_t>(*t)};
  // A bool output is written a word (4 elements) per invocation, a 16-bit float one 2.
  const bool half = *t == CastType::Float16 || *t == CastType::BFloat16;
  const uint64_t invocations =
      *t == CastType::Bool ? (count + 3) / 4 : (half ? (count + 1) / 2 : count);
  const Buffer* buffers[] = {&in, &out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

WideCast::WideCast(Device& device, uint32_t workgroup_size)
    : device_(with_int64(device)),
      pipeline_(device, PipelineDesc{shaders::cast_wide(), 2, sizeof(WideCastPushConstants),
                                     workgroup_size}) {}

bool WideCast::converts(DataType dtype) {
  return dtype != DataType::Undefined && dtype != DataType::String &&
         dtype != DataType::Complex64 && dtype != DataType::Complex128 &&
         is_valid_dtype(static_cast<int32_t>(dtype));
}

void WideCast::record(VkCommandBuffer cmd, DescriptorArena& arena, DataType from, const Buffer& in,
                      DataType to, const Buffer& out, uint64_t count,
                      const CastOptions& options) const {
  check(converts(from) && converts(to), "Cast on the GPU: no kernel from " +
                                            std::string(dtype_name(from)) + " to " +
                                            std::string(dtype_name(to)));
  if (count == 0) return;
  // 8-byte elements are two words, and the shader indexes words in 32 bits.
  check(count < (uint64_t{1} << 31),
        "Cast on the GPU: " + std::to_string(count) + " elements exceed 32-bit indexing");
  const WideCastPushConstants pc{static_cast<uint32_t>(count), static_cast<uint32_t>(from),
                                 static_cast<uint32_t>(to), options.saturate ? 1u : 0u,
                                 static_cast<uint32_t>(options.rounding)};
  // One invocation per output word, or per element of 8 bytes.
  const uint64_t size = dtype_size(to);
  const uint64_t invocations = size >= 4 ? count : (count + 4 / size - 1) / (4 / size);
  const Buffer* buffers[] = {&in, &out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

namespace {

// ---- The adapter -----------------------------------------------------------------------------

// Every fixed-size type: the types a Cast node can take and make on the GPU.
const std::initializer_list<DataType> kCastable = {
    DataType::Float32,    DataType::Float16,        DataType::BFloat16,
    DataType::Float64,    DataType::Int8,           DataType::Int16,
    DataType::Int32,      DataType::Int64,          DataType::UInt8,
    DataType::UInt16,     DataType::UInt32,         DataType::UInt64,
    DataType::Bool,       DataType::Float8E4M3FN,   DataType::Float8E4M3FNUZ,
    DataType::Float8E5M2, DataType::Float8E5M2FNUZ, DataType::Float8E8M0,
    DataType::Float4E2M1, DataType::Int4,           DataType::UInt4,
    DataType::Int2,       DataType::UInt2};

void record_cast(OpRecorder& r, DataType to, const CastOptions& options) {
  const DataType from = r.dtype(0);
  if (from == to) {
    r.output_view(0, 0, r.shape(0));
    return;
  }
  const bool narrow_set = Cast::converts(from) && Cast::converts(to);
  if (!narrow_set && !r.device().info().has_int64)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
  const Buffer& in = r.buffer(0);
  const Buffer& out = r.output(0, to, r.shape(0));
  const auto count = static_cast<uint64_t>(r.shape(0).element_count());
  if (narrow_set) {
    r.kernel<Cast>().record(r.cmd(), r.arena(), from, in, to, out, count);
  } else {
    r.kernel<WideCast>().record(r.cmd(), r.arena(), from, in, to, out, count, options);
  }
}

// Whether BitCast from `from` to `to` is a view: both held as whole bytes of ONNX's width (not
// the 4- and 2-bit types, kept a byte each), of one size, and no bool made from other bytes
// (a bool byte must be 0 or 1; the CPU kernel normalises them).
bool bit_cast_is_view(DataType from, DataType to) {
  auto whole_bytes = [](DataType t) {
    return t != DataType::Undefined && t != DataType::String && t != DataType::Int4 &&
           t != DataType::UInt4 && t != DataType::Int2 && t != DataType::UInt2 &&
           t != DataType::Float4E2M1;
  };
  return whole_bytes(from) && whole_bytes(to) && dtype_size(from) == dtype_size(to) &&
         (to != DataType::Bool || from == DataType::Bool);
}

}  // namespace

KILN_GPU_COMPUTE_OPS(cast);
void register_cast_ops(OpTable& t) {
  t.add("Cast", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kCastable, reason)) return nullptr;
    const DataType to = parse_cast_target(q.info);
    if (!WideCast::converts(to)) {
      reason = "no GPU kernel casting to " + std::string(dtype_name(to));
      return nullptr;
    }
    const CastOptions options = parse_cast_options(q.info);
    return [to, options](OpRecorder& r) { record_cast(r, to, options); };
  });
  t.add("BitCast", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const DataType from = q.input_types[0];
    const auto to = static_cast<DataType>(q.info.required_int("to"));
    if (!bit_cast_is_view(from, to)) {
      reason = "no GPU kernel reinterpreting " + std::string(dtype_name(from)) + " as " +
               std::string(dtype_name(to));
      return nullptr;
    }
    return [to](OpRecorder& r) {
      if (!bit_cast_is_view(r.dtype(0), to))
        throw RunOnCpu(RunTimeCause::InputKind, "an input type BitCast cannot view");
      r.output_view(0, 0, r.shape(0), to);
    };
  });
  t.add("CastLike", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kCastable, reason)) return nullptr;
    const CastOptions options = parse_cast_options(q.info);
    return [options](OpRecorder& r) { record_cast(r, r.dtype(1), options); };
  });
}

}  // namespace kiln::gpu_compute
