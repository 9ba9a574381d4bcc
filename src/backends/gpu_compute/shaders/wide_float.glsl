// Sums and products kept to about twice float's precision, as a value and its rounding error
// (Dekker's and Knuth's error-free transformations), for kernels whose CPU counterpart adds up
// in double. Every step is `precise`: a compiler that fused or reassociated them would lose the
// error terms. No fma: Vulkan does not promise a fused one.

// A value kept as hi + lo, |lo| far below hi's last bit.
struct Wide {
  float hi, lo;
};

// a = a_hi + a_lo with each half of at most 12 significant bits (Veltkamp), so that a product
// of halves is exact in float.
void split(float a, out float a_hi, out float a_lo) {
  precise float t = 4097.0 * a;
  precise float h = t - (t - a);
  a_hi = h;
  precise float l = a - h;
  a_lo = l;
}

// a * b exactly, as the rounded product and its error.
Wide mul(float a, float b) {
  float a1, a2, b1, b2;
  split(a, a1, a2);
  split(b, b1, b2);
  precise float prod = a * b;
  precise float err = ((a1 * b1 - prod) + a1 * b2 + a2 * b1) + a2 * b2;
  return Wide(prod, err);
}

// a * b to about twice float's precision; b given by its 12-bit halves and rest.
Wide product(Wide a, vec3 b) {
  float a1, a2;
  split(a.hi, a1, a2);
  precise float b_hi = b.x + b.y;
  precise float prod = a.hi * b_hi;
  precise float err = ((a1 * b.x - prod) + a1 * b.y + a2 * b.x) + a2 * b.y;
  precise float rest = err + a.hi * b.z + a.lo * b_hi;
  return Wide(prod, rest);
}

// total + v (or - v), the high parts added exactly (Knuth's two-sum), the low ones plainly.
Wide add(Wide total, Wide v, bool negate) {
  precise float b = negate ? -v.hi : v.hi;
  precise float s = total.hi + b;
  precise float bb = s - total.hi;
  precise float err = (total.hi - (s - bb)) + (b - bb);
  precise float lo = total.lo + (negate ? -v.lo : v.lo) + err;
  return Wide(s, lo);
}

