// Internal types shared by the GEMM entry points and the per-SIMD-target implementations.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu/gemm.h"  // GemmBlockFn

namespace kiln::cpu::gemm_detail {

// GemmEpilogue resolved into what a tile store needs.
struct Epilogue {
  float alpha = 1.0f;
  float beta = 0.0f;
  const float* row_bias = nullptr;  // M values or null
  const float* col_bias = nullptr;  // N values or null
  bool clamp = false;               // apply min(max(x, lo), hi)
  float lo = 0.0f;
  float hi = 0.0f;
  GemmBlockFn finish_block = nullptr;  // GemmEpilogue's, or null
  const void* finish_context = nullptr;
};

// Everything about one GEMM call except how B is supplied.
struct Problem {
  bool trans_a = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  const float* a = nullptr;
  int64_t lda = 0;
  // op(A) packed beforehand (PackedA), or null: then the parts read it from `a` instead.
  const float* packed_a = nullptr;
  float* c = nullptr;
  int64_t ldc = 0;
  Epilogue ep;
};

// Applies the epilogue to one element; `raw` is the plain dot product.
inline float finish_scalar(const Epilogue& ep, float raw, const float* c, int64_t row,
                           int64_t col) {
  float v = ep.alpha * raw;
  if (ep.beta != 0.0f) v += ep.beta * *c;
  if (ep.row_bias) v += ep.row_bias[row];
  if (ep.col_bias) v += ep.col_bias[col];
  if (ep.clamp) v = v < ep.lo ? ep.lo : (v > ep.hi ? ep.hi : v);
  return v;
}

// Calls the epilogue's finish_block, if any, on rows [m0, m1) x columns [n0, n1) of C.
inline void finish_block(const Epilogue& ep, float* c, int64_t ldc, int64_t m0, int64_t m1,
                         int64_t n0, int64_t n1) {
  if (ep.finish_block && m1 > m0 && n1 > n0)
    ep.finish_block(ep.finish_context, c + m0 * ldc + n0, m1 - m0, n1 - n0, ldc);
}

// Per-thread growable scratch; steady state allocates nothing. Each slot is 64-byte aligned and
// its contents are not kept when it grows. Slots let one call hold several buffers at once.
enum class Scratch : int { kPackA, kPackB, kCount };
float* thread_scratch(Scratch slot, size_t floats);

}  // namespace kiln::cpu::gemm_detail
