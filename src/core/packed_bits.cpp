#include "core/packed_bits.h"

#include <string>

#include "kiln/error.h"

namespace kiln {
namespace {

// Bits one element takes in packed storage; 0 for the types that are not packed.
int packed_bit_width(DataType t) {
  switch (t) {
    case DataType::Int4:
    case DataType::UInt4:
    case DataType::Float4E2M1:
      return 4;
    case DataType::Int2:
    case DataType::UInt2:
      return 2;
    default:
      return 0;
  }
}

int require_subbyte(DataType t, const char* what) {
  const int width = packed_bit_width(t);
  check(width != 0,
        std::string(what) + ": " + std::string(dtype_name(t)) + " is not a packed sub-byte type");
  return width;
}

// Widens a `width`-bit field to a byte, copying its top bit up when the type is signed.
inline uint8_t widen(uint8_t field, int width, bool sign_extend) {
  if (!sign_extend) return field;
  const uint8_t top = static_cast<uint8_t>(1u << (width - 1));
  return static_cast<uint8_t>((field ^ top) - top);
}

}  // namespace

bool is_subbyte_dtype(DataType t) { return packed_bit_width(t) != 0; }

size_t packed_byte_size(DataType t, size_t count) {
  switch (packed_bit_width(t)) {
    case 4:
      return count / 2 + count % 2;
    case 2:
      return count / 4 + (count % 4 != 0 ? 1 : 0);
    default:
      break;
  }
  check(t != DataType::String && t != DataType::Undefined,
        "packed_byte_size: " + std::string(dtype_name(t)) + " has no raw byte layout");
  return count * dtype_size(t);
}

void unpack_subbyte(DataType t, const uint8_t* packed, size_t count, uint8_t* out) {
  const int width = require_subbyte(t, "unpack_subbyte");
  const bool sign_extend = t == DataType::Int4 || t == DataType::Int2;
  const int per_byte = 8 / width;
  const uint8_t mask = static_cast<uint8_t>((1u << width) - 1);
  for (size_t i = 0; i < count; ++i) {
    const int shift = static_cast<int>(i % per_byte) * width;
    const uint8_t field = static_cast<uint8_t>((packed[i / per_byte] >> shift) & mask);
    out[i] = widen(field, width, sign_extend);
  }
}

void pack_subbyte(DataType t, const uint8_t* unpacked, size_t count, uint8_t* out) {
  const int width = require_subbyte(t, "pack_subbyte");
  const int per_byte = 8 / width;
  const uint8_t mask = static_cast<uint8_t>((1u << width) - 1);
  const size_t bytes = packed_byte_size(t, count);
  for (size_t b = 0; b < bytes; ++b) {
    uint8_t byte = 0;
    const size_t first = b * per_byte;
    for (int k = 0; k < per_byte && first + k < count; ++k) {
      byte |= static_cast<uint8_t>((unpacked[first + k] & mask) << (k * width));
    }
    out[b] = byte;
  }
}

}  // namespace kiln
