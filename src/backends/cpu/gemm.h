// kiln's float32 GEMM: the one matrix-multiply routine that Conv, Gemm and MatMul call.
//
// All matrices are row-major with explicit leading dimensions (the distance in floats between
// consecutive rows as stored in memory). op(X) is X or its transpose, so with trans_a = true
// A is stored as K x M with lda >= M, and with trans_b = true B is stored as N x K.
//
// The work is split over kiln's CPU job system (parallel_for); it never allocates in steady
// state: packing buffers are per-thread and grow once to the largest size seen. The summation
// order of each element depends only on the shapes, so results are bit-identical for any
// thread count (though not across SIMD targets).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_memory.h"

namespace kiln::cpu {

enum class GemmBias : uint8_t {
  kNone,
  kPerRow,     // bias[m] is added to row m of C (M values): a Conv's bias in NCHW layout.
  kPerColumn,  // bias[n] is added to column n of C (N values): a Gemm or MatMul bias.
};

enum class GemmActivation : uint8_t {
  kNone,
  kRelu,  // max(x, 0)
  kClip,  // min(max(x, clip_min), clip_max); Relu6 is clip(0, 6)
};

// Work fused into the store of each C tile, applied while the tile is still in registers:
//
//   C = activation(alpha * op(A) * op(B) + bias + beta * C)
//
// beta = 0 leaves C write-only (it may hold NaN or garbage); beta = 1 accumulates, e.g. a
// residual connection that is added before the activation (Conv + Add + Relu). The bias is not
// scaled by alpha. Designated initializers read well:
//   GemmEpilogue{.bias_kind = GemmBias::kPerRow, .bias = b, .activation = GemmActivation::kRelu}
//
// An activation the register tile does not apply (GELU, SiLU, ...) goes in finish_block, which
// is called on each block of C once the block holds its final values (after the activation
// above), while the block is still in cache: finish_block(finish_context, c, rows, cols, ldc).
// Blocks do not overlap, and several threads may call it at once.
using GemmBlockFn = void (*)(const void* context, float* c, int64_t rows, int64_t cols,
                             int64_t ldc);

struct GemmEpilogue {
  float alpha = 1.0f;
  float beta = 0.0f;
  GemmBias bias_kind = GemmBias::kNone;
  const float* bias = nullptr;  // M or N floats as bias_kind says; unused with kNone
  GemmActivation activation = GemmActivation::kNone;
  float clip_min = 0.0f;  // only for kClip
  float clip_max = 0.0f;  // only for kClip
  GemmBlockFn finish_block = nullptr;
  const void* finish_context = nullptr;
};

// C = alpha * op(A) * op(B) + beta * C, with op(A) M x K and op(B) K x N. beta == 0 means C is
// not read (it may hold NaN). K == 0 (or alpha == 0) gives C = beta * C without reading A or B.
void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// The same with the full epilogue (alpha and beta come from `epilogue`).
void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
           const float* B, int64_t ldb, float* C, int64_t ldc, const GemmEpilogue& epilogue);

// Columns of C per micro-kernel tile on the SIMD target dispatched to. A caller that splits C
// into column blocks at multiples of it gets the same bits as one call: a narrower last tile
// sums in another order.
int64_t gemm_panel_columns();

// op(B) rearranged once into the layout the micro-kernel streams (column panels, each stored
// k-major and zero-padded), for weights that many calls share. The layout depends on the SIMD
// target picked at run time, so a PackedB is only valid in the process that made it.
class PackedB {
 public:
  PackedB() = default;
  PackedB(PackedB&&) noexcept = default;
  PackedB& operator=(PackedB&&) noexcept = default;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  bool empty() const { return data_ == nullptr; }
  // Bytes held, for memory accounting.
  size_t size_bytes() const { return capacity_ * sizeof(float); }

 private:
  friend void pack_b(bool, int64_t, int64_t, const float*, int64_t, PackedB&);
  friend void sgemm_packed(bool, int64_t, const float*, int64_t, const PackedB&, float*, int64_t,
                           const GemmEpilogue&);

  int64_t k_ = 0;
  int64_t n_ = 0;
  int64_t panel_width_ = 0;  // columns per panel; identifies the target that packed it
  size_t capacity_ = 0;      // floats allocated
  // A host block rather than the heap: packed weights are often made on a model's first run,
  // between its transient blocks.
  HostArray<float> data_;
};

// A (M x K, not transposed) rearranged once into the panels of kMR rows the micro-kernel
// streams, for weights that many calls share (a convolution's W as the left operand). Like
// PackedB, only valid in the process, and on the SIMD target, that made it.
class PackedA {
 public:
  PackedA() = default;
  PackedA(PackedA&&) noexcept = default;
  PackedA& operator=(PackedA&&) noexcept = default;

  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  bool empty() const { return data_ == nullptr; }
  size_t size_bytes() const { return capacity_ * sizeof(float); }

 private:
  friend void pack_a(int64_t, int64_t, const float*, int64_t, PackedA&);
  friend void sgemm_packed_a(const PackedA&, int64_t, const float*, int64_t, float*, int64_t,
                             const GemmEpilogue&);
  friend void sgemm_packed_ab(const PackedA&, const float*, int64_t, float*, int64_t,
                              const GemmEpilogue&);

  int64_t m_ = 0;
  int64_t k_ = 0;
  int64_t panel_rows_ = 0;  // rows per panel; identifies the target that packed it
  size_t capacity_ = 0;
  HostArray<float> data_;
};

// The overload taking `out` reuses its storage when it is large enough, so packing a
// same-sized A on every call (MatMulNBits' activations) does not allocate.
PackedA pack_a(int64_t M, int64_t K, const float* A, int64_t lda);
void pack_a(int64_t M, int64_t K, const float* A, int64_t lda, PackedA& out);

// C = epilogue(A * B) with a packed A (M x K) and B (K x N) as it is, rows ldb apart.
void sgemm_packed_a(const PackedA& a, int64_t N, const float* B, int64_t ldb, float* C, int64_t ldc,
                    const GemmEpilogue& epilogue = {});

// B as column panels that the caller writes in place, laid out as PackedB holds them: for an
// operand made afresh on every call (a weight dequantized on the fly), writing its values
// straight into the panels saves pack_b's pass over it. Panel j holds columns
// [j * gemm_panel_columns(), ...) of B (K x N) as K rows of gemm_panel_width(j, N) floats, one
// after the other; columns past N are zero. Panel j starts j * K * gemm_panel_columns() floats
// in. Like PackedB, the layout belongs to the SIMD target dispatched to.
int64_t gemm_panel_width(int64_t panel, int64_t N);
int64_t gemm_panels_floats(int64_t K, int64_t N);

// C = epilogue(A * B) with a packed A (M x K) and B (K x N) as such panels.
void sgemm_packed_ab(const PackedA& a, const float* b_panels, int64_t N, float* C, int64_t ldc,
                     const GemmEpilogue& epilogue = {});

// Packs op(B) (K x N). The overload taking `out` reuses its storage when it is large enough,
// so repacking a same-sized operand every run (e.g. an im2col buffer) does not allocate.
PackedB pack_b(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb);
void pack_b(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb, PackedB& out);

// C = epilogue(op(A) * B) with a packed B (K x N); op(A) is M x K.
void sgemm_packed(bool trans_a, int64_t M, const float* A, int64_t lda, const PackedB& b, float* C,
                  int64_t ldc, const GemmEpilogue& epilogue = {});

}  // namespace kiln::cpu
