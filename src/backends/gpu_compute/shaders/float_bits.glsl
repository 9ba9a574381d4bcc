// The float-bit helpers that the shared shader_math.glsl asks of its includer; the OpenGL ES
// backend's program prelude defines the same four.

float inf_value() { return uintBitsToFloat(0x7f800000u); }
float nan_value() { return uintBitsToFloat(0x7fc00000u); }
int exponent_of(float v) { return int((floatBitsToUint(v) >> 23) & 0xffu) - 127; }
// v 2^k, exact while the result is a normal float (for |k| <= 252), built from exponent bits in
// two steps so that neither power of two leaves the float range.
float scale_by_pow2(float v, int k) {
  int half_k = k / 2;
  return v * uintBitsToFloat(uint(half_k + 127) << 23) *
         uintBitsToFloat(uint(k - half_k + 127) << 23);
}
