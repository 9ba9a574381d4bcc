// Requantization of an exact int32 sum, shared by qlinear_matmul.comp and conv_integer.comp
// (needs GL_EXT_shader_explicit_arithmetic_types_int64): the host gives each multiplier as an
// integer mantissa and a right shift (multiplier = mantissa * 2^-shift, exact, requantize.h), so
//   saturate(round_half_even(acc * multiplier + y_zero), lo, hi)
// is rounded exactly in 64-bit integers, as the CPU's double arithmetic does.
int requantize(int acc, int mantissa, int shift, int y_zero, int lo, int hi) {
  const int64_t v = int64_t(acc) * int64_t(mantissa) + (int64_t(y_zero) << shift);
  if (shift == 0) return int(clamp(v, int64_t(lo), int64_t(hi)));
  int64_t q = v >> shift;  // floor
  const int64_t rest = v - (q << shift);
  const int64_t midpoint = int64_t(1) << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (q & int64_t(1)) != int64_t(0))) q += int64_t(1);
  return int(clamp(q, int64_t(lo), int64_t(hi)));
}

// Byte `index` of a word array's word, as a signed or unsigned 8-bit value.
int byte_of(uint word, uint index, bool is_signed) {
  const uint v = (word >> (8u * (index & 3u))) & 0xFFu;
  return is_signed ? (int(v << 24) >> 24) : int(v);
}

