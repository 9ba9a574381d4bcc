// float16 and bfloat16 to and from float32 bits, bit for bit as core/float_types.cpp converts
// (round to nearest even, NaN kept quiet with the top of its payload, float16 overflow to
// infinity). 32-bit integer operations only, so that NaN payloads and subnormals survive
// whatever the device does with float values. Shared by cast.comp and cast_wide.comp.

uint f16_to_f32_bits(uint h) {
  const uint sign = (h & 0x8000u) << 16;
  const uint e = (h >> 10) & 0x1fu;
  const uint m = h & 0x3ffu;
  if (e == 0x1fu) return sign | 0x7f800000u | (m << 13);  // infinity, or NaN with its payload
  if (e == 0u) {
    if (m == 0u) return sign;
    const int lead = findMSB(m);  // a subnormal half is a normal float
    return sign | (uint(lead - 24 + 127) << 23) | ((m ^ (1u << uint(lead))) << uint(23 - lead));
  }
  return sign | ((e + 112u) << 23) | (m << 13);
}

// Round to nearest even: `code` is the value truncated, `rest` the dropped bits, `tie` the
// weight of the first dropped bit.
uint rounded(uint code, uint rest, uint tie) {
  return code + ((rest > tie || (rest == tie && (code & 1u) != 0u)) ? 1u : 0u);
}

uint f32_bits_to_f16(uint x) {
  const uint sign = (x >> 16) & 0x8000u;
  const uint a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u | ((a >> 13) & 0x3ffu);
  if (a == 0x7f800000u) return sign | 0x7c00u;
  const int e = int(a >> 23) - 127 + 15;
  if (e >= 31) return sign | 0x7c00u;
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal
    const uint full = (a & 0x7fffffu) | 0x800000u;
    const uint s = uint(14 - e);
    return sign | rounded(full >> s, full & ((1u << s) - 1u), 1u << (s - 1u));
  }
  // A carry out of the mantissa moves to the exponent; past 65504 it lands on infinity.
  return sign | rounded((uint(e) << 10) | ((a & 0x7fffffu) >> 13), a & 0x1fffu, 0x1000u);
}

uint f32_bits_to_bf16(uint x) {
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;
  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}
