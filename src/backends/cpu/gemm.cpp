// GEMM entry points: argument checks, trivial cases, and run-time dispatch to the best SIMD
// target compiled in (Highway compiles the *-inl.h implementations once per target).
#include "backends/cpu/gemm.h"

#include <algorithm>
#include <limits>
#include <string>

#include "kiln/error.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// The per-target code must come after foreach_target.h, which re-includes this file per target.
#include "backends/cpu/gemm_detail.h"
#include "backends/cpu/gemm_driver-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

int64_t gemm_panel_width() { return gemm::kNR; }

int64_t gemm_packed_floats(int64_t k, int64_t n) { return gemm::packed_b_floats(k, n); }

void gemm_pack_b(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb, float* dst) {
  gemm::pack_b_all(trans_b, k, n, b, ldb, dst);
}

void gemm_run_packed(const gemm_detail::Problem& p, const float* packed) {
  gemm::gemm_with_packed_b(p, packed);
}

void gemm_run(const gemm_detail::Problem& p, bool trans_b, const float* b, int64_t ldb) {
  gemm::gemm_unpacked(p, trans_b, b, ldb);
}

int64_t gemm_panel_rows() { return gemm::kMR; }

int64_t gemm_packed_a_floats(int64_t m, int64_t k) { return gemm::packed_a_floats(m, k); }

void gemm_pack_a(const gemm_detail::Problem& p, float* dst) { gemm::pack_a_all(p, dst); }

void gemm_run_packed_a(const gemm_detail::Problem& p, const float* b, int64_t ldb) {
  gemm::gemm_with_packed_a(p, b, ldb);
}

int64_t gemm_panel_width_of(int64_t panel, int64_t n) { return gemm::panel_width(panel, n); }

