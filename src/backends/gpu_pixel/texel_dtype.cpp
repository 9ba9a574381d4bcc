#include "backends/gpu_pixel/texel_dtype.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "kiln/error.h"
#include "kiln/float_types.h"

namespace kiln::gpu_pixel {
namespace {

constexpr DataType kTexelDtypes[] = {DataType::Float32, DataType::Float16, DataType::Bool,
                                     DataType::Int8,    DataType::UInt8,   DataType::Int16,
                                     DataType::UInt16};

template <class T, class F>
void each_value(std::span<const float> values, std::span<std::byte> out, F convert) {
  check(out.size() == values.size() * sizeof(T),
        "OpenGL ES download: the destination does not match the tensor's elements");
  auto* dst = reinterpret_cast<T*>(out.data());
  for (size_t i = 0; i < values.size(); ++i) dst[i] = convert(values[i]);
}

// A float16 held as a float back to its bits: every float16 converts to float exactly (a NaN
// keeps its payload in the top of the float's mantissa), so this is the inverse, NaN payloads
// included. Float16(float) forces a NaN's quiet bit, which would change a signalling NaN's bits.
Float16 half_of_texel(float v) {
  const auto bits = std::bit_cast<uint32_t>(v);
  if ((bits & 0x7fffffffu) <= 0x7f800000u) return Float16(v);
  uint32_t payload = (bits >> 13) & 0x3ffu;
  if (payload == 0) payload = 0x200u;  // a float NaN no float16 made: quiet, not infinity
  return Float16::from_bits(static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7c00u | payload));
}

template <class T>
void widen(const T* src, std::vector<float>& out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(src[i]);
}

}  // namespace

bool texel_holds(DataType dtype, int mantissa_bits) {
  // An integer n is exact when |n| <= 2^(mantissa_bits + 1); float16 needs 10 significand bits
  // and its exponent range, which both texture formats have.
  switch (dtype) {
    case DataType::Float32:
    case DataType::Float16:
    case DataType::Bool:
      return true;
    case DataType::Int8:
    case DataType::UInt8:
      return mantissa_bits >= 7;
    case DataType::Int16:
      return mantissa_bits >= 14;
    case DataType::UInt16:
      return mantissa_bits >= 15;
    default:
      return false;
  }
}

std::span<const DataType> texel_dtypes() { return kTexelDtypes; }

std::vector<float> to_texel_values(const Tensor& host) {
  std::vector<float> out(static_cast<size_t>(host.element_count()));
  switch (host.dtype()) {
    case DataType::Float32:
      if (!out.empty()) std::memcpy(out.data(), host.data<float>(), out.size() * sizeof(float));
      break;
    case DataType::Float16: {
      const Float16* src = host.data<Float16>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(src[i]);
      break;
    }
    case DataType::Bool: {
      const bool* src = host.data<bool>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = src[i] ? 1.0f : 0.0f;
      break;
    }
    case DataType::Int8:
      widen(host.data<int8_t>(), out);
      break;
    case DataType::UInt8:
      widen(host.data<uint8_t>(), out);
      break;
    case DataType::Int16:
      widen(host.data<int16_t>(), out);
      break;
    case DataType::UInt16:
      widen(host.data<uint16_t>(), out);
      break;
    default:
      throw Error(std::string("OpenGL ES textures do not hold ") +
                  std::string(dtype_name(host.dtype())) + " tensors");
  }
  return out;
}

void from_texel_values(std::span<const float> values, DataType dtype, std::span<std::byte> out) {
  // Kernels write only values of the dtype, so the integer conversions are exact; the casts
  // below are what a float that is already an in-range integer needs.
  switch (dtype) {
    case DataType::Float32:
      check(out.size() == values.size() * sizeof(float),
            "OpenGL ES download: the destination does not match the tensor's elements");
      if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
      return;
    case DataType::Float16:
      return each_value<Float16>(values, out, half_of_texel);
    case DataType::Bool:
      return each_value<bool>(values, out, [](float v) { return v != 0.0f; });
    case DataType::Int8:
      return each_value<int8_t>(values, out, [](float v) { return static_cast<int8_t>(v); });
    case DataType::UInt8:
      return each_value<uint8_t>(values, out, [](float v) { return static_cast<uint8_t>(v); });
    case DataType::Int16:
      return each_value<int16_t>(values, out, [](float v) { return static_cast<int16_t>(v); });
    case DataType::UInt16:
      return each_value<uint16_t>(values, out, [](float v) { return static_cast<uint16_t>(v); });
    default:
      throw Error(std::string("OpenGL ES textures do not hold ") + std::string(dtype_name(dtype)) +
                  " tensors");
  }
}

}  // namespace kiln::gpu_pixel
