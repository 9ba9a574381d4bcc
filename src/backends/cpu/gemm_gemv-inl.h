// GEMM path for matrix-vector products whose matrix rows are contiguous along the output:
// M == 1 with op(B) = B (a row vector times B), and N == 1 with op(A) = A^T. Each output vector
// is a sum of scaled matrix rows, so the kernel streams long contiguous rows and needs no
// packing, which would cost as much as the product itself. Compiled once per SIMD target.

#if defined(KILN_CPU_GEMM_GEMV_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_GEMM_GEMV_INL_H_
#undef KILN_CPU_GEMM_GEMV_INL_H_
#else
#define KILN_CPU_GEMM_GEMV_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "backends/cpu/gemm_detail.h"
#include "backends/cpu/gemm_kernel-inl.h"
#include "backends/cpu/gemm_plan.h"
#include "core/thread_pool.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace gemm {

// Vectors of outputs per block: eight independent accumulator chains cover the FMA latency.
inline constexpr size_t kGemvVecs = 8;
inline constexpr int64_t kGemvBlock = kGemvVecs * kLanes;

using GemvFn = void (*)(const float* x, size_t k, const float* mat, size_t ld, float* out);

// out[j] = sum over t < k of x[t] * mat[t * ld + j], for j < kVecs * kLanes.
template <size_t kVecs>
HWY_NOINLINE void gemv_block(const float* HWY_RESTRICT x, size_t k, const float* HWY_RESTRICT mat,
                             size_t ld, float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  V acc[kVecs];
#pragma GCC unroll 8
  for (size_t j = 0; j < kVecs; ++j) acc[j] = hn::Zero(d);
  for (size_t t = 0; t < k; ++t) {
    const V xv = hn::Set(d, x[t]);
    const float* row = mat + t * ld;
#pragma GCC unroll 8
    for (size_t j = 0; j < kVecs; ++j)
      acc[j] = hn::MulAdd(xv, hn::LoadU(d, row + j * kLanes), acc[j]);
  }
#pragma GCC unroll 8
  for (size_t j = 0; j < kVecs; ++j) hn::StoreU(acc[j], d, out + j * kLanes);
}

template <size_t... kVecs>
constexpr std::array<GemvFn, kGemvVecs> make_gemv_table(std::index_sequence<kVecs...>) {
  return {&gemv_block<kVecs + 1>...};
}
// gemv_table()[vecs - 1]
inline const std::array<GemvFn, kGemvVecs>& gemv_table() {
  static constexpr auto table = make_gemv_table(std::make_index_sequence<kGemvVecs>{});
  return table;
}

inline bool use_gemv_path(const gemm_detail::Problem& p, bool trans_b) {
  return (p.m == 1 && !trans_b) || (p.n == 1 && p.trans_a);
}

inline void gemv(const gemm_detail::Problem& p, bool trans_b, const float* b, int64_t ldb) {
  const int64_t k = p.k;
  const bool row_output = p.m == 1 && !trans_b;  // C is 1 x N; otherwise M x 1
  // The vector (contiguous along K) and the matrix whose rows are K apart.
  const float* x;
  int64_t x_stride;
  const float* mat;
  int64_t ld;
  int64_t len;
  if (row_output) {
    x = p.a;
    x_stride = p.trans_a ? p.lda : 1;
    mat = b;
    ld = ldb;
    len = p.n;
  } else {
    x = b;
    x_stride = trans_b ? 1 : ldb;
    mat = p.a;
    ld = p.lda;
    len = p.m;
  }
  if (x_stride != 1) {
    float* gathered =
        gemm_detail::thread_scratch(gemm_detail::Scratch::kPackA, static_cast<size_t>(k));
    for (int64_t t = 0; t < k; ++t) gathered[t] = x[t * x_stride];
    x = gathered;
  }

  const auto& table = gemv_table();
  auto body = [&](int64_t begin, int64_t end) {
    HWY_ALIGN float out[kGemvBlock];
    for (int64_t block = begin; block < end; ++block) {
      const int64_t j0 = block * kGemvBlock;
      const int64_t cols = std::min(kGemvBlock, len - j0);
      const int64_t vecs = cols / kLanes;
      if (vecs > 0) {
        table[vecs - 1](x, static_cast<size_t>(k), mat + j0, static_cast<size_t>(ld), out);
      }
      for (int64_t j = vecs * kLanes; j < cols; ++j) {  // fewer than kLanes columns
        float sum = 0.0f;
        for (int64_t t = 0; t < k; ++t) sum += x[t] * mat[t * ld + j0 + j];
        out[j] = sum;
      }
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t row = row_output ? 0 : j0 + j;
        const int64_t col = row_output ? j0 + j : 0;
        float* c = p.c + row * p.ldc + col;
        *c = gemm_detail::finish_scalar(p.ep, out[j], c, row, col);
      }
    }
  };
  const int64_t blocks = (len + kGemvBlock - 1) / kGemvBlock;
  // The matrix is read once: threads pay off only when it is large.
  const int64_t block_floats = std::max<int64_t>(1, k * kGemvBlock);
  if (k * len < gemm_detail::kMinParallelFloats || gemm_detail::available_threads() <= 1) {
    body(0, blocks);
  } else {
    parallel_for(blocks, std::max<int64_t>(1, gemm_detail::kMinParallelFloats / 4 / block_floats),
                 body);
  }
}

}  // namespace gemm
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
