#include "backends/gpu_pixel/texel_dtype.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>

#include "kiln/error.h"
#include "kiln/float_types.h"

namespace kiln::gpu_pixel {
namespace {

constexpr DataType kTexelDtypes[] = {
    DataType::Float32,        DataType::Float16,        DataType::BFloat16,
    DataType::Bool,           DataType::Int8,           DataType::UInt8,
    DataType::Int16,          DataType::UInt16,         DataType::Int4,
    DataType::UInt4,          DataType::Int2,           DataType::UInt2,
    DataType::Float8E4M3FN,   DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
    DataType::Float8E5M2FNUZ, DataType::Int32,          DataType::UInt32,
    DataType::Int64};
constexpr size_t kIntegerTexelDtypes = 3;  // the last three

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

// A bfloat16 is the top half of a float32's bits, so a float holding one gives it back exactly.
BFloat16 bfloat16_of_texel(float v) {
  return BFloat16::from_bits(static_cast<uint16_t>(std::bit_cast<uint32_t>(v) >> 16));
}

template <class T>
void widen(const T* src, std::vector<float>& out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(src[i]);
}

// A float8 value held as a float back to its code. Without saturation the constructor maps every
// value the type has to its own code, infinity (E5M2's) and NaN included.
template <class T>
T float8_of_texel(float v) {
  return T(v, /*saturate=*/false);
}

// The 4- and 2-bit integers, one per byte, through their int value.
template <class T>
void widen_small(const T* src, std::vector<float>& out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(static_cast<int>(src[i]));
}

}  // namespace

bool texel_holds(DataType dtype, int mantissa_bits) {
  if (in_integer_texture(dtype)) return true;
  // An integer n is exact when |n| <= 2^(mantissa_bits + 1); float16 needs 10 significand bits
  // and its exponent range, which both texture formats have.
  switch (dtype) {
    case DataType::Float32:
    case DataType::Float16:
    case DataType::Bool:
    case DataType::Int4:
    case DataType::UInt4:
    case DataType::Int2:
    case DataType::UInt2:
      return true;
    case DataType::BFloat16:  // float32's exponent range: RGBA16F does not hold it
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
      return mantissa_bits >= 23;
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

std::span<const DataType> float_texel_dtypes() {
  return std::span<const DataType>(kTexelDtypes)
      .first(std::size(kTexelDtypes) - kIntegerTexelDtypes);
}

bool in_integer_texture(DataType dtype) {
  return dtype == DataType::Int32 || dtype == DataType::UInt32 || dtype == DataType::Int64;
}

TextureFormat texture_format_of(DataType dtype, TextureFormat float_format) {
  if (dtype == DataType::Int32 || dtype == DataType::Int64) return TextureFormat::Rgba32I;
  return dtype == DataType::UInt32 ? TextureFormat::Rgba32UI : float_format;
}

int words_per_element(DataType dtype) { return dtype == DataType::Int64 ? 2 : 1; }

Shape word_shape(const Shape& shape, DataType dtype) {
  if (dtype != DataType::Int64) return shape;
  Shape words = shape;
  words.push_back(2);
  return words;
}

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
    case DataType::BFloat16:
      widen(host.data<BFloat16>(), out);
      break;
    case DataType::Float8E4M3FN:
      widen(host.data<Float8E4M3FN>(), out);
      break;
    case DataType::Float8E4M3FNUZ:
      widen(host.data<Float8E4M3FNUZ>(), out);
      break;
    case DataType::Float8E5M2:
      widen(host.data<Float8E5M2>(), out);
      break;
    case DataType::Float8E5M2FNUZ:
      widen(host.data<Float8E5M2FNUZ>(), out);
      break;
    case DataType::Int4:
      widen_small(host.data<Int4>(), out);
      break;
    case DataType::UInt4:
      widen_small(host.data<UInt4>(), out);
      break;
    case DataType::Int2:
      widen_small(host.data<Int2>(), out);
      break;
    case DataType::UInt2:
      widen_small(host.data<UInt2>(), out);
      break;
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
    case DataType::BFloat16:
      return each_value<BFloat16>(values, out, bfloat16_of_texel);
    case DataType::Float8E4M3FN:
      return each_value<Float8E4M3FN>(values, out, float8_of_texel<Float8E4M3FN>);
    case DataType::Float8E4M3FNUZ:
      return each_value<Float8E4M3FNUZ>(values, out, float8_of_texel<Float8E4M3FNUZ>);
    case DataType::Float8E5M2:
      return each_value<Float8E5M2>(values, out, float8_of_texel<Float8E5M2>);
    case DataType::Float8E5M2FNUZ:
      return each_value<Float8E5M2FNUZ>(values, out, float8_of_texel<Float8E5M2FNUZ>);
    case DataType::Int4:
      return each_value<Int4>(values, out, [](float v) { return Int4(static_cast<int>(v)); });
    case DataType::UInt4:
      return each_value<UInt4>(values, out, [](float v) { return UInt4(static_cast<int>(v)); });
    case DataType::Int2:
      return each_value<Int2>(values, out, [](float v) { return Int2(static_cast<int>(v)); });
    case DataType::UInt2:
      return each_value<UInt2>(values, out, [](float v) { return UInt2(static_cast<int>(v)); });
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
