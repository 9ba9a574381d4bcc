// Conversion between ONNX's packed storage of sub-byte element types and kiln's
// one-element-per-byte layout (see float_types.h).
//
// ONNX packs int4, uint4 and float4e2m1 two to a byte, the first element in the low nibble, and
// int2 and uint2 four to a byte, the first element in the lowest two bits. The unused high bits
// of a final, partly filled byte are zero.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kiln/dtype.h"

namespace kiln {

// True for the types ONNX stores packed: Int4, UInt4, Float4E2M1, Int2, UInt2.
bool is_subbyte_dtype(DataType t);

// Bytes that `count` elements of type `t` take in an ONNX tensor's raw data: packed for the
// sub-byte types, count * dtype_size(t) for the other fixed-size types. Throws kiln::Error for
// String and Undefined, which have no raw byte layout.
size_t packed_byte_size(DataType t, size_t count);

// Expands `count` packed elements into one byte each at `out`. Int4 and Int2 are sign-extended
// (0xF -> 0xFF, i.e. -1); UInt4, UInt2 and Float4E2M1 are zero-extended (float4 keeps its sign
// in bit 3, as Float4E2M1::bits does). `packed` must hold packed_byte_size(t, count) bytes.
// Throws kiln::Error if `t` is not a sub-byte type.
void unpack_subbyte(DataType t, const uint8_t* packed, size_t count, uint8_t* out);

// The inverse of unpack_subbyte: packs `count` one-per-byte elements into
// packed_byte_size(t, count) bytes at `out`, keeping only each element's low 4 (or 2) bits and
// zeroing the padding. Throws kiln::Error if `t` is not a sub-byte type.
void pack_subbyte(DataType t, const uint8_t* unpacked, size_t count, uint8_t* out);

}  // namespace kiln
