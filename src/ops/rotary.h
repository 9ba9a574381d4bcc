// The rotation both domains' RotaryEmbedding apply, shared with GroupQueryAttention's built-in
// rotary embedding (do_rotary).
#pragma once

#include <cstdint>

namespace kiln {

// x is [batch, heads, seq, head_size], or [batch, seq, heads * head_size] when packed; the
// first rotary_dim features of each head are rotated.
struct RotaryGeometry {
  bool packed = false;  // 3-D input
  int64_t batch = 0, heads = 0, seq = 0, head_size = 0, rotary_dim = 0;
};

// Rotates token t = b * seq + s by cache row cache_row[t] of the [rows, cache_stride] caches
// (pairs (i, i + rotary_dim / 2), or (2i, 2i + 1) when interleaved). y may be x.
void rotate_f32(const RotaryGeometry& g, bool interleaved, const float* x, const float* cos_cache,
                const float* sin_cache, const int64_t* cache_row, int64_t cache_stride, float* y);

}  // namespace kiln
