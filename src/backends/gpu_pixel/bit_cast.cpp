// BitCast as a draw between dtypes of one width that textures hold: float32, int32 and uint32
// (RGBA32F, RGBA32I, RGBA32UI: the bits move with floatBitsToUint and friends), int8, uint8 and
// bool, and int16 and uint16 (values in the float textures: the two's complement bits of the
// value, read back as the other dtype; any nonzero byte reads as true, as on the CPU). A bit cast
// to the input's own dtype is a view. Other dtypes (int64 and float64, float16 and int16, the
// sub-byte types) stay on the CPU.
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"
#include "opdefs/cast.h"

namespace kiln::gpu_pixel {
namespace {

// FROM_<dtype> picks how an element's bits are read (the small integers' from their float value),
// TO_<dtype> how they are written; the program's values_variant suits the output's texture.
constexpr const char* kShader = R"(
#if defined(FROM_FLOAT32)
uniform highp sampler2D x;
#elif defined(FROM_INT32)
uniform highp isampler2D x;
#elif defined(FROM_UINT32)
uniform highp usampler2D x;
#else
uniform highp sampler2D x;
#endif
uniform int x_width;

VALUE element(int i) {
#if defined(FROM_FLOAT32)
  uint bits = floatBitsToUint(fetch_element(x, x_width, i));
#elif defined(FROM_INT32)
  uint bits = uint(fetch_element(x, x_width, i));
#elif defined(FROM_UINT32)
  uint bits = fetch_element(x, x_width, i);
#else
  uint bits = uint(int(fetch_element(x, x_width, i)));  // an exact integer's two's complement
#endif
#if defined(TO_FLOAT32)
  return uintBitsToFloat(bits);
#elif defined(TO_INT32)
  return int(bits);
#elif defined(TO_UINT32)
  return bits;
#elif defined(TO_BOOL)
  return (bits & 0xffu) != 0u ? 1.0 : 0.0;
#elif defined(TO_INT8)
  return float((int(bits) << 24) >> 24);
#elif defined(TO_UINT8)
  return float(bits & 0xffu);
#elif defined(TO_INT16)
  return float((int(bits) << 16) >> 16);
#else
  return float(bits & 0xffffu);
#endif
}
)";

// The define naming `dtype` in the shader, or nullptr for a dtype the draw does not take.
const char* dtype_define(DataType dtype, const char* prefix, std::string& out) {
  const char* name = nullptr;
  switch (dtype) {
    case DataType::Float32:
      name = "FLOAT32";
      break;
    case DataType::Int32:
      name = "INT32";
      break;
    case DataType::UInt32:
      name = "UINT32";
      break;
    case DataType::Bool:
      name = "BOOL";
      break;
    case DataType::Int8:
      name = "INT8";
      break;
    case DataType::UInt8:
      name = "UINT8";
      break;
    case DataType::Int16:
      name = "INT16";
      break;
    case DataType::UInt16:
      name = "UINT16";
      break;
    default:
      return nullptr;
  }
  out = std::string(prefix) + name;
  return out.c_str();
}

// The groups of dtypes the draw reinterprets among: one width each.
int group_of(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
    case DataType::Int32:
    case DataType::UInt32:
      return 32;
    case DataType::Bool:
    case DataType::Int8:
    case DataType::UInt8:
      return 8;
    case DataType::Int16:
    case DataType::UInt16:
      return 16;
    default:
      return 0;
  }
}

bool bit_cast_supported(DataType from, DataType to) {
  return group_of(from) != 0 && group_of(from) == group_of(to);
}

class BitCast {
 public:
  explicit BitCast(Context& context) : context_(context) {}

  // Draws y = x's bits as `to`. kiln::Error for a pair the draw does not take, or textures not
  // in the formats their dtypes live in (float32 needs RGBA32F: RGBA16F drops bits).
  void record(DataType from, DataType to, const TextureTensor& x, TextureTensor& y) const {
    const std::string where = "BitCast from " + std::string(dtype_name(from)) + " to " +
                              std::string(dtype_name(to)) + " on OpenGL ES";
    check(bit_cast_supported(from, to), where + ": not a pair of dtypes the draw takes");
    auto format_of = [](DataType t) { return texture_format_of(t, TextureFormat::Rgba32F); };
    auto holds = [&](const TextureTensor& t, DataType dtype) {
      return group_of(dtype) == 32 ? t.format() == format_of(dtype) : !is_integer(t.format());
    };
    check(holds(x, from) && holds(y, to),
          where + ": a tensor is not in the texture its dtype needs (float32 bits need RGBA32F)");
    check(x.element_count() == y.element_count(), where + ": input and output sizes differ");
    if (y.element_count() == 0) return;
    std::string from_define, to_define;
    ProgramVariant variant = values_variant(y.format());
    variant.add(true, dtype_define(from, "FROM_", from_define));
    variant.add(true, dtype_define(to, "TO_", to_define));
    const Program& program = context_.programs().get("bit_cast", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(context_, program, y, inputs);
  }

 private:
  Context& context_;
};

RecordFn bit_cast_factory(const DevicePlacementQuery& q, std::string& reason) {
  const DataType to = parse_cast_target(q.info);
  const DataType from = q.input_types.empty() ? DataType::Undefined : q.input_types[0];
  if (!texel_inputs(q, reason)) return nullptr;
  if (group_of(to) == 0 ||
      (from != DataType::Undefined && from != to && !bit_cast_supported(from, to))) {
    reason = "BitCast from " + std::string(dtype_name(from)) + " to " +
             std::string(dtype_name(to)) +
             " stays on the CPU (the draw reinterprets float32, int32 and uint32; int8, uint8 "
             "and bool; int16 and uint16)";
    return nullptr;
  }
  return [to](OpRecorder& r) {
    const DataType from = r.dtype(0);
    if (from == to) {
      r.output_view(0, 0, r.shape(0));
      return;
    }
    if (!bit_cast_supported(from, to))
      throw RunOnCpu(RunTimeCause::InputKind, "a pair of dtypes the draw does not reinterpret");
    const TextureTensor& x = r.texture(0);
    if (from == DataType::Float32 && x.format() != TextureFormat::Rgba32F)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "float32 textures of this device drop bits");
    TextureTensor& y = r.output(0, r.shape(0), to);
    if (to == DataType::Float32 && y.format() != TextureFormat::Rgba32F)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "float32 textures of this device drop bits");
    r.kernel<BitCast>().record(from, to, x, y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(bit_cast);
void register_bit_cast_ops(OpTable& t) { t.add("BitCast", bit_cast_factory); }

}  // namespace kiln::gpu_pixel
