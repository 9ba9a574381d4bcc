#version 450
// c = a <op> b for float32 with numpy broadcasting (Mod is ONNX Mod with fmod=1, C's fmod;
// ClipBelow and ClipAbove apply one of Clip's bounds).
// Shapes and strides come in push constants so one pipeline serves every shape; a broadcast
// dimension has stride 0.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };

// Must match BinaryPushConstants in binary_elementwise.h.
layout(push_constant) uniform Params {
  uint op;     // BinaryOp
  uint rank;   // <= 6
  uint count;  // elements of c
  uint shape[6];
  uint a_stride[6];
  uint b_stride[6];
} p;

const uint ADD = 0, SUB = 1, MUL = 2, DIV = 3, POW = 4, MAX = 5, MIN = 6, PRELU = 7, MOD = 8,
           CLIP_BELOW = 9, CLIP_ABOVE = 10;

// ONNX Pow follows C's pow: a negative base works with an integral exponent. GLSL's pow is
// undefined for x < 0, and for x == 0 with y <= 0, so those cases are handled here.
float onnx_pow(float x, float y) {
  const float nan_value = uintBitsToFloat(0x7fc00000u), inf_value = uintBitsToFloat(0x7f800000u);
  if (y == 0.0 || x == 1.0) return 1.0;  // even with a NaN operand, as in C
  if (isnan(x) || isnan(y)) return nan_value;
  if (x == 0.0) {
    // An odd integral power keeps the zero's sign: pow(-0, 3) = -0, pow(-0, -3) = -inf.
    const bool odd = y == trunc(y) && mod(y, 2.0) == 1.0;
    const float r = y > 0.0 ? 0.0 : inf_value;
    return odd && floatBitsToUint(x) != 0u ? -r : r;
  }
  if (x > 0.0) return pow(x, y);
  if (y != trunc(y)) return nan_value;
  const float r = pow(-x, y);
  return mod(y, 2.0) == 0.0 ? r : -r;
}

// C's fmod, bit for bit: the remainder keeps x's sign and is exact, where x - trunc(x / y) y
// rounds. Long division on the integer significands (as C libraries do it), so subnormal operands
// and results come out right even where the device flushes subnormal float arithmetic.
float exact_fmod(float x, float y) {
  uint ux = floatBitsToUint(x), uy = floatBitsToUint(y);
  const uint sign = ux & 0x80000000u;
  ux &= 0x7fffffffu;
  uy &= 0x7fffffffu;
  if (uy == 0u || uy > 0x7f800000u || ux >= 0x7f800000u) return uintBitsToFloat(0x7fc00000u);
  if (ux < uy) return x;  // |x| < |y|, y = inf included
  if (ux == uy) return uintBitsToFloat(sign);  // a signed zero
  // Significands with the implicit bit, exponents where the subnormals' are their true ones.
  int ex = int(ux >> 23), ey = int(uy >> 23);
  uint mx = ux & 0x7fffffu, my = uy & 0x7fffffu;
  if (ex == 0) {
    const int shift = 23 - findMSB(mx);
    mx <<= shift;
    ex = 1 - shift;
  } else {
    mx |= 0x800000u;
  }
  if (ey == 0) {
    const int shift = 23 - findMSB(my);
    my <<= shift;
    ey = 1 - shift;
  } else {
    my |= 0x800000u;
  }
  // mx 2^ex mod my 2^ey, one quotient bit per exponent step; mx stays below 2 my < 2^25.
  for (int k = ex - ey; k > 0; --k) {
    if (mx >= my) mx -= my;
    mx <<= 1;
  }
  if (mx >= my) mx -= my;
  if (mx == 0u) return uintBitsToFloat(sign);
  const int shift = 23 - findMSB(mx);
  mx <<= shift;
  ey -= shift;
  // Back to float bits at exponent ey: normal, or shifted down into a subnormal.
  const uint bits = ey > 0 ? (uint(ey) << 23) | (mx & 0x7fffffu) : mx >> uint(1 - ey);
  return uintBitsToFloat(sign | bits);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;

  uint rest = i, ia = 0, ib = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint coord = rest % p.shape[d];
    rest /= p.shape[d];
    ia += coord * p.a_stride[d];
    ib += coord * p.b_stride[d];
  }
  const float x = a[ia], y = b[ib];
  float r;
  switch (p.op) {
    case ADD: r = x + y; break;
    case SUB: r = x - y; break;
    case MUL: r = x * y; break;
    case DIV: r = x / y; break;
    case POW: r = onnx_pow(x, y); break;
    // GLSL's max and min may return either operand when one is NaN; NaN propagates on the CPU.
    case MAX: r = (x > y || isnan(x)) ? x : y; break;
    case MIN: r = (x < y || isnan(x)) ? x : y; break;
    case PRELU: r = x < 0.0 ? x * y : x; break;  // b is the slope
    // Clip's bounds (b), as the CPU applies them: NaN passes through, and a NaN bound clips nothing.
    case CLIP_BELOW: r = x < y ? y : x; break;
    case CLIP_ABOVE: r = x > y ? y : x; break;
    default: r = exact_fmod(x, y); break;  // MOD
  }
  c[i] = r;
}
