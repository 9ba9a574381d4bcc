#include "cast_sources.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace kiln::testing {
namespace {

template <class T>
Tensor from_bits(DataType dt, const std::vector<T>& bits) {
  Tensor t = Tensor::zeros(dt, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.mutable_raw_data(), bits.data(), bits.size() * sizeof(T));
  return t;
}

template <class T>
Tensor vector_of(const std::vector<T>& values) {
  return Tensor::from_data<T>({static_cast<int64_t>(values.size())}, values);
}

// Codes first .. first + count - 1 of a one-byte type.
Tensor every_byte(DataType dt, int first, int count) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < count; ++i) bytes.push_back(static_cast<uint8_t>(first + i));
  return from_bits(dt, bytes);
}

}  // namespace

Tensor cast_source(DataType dt) {
  const float inf = std::numeric_limits<float>::infinity();
  const double dinf = std::numeric_limits<double>::infinity();
  switch (dt) {
    case DataType::Float32:
      return vector_of<float>(
          {0.0f, -0.0f, 2.5f, -2.5f, 0.99f, -0.99f, 1e-30f, std::nanf(""), inf, -inf, 2147483520.0f,
           2147483648.0f, -2147483648.0f, -2147483904.0f, 3e9f, -3e9f, 9.2233715e18f, 9.223372e18f,
           -9.223372e18f, -9.2233725e18f, 1e19f, 16777217.0f, 123456.75f,
           // float16's edges: the largest finite and the first that rounds to infinity,
           // the smallest subnormal and the tie below it, a tie to even, a subnormal.
           65519.0f, 65520.0f, 5.9604645e-8f, 2.9802322e-8f, 1.00048828125f, 3.0517578e-5f,
           -1.00146484375f,
           // float8's: E4M3FN's largest (448), the tie above it that rounds down (464) and the
           // first past it (480); E4M3FNUZ's largest (240) and a tie beyond (248); E5M2's
           // largest (57344) and the tie to 65536; a subnormal tie of E4M3FN (2^-10).
           448.0f, -464.0f, 480.0f, 240.0f, 248.0f, 57344.0f, -61440.0f, 0.0009765625f,
           0.0029296875f,
           // float4's: the tie between 4 and 6 (to 4), 0.75 (to 1), 0.25 (to 0), beyond 6.
           5.0f, -0.75f, 0.25f, 7.0f,
           // float8e8m0's: 2^-127 and just above it, a float subnormal, 3 (up 4, down 2,
           // nearest 4), 1.25 (nearest 1), beyond 2^127.
           5.877472e-39f, 6e-39f, 1e-40f, 3.0f, 1.25f, 2.6e38f,
           // the 4- and 2-bit integers keep the low bits: -9 -> 7 (int4), 17 -> 1 (uint4).
           -9.0f, 17.0f, 300.0f, -1.0f});
    case DataType::Float64:
      return vector_of<double>(
          {0.0, -0.0, 2.5, -2.5, std::nan(""), dinf, -dinf, 1e300, -1e300, 1e-300, 5e-324,
           // float32's: the largest, the first that rounds to infinity, a tie to even, just
           // above that tie (one rounding, not two), a float subnormal.
           3.4028234663852886e38, 3.4028235677973366e38, 1.0 + std::ldexp(1.0, -24),
           1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50), 1e-40,
           // float16's largest and the tie above it, just above that tie; float8's ties.
           65504.0, 65520.0, 65520.0 + std::ldexp(1.0, -30), 1.00048828125 + std::ldexp(1.0, -40),
           464.0, 464.0000001, 61440.0,
           // integer ranges: int32's and int64's ends and beyond, uint64's range.
           2147483647.9, 2147483648.0, -2147483648.9, -2147483649.0, 9223372036854775808.0,
           -9223372036854775808.0, -9223372036854777856.0, 18446744073709549568.0,
           18446744073709551616.0, 4294967296.5, 255.9, 300.0, -1.0, -9.0, 17.0,
           // float8e8m0's: 2^-127, just above it, 3, beyond 2^127.
           std::ldexp(1.0, -127), std::ldexp(1.0, -127) * 1.0000001, 3.0, 2e38});
    case DataType::Int32:
      return Tensor::from_data<int32_t>(
          {11}, {0, 1, -1, 7, -7, 16777217, -16777219, 2147483647, -2147483647 - 1, 255, 256});
    case DataType::Int64:
      return Tensor::from_data<int64_t>(
          {17},
          {0, 1, -1, 7, -300, int64_t{1} << 40, (int64_t{1} << 53) + 1, -((int64_t{1} << 53) + 3),
           (int64_t{1} << 40) + (int64_t{1} << 16) + 1, (int64_t{1} << 24) + 1,
           std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 4294967296 + 5,
           -4294967291, (int64_t{1} << 62) + (int64_t{1} << 38) + 1, -9, 17});
    case DataType::UInt64:
      return Tensor::from_data<uint64_t>(
          {10},
          {0, 1, 255, 65536 + 7, uint64_t{1} << 63, ~uint64_t{0}, (uint64_t{1} << 53) + 1,
           (uint64_t{1} << 63) + (uint64_t{1} << 39) + 1, (uint64_t{1} << 24) + 1, 4294967295});
    case DataType::UInt32:
      return Tensor::from_data<uint32_t>(
          {8}, {0, 1, 255, 256, 2147483648u, 4294967295u, 16777217, 65535});
    case DataType::Int16:
      return Tensor::from_data<int16_t>({9}, {0, 1, -1, 127, 128, -129, 32767, -32768, -9});
    case DataType::UInt16:
      return Tensor::from_data<uint16_t>({7}, {0, 1, 255, 256, 32768, 65535, 17});
    case DataType::Int8:
      return every_byte(dt, 0, 256);
    case DataType::UInt8:
      return every_byte(dt, 0, 256);
    case DataType::Float16:
    case DataType::BFloat16:
      // Zeros, subnormals, the largest finite, infinities, NaNs (one with a payload), values
      // that are and are not integers, and float8's edges (448, 464, 480, 57344, 61440).
      return from_bits(
          dt, dt == DataType::Float16
                  ? std::vector<uint16_t>{0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x7c00,
                                          0xfc00, 0x7e00, 0x7d01, 0x3e00, 0xc100, 0x5a40, 0x3555,
                                          0x5f00, 0xdf40, 0x5f80, 0x7b00, 0x7b80}
                  : std::vector<uint16_t>{0x0000, 0x8000, 0x0001, 0x807f, 0x7f7f, 0xff7f, 0x7f80,
                                          0xff80, 0x7fc0, 0x7fa1, 0x3fc0, 0xc020, 0x4f00, 0x3eab,
                                          0x43e0, 0xc3e8, 0x43f0, 0x4760});
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
      return every_byte(dt, 0, 256);
    case DataType::Float4E2M1:
      return every_byte(dt, 0, 16);  // the sign is bit 3
    case DataType::UInt4:
      return every_byte(dt, 0, 16);
    case DataType::Int4:
      return every_byte(dt, -8, 16);  // sign-extended in kiln's memory
    case DataType::UInt2:
      return every_byte(dt, 0, 4);
    case DataType::Int2:
      return every_byte(dt, -2, 4);
    default:
      return Tensor::from_data<bool>({7}, {true, false, false, true, true, true, false});
  }
}

}  // namespace kiln::testing
