#version 450
// Cast between float32, int32, int64 and bool, bit for bit as the CPU's Cast: float to integer
// truncates toward zero, and NaN or a value outside the target's range becomes the target's
// minimum (as x86 conversions do); integer to integer wraps; anything to bool is "!= 0" (NaN is
// true, -0.0 false).
//
// No 64-bit shader arithmetic: an int64 is two little-endian 32-bit words, converted with 32-bit
// operations, so the kernel runs on devices without shaderInt64. A bool is one byte; when the
// output is bool each invocation writes 4 of them (one whole word), so writes never race.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };

// Must match CastPushConstants and CastType in cast.cpp.
layout(push_constant) uniform Params {
  uint count;  // elements
  uint from;
  uint to;
} p;

const uint F32 = 0, I32 = 1, I64 = 2, BOOL = 3;

uvec2 i64_of_int(int v) { return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u); }

uvec2 negate(uvec2 v) {
  const uint lo = ~v.x + 1u;
  return uvec2(lo, ~v.y + (lo == 0u ? 1u : 0u));
}

int f32_to_i32(float x) {
  if (isnan(x) || x < -2147483648.0 || x >= 2147483648.0) return int(0x80000000u);
  return int(x);  // truncates toward zero
}

uvec2 f32_to_i64(float x) {
  if (isnan(x) || x < -9223372036854775808.0 || x >= 9223372036854775808.0)
    return uvec2(0u, 0x80000000u);
  if (abs(x) < 2147483648.0) return i64_of_int(int(x));
  // |x| >= 2^31 is an integer: its magnitude is the 24-bit significand shifted left by 8..39.
  const uint bits = floatBitsToUint(x);
  const uint shift = ((bits >> 23) & 0xffu) - 127u - 23u;
  const uint m = (bits & 0x7fffffu) | 0x800000u;
  const uvec2 mag = shift < 32u ? uvec2(m << shift, m >> (32u - shift)) : uvec2(0u, m << (shift - 32u));
  return x < 0.0 ? negate(mag) : mag;
}

float i64_to_f32(uvec2 v) {
  const bool negative = int(v.y) < 0;
  const uvec2 mag = negative ? negate(v) : v;  // 2^63 for the minimum: still right unsigned
  float f;
  if (mag.y == 0u) {
    f = float(mag.x);
  } else {
    // Drop the low `s` bits into a sticky bit: the 32-bit value then rounds to 24 bits exactly
    // as the 64-bit one would (the sticky bit lies far below the rounding position).
    const uint s = uint(findMSB(mag.y)) + 1u;
    uint top;
    bool sticky;
    if (s == 32u) {
      top = mag.y;
      sticky = mag.x != 0u;
    } else {
      top = (mag.y << (32u - s)) | (mag.x >> s);
      sticky = (mag.x & ((1u << s) - 1u)) != 0u;
    }
    f = ldexp(float(top | (sticky ? 1u : 0u)), int(s));  // exact, unlike exp2
  }
  return negative ? -f : f;
}

uint byte_at(uint k) { return (src[k >> 2] >> ((k & 3u) * 8u)) & 0xffu; }

// Element k of the input as a bool.
bool truth(uint k) {
  switch (p.from) {
    case F32: return (src[k] & 0x7fffffffu) != 0u;
    case I32: return src[k] != 0u;
    case I64: return (src[2 * k] | src[2 * k + 1]) != 0u;
    default: return byte_at(k) != 0u;
  }
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;

  if (p.to == BOOL) {
    // Invocation i owns bool elements 4i .. 4i+3.
    if (4u * i >= p.count) return;
    uint word = 0u;
    for (uint b = 0u; b < 4u; ++b) {
      const uint k = 4u * i + b;
      if (k < p.count && truth(k)) word |= 1u << (8u * b);
    }
    dst[i] = word;
    return;
  }
  if (i >= p.count) return;

  if (p.to == F32) {
    float f;
    switch (p.from) {
      case F32: f = uintBitsToFloat(src[i]); break;
      case I32: f = float(int(src[i])); break;
      case I64: f = i64_to_f32(uvec2(src[2 * i], src[2 * i + 1])); break;
      default: f = float(byte_at(i)); break;
    }
    dst[i] = floatBitsToUint(f);
  } else if (p.to == I32) {
    uint v;
    switch (p.from) {
      case F32: v = uint(f32_to_i32(uintBitsToFloat(src[i]))); break;
      case I32: v = src[i]; break;
      case I64: v = src[2 * i]; break;  // wraps: the low word
      default: v = byte_at(i); break;
    }
    dst[i] = v;
  } else {
    uvec2 v;
    switch (p.from) {
      case F32: v = f32_to_i64(uintBitsToFloat(src[i])); break;
      case I32: v = i64_of_int(int(src[i])); break;
      case I64: v = uvec2(src[2 * i], src[2 * i + 1]); break;
      default: v = uvec2(byte_at(i), 0u); break;
    }
    dst[2 * i] = v.x;
    dst[2 * i + 1] = v.y;
  }
}