// Both operands packed: always the tiled path (the dot-product path for narrow B reads A as it
// is, which a packed A is not).
void gemm_run_packed_ab(const gemm_detail::Problem& p, const float* panels) {
  gemm::BInput in;
  in.packed = panels;
  gemm::run_parts(p, in,
                  gemm_detail::plan_parts(p.m, p.n, p.k, gemm::kMR, gemm::kNR,
                                          gemm_detail::available_threads()));
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(gemm_panel_width);
HWY_EXPORT(gemm_packed_floats);
HWY_EXPORT(gemm_pack_b);
HWY_EXPORT(gemm_run_packed);
HWY_EXPORT(gemm_run);
HWY_EXPORT(gemm_panel_rows);
HWY_EXPORT(gemm_packed_a_floats);
HWY_EXPORT(gemm_pack_a);
HWY_EXPORT(gemm_run_packed_a);
HWY_EXPORT(gemm_panel_width_of);
HWY_EXPORT(gemm_run_packed_ab);

namespace {

gemm_detail::Epilogue resolve(const GemmEpilogue& e) {
  gemm_detail::Epilogue r;
  r.alpha = e.alpha;
  r.beta = e.beta;
  r.finish_block = e.finish_block;
  r.finish_context = e.finish_context;
  switch (e.bias_kind) {
    case GemmBias::kNone:
      break;
    case GemmBias::kPerRow:
      if (e.bias == nullptr) throw Error("sgemm: per-row bias requested without a bias pointer");
      r.row_bias = e.bias;
      break;
    case GemmBias::kPerColumn:
      if (e.bias == nullptr) {
        throw Error("sgemm: per-column bias requested without a bias pointer");
      }
      r.col_bias = e.bias;
      break;
  }
  switch (e.activation) {
    case GemmActivation::kNone:
      break;
    case GemmActivation::kRelu:
      r.clamp = true;
      r.lo = 0.0f;
      r.hi = std::numeric_limits<float>::infinity();
      break;
    case GemmActivation::kClip:
      r.clamp = true;
      r.lo = e.clip_min;
      r.hi = e.clip_max;
      break;
  }
  return r;
}

// The messages are built only on failure: a steady-state call must not allocate.
void check_dims(int64_t m, int64_t n, int64_t k) {
  if (m < 0 || n < 0 || k < 0) {
    throw Error("sgemm: negative dimension (M=" + std::to_string(m) + ", N=" + std::to_string(n) +
                ", K=" + std::to_string(k) + ")");
  }
}

void check_ld(const char* name, int64_t ld, int64_t row_length) {
  if (ld < std::max<int64_t>(1, row_length)) {
    throw Error(std::string("sgemm: ") + name + " = " + std::to_string(ld) +
                " is shorter than a row of " + std::to_string(row_length));
  }
}

// No products to add (K == 0 or alpha == 0): C = activation(bias + beta * C).
void scale_only(const gemm_detail::Problem& p) {
  for (int64_t i = 0; i < p.m; ++i) {
    float* row = p.c + i * p.ldc;
    for (int64_t j = 0; j < p.n; ++j)
      row[j] = gemm_detail::finish_scalar(p.ep, 0.0f, row + j, i, j);
  }
  gemm_detail::finish_block(p.ep, p.c, p.ldc, 0, p.m, 0, p.n);
}

// The checks and set-up both entry points share. Returns false when nothing is left to
// multiply (an empty C, or K == 0 / alpha == 0, where C has been scaled already).
bool prepare(bool trans_a, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, float* C,
             int64_t ldc, const GemmEpilogue& epilogue, gemm_detail::Problem& p) {
  check_dims(M, N, K);
  if (M == 0 || N == 0) return false;
  check_ld("ldc", ldc, N);
  p.trans_a = trans_a;
  p.m = M;
  p.n = N;
  p.k = K;
  p.a = A;
  p.lda = lda;
  p.c = C;
  p.ldc = ldc;
  p.ep = resolve(epilogue);
  if (K == 0 || epilogue.alpha == 0.0f) {
    scale_only(p);
    return false;
  }
  check_ld("lda", lda, trans_a ? M : K);
  return true;
}

}  // namespace

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  GemmEpilogue epilogue;
  epilogue.alpha = alpha;
  epilogue.beta = beta;
  sgemm(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, epilogue);
}

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
           const float* B, int64_t ldb, float* C, int64_t ldc, const GemmEpilogue& epilogue) {
  gemm_detail::Problem p;
  if (!prepare(trans_a, M, N, K, A, lda, C, ldc, epilogue, p)) return;
  check_ld("ldb", ldb, trans_b ? K : N);
  HWY_DYNAMIC_DISPATCH(gemm_run)(p, trans_b, B, ldb);
}

int64_t gemm_panel_columns() { return HWY_DYNAMIC_DISPATCH(gemm_panel_width)(); }

PackedB pack_b(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb) {
  PackedB packed;
  pack_b(trans_b, K, N, B, ldb, packed);
  return packed;
}

void pack_b(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb, PackedB& out) {
  check_dims(0, N, K);
  const int64_t width = HWY_DYNAMIC_DISPATCH(gemm_panel_width)();
  const size_t floats = static_cast<size_t>(HWY_DYNAMIC_DISPATCH(gemm_packed_floats)(K, N));
  if (floats > out.capacity_ || out.data_ == nullptr) {
    out.data_ = allocate_host_array<float>(std::max<size_t>(floats, 1));
    out.capacity_ = std::max<size_t>(floats, 1);
  }
  out.k_ = K;
  out.n_ = N;
  out.panel_width_ = width;
  if (floats == 0) return;
  check_ld("ldb", ldb, trans_b ? K : N);
  HWY_DYNAMIC_DISPATCH(gemm_pack_b)(trans_b, K, N, B, ldb, out.data_.get());
}

