// The rotation both domains' RotaryEmbedding apply, shared with GroupQueryAttention's built-in
// rotary embedding (do_rotary).
#pragma once

#include <cstdint>

#include "opdefs/rotary.h"

namespace kiln {

// Rotates token t = b * seq + s by cache row cache_row[t] of the [rows, cache_stride] caches
// (pairs (i, i + rotary_dim / 2), or (2i, 2i + 1) when interleaved). y may be x.
void rotate_f32(const RotaryGeometry& g, bool interleaved, const float* x, const float* cos_cache,
                const float* sin_cache, const int64_t* cache_row, int64_t cache_stride, float* y);

}  // namespace kiln
