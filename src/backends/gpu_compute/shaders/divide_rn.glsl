// Correctly rounded float32 division, which Vulkan's division does not promise (it allows
// 2.5 ulp): shared by quantize_linear.comp and dynamic_quantize.comp, whose quotients decide a
// rounding and must be the CPU's.

// The rounding error of the float product p = a * b, exactly (Dekker's TwoProduct with
// Veltkamp's split): a * b = p + error. Plain operations only, kept unfused by `precise`, so
// that it holds whether or not the device fuses multiply-adds.
float product_error(float a, float b, float p) {
  precise float ca = 4097.0 * a, cb = 4097.0 * b;
  precise float ah = ca - (ca - a), bh = cb - (cb - b);
  precise float al = a - ah, bl = b - bh;
  precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return e;
}

// |a - q * s|, exact up to one rounding of a value far below q's spacing (a - q * s is exact
// when q * s lies within a factor 2 of a, as it does for q near a / s).
float residual(float a, float q, float s) {
  precise float p = q * s;
  precise float r = (a - p) - product_error(q, s, p);
  return abs(r);
}

// a / s rounded correctly: of the quotient Vulkan gives (which may be off by an ulp or two) and
// its neighbours, the one with the smallest residual, ties to the even one. Quotients too large
// for the split to stay finite are left as they are: they clamp to the integer type anyway.
float divide(float a, float s) {
  precise float q = a / s;
  if (isnan(q) || isinf(q) || q == 0.0 || abs(q) > 1e30 || abs(s) > 1e30) return q;
  const uint bits = floatBitsToUint(q);
  float best = q;
  float best_r = residual(a, q, s);
  for (int k = -2; k <= 2; ++k) {
    if (k == 0) continue;
    const float n = uintBitsToFloat(uint(int(bits) + k));
    if (isnan(n) || isinf(n) || sign(n) != sign(q)) continue;
    const float r = residual(a, n, s);
    if (r < best_r || (r == best_r && (floatBitsToUint(n) & 1u) == 0u)) {
      best = n;
      best_r = r;
    }
  }
  return best;
}