void sgemm_packed(bool trans_a, int64_t M, const float* A, int64_t lda, const PackedB& b, float* C,
                  int64_t ldc, const GemmEpilogue& epilogue) {
  if (b.empty()) throw Error("sgemm_packed: B was never packed");
  if (b.panel_width_ != HWY_DYNAMIC_DISPATCH(gemm_panel_width)()) {
    throw Error("sgemm_packed: B was packed for a different SIMD target");
  }
  const int64_t N = b.n_;
  const int64_t K = b.k_;
  gemm_detail::Problem p;
  if (!prepare(trans_a, M, N, K, A, lda, C, ldc, epilogue, p)) return;
  HWY_DYNAMIC_DISPATCH(gemm_run_packed)(p, b.data_.get());
}

PackedA pack_a(int64_t M, int64_t K, const float* A, int64_t lda) {
  PackedA packed;
  pack_a(M, K, A, lda, packed);
  return packed;
}

void pack_a(int64_t M, int64_t K, const float* A, int64_t lda, PackedA& out) {
  check_dims(M, 0, K);
  out.m_ = M;
  out.k_ = K;
  out.panel_rows_ = HWY_DYNAMIC_DISPATCH(gemm_panel_rows)();
  const size_t floats = static_cast<size_t>(HWY_DYNAMIC_DISPATCH(gemm_packed_a_floats)(M, K));
  if (floats > out.capacity_ || out.data_ == nullptr) {
    out.data_ = allocate_host_array<float>(std::max<size_t>(floats, 1));
    out.capacity_ = std::max<size_t>(floats, 1);
  }
  // Zeroed: the rows past M in the last panel are never read, but defined.
  std::fill(out.data_.get(), out.data_.get() + floats, 0.0f);
  if (M == 0 || K == 0) return;
  check_ld("lda", lda, K);
  gemm_detail::Problem p;
  p.m = M;
  p.k = K;
  p.a = A;
  p.lda = lda;
  HWY_DYNAMIC_DISPATCH(gemm_pack_a)(p, out.data_.get());
}

void sgemm_packed_a(const PackedA& a, int64_t N, const float* B, int64_t ldb, float* C, int64_t ldc,
                    const GemmEpilogue& epilogue) {
  if (a.empty()) throw Error("sgemm_packed_a: A was never packed");
  if (a.panel_rows_ != HWY_DYNAMIC_DISPATCH(gemm_panel_rows)()) {
    throw Error("sgemm_packed_a: A was packed for a different SIMD target");
  }
  gemm_detail::Problem p;
  // `a` stands in for A in the checks; the parts read only the packed panels.
  if (!prepare(false, a.m_, N, a.k_, a.data_.get(), std::max<int64_t>(a.k_, 1), C, ldc, epilogue,
               p)) {
    return;
  }
  check_ld("ldb", ldb, N);
  p.packed_a = a.data_.get();
  HWY_DYNAMIC_DISPATCH(gemm_run_packed_a)(p, B, ldb);
}

int64_t gemm_panel_width(int64_t panel, int64_t N) {
  return HWY_DYNAMIC_DISPATCH(gemm_panel_width_of)(panel, N);
}

int64_t gemm_panels_floats(int64_t K, int64_t N) {
  check_dims(0, N, K);
  return HWY_DYNAMIC_DISPATCH(gemm_packed_floats)(K, N);
}

void sgemm_packed_ab(const PackedA& a, const float* b_panels, int64_t N, float* C, int64_t ldc,
                     const GemmEpilogue& epilogue) {
  if (a.empty()) throw Error("sgemm_packed_ab: A was never packed");
  if (a.panel_rows_ != HWY_DYNAMIC_DISPATCH(gemm_panel_rows)()) {
    throw Error("sgemm_packed_ab: A was packed for a different SIMD target");
  }
  gemm_detail::Problem p;
  // `a` stands in for A in the checks; the parts read only the packed panels.
  if (!prepare(false, a.m_, N, a.k_, a.data_.get(), std::max<int64_t>(a.k_, 1), C, ldc, epilogue,
               p)) {
    return;
  }
  p.packed_a = a.data_.get();
  HWY_DYNAMIC_DISPATCH(gemm_run_packed_ab)(p, b_panels);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
