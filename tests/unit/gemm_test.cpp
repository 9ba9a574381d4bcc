// Tests of kiln's float32 GEMM against a naive double-precision reference.
//
// Tolerance: a float32 dot product of length K, summed in any order, differs from the exact one
// by at most about K * u * sum_k |a_k * b_k| (u = 2^-24, Higham's gamma_K bound); the blocked
// kernels sum in a different order than the reference, so that bound is what can be promised.
// We allow (K + 4) * FLT_EPSILON (= 2u) times the magnitude of every term (products, beta * C,
// bias), which leaves headroom for the extra roundings of alpha, beta and the bias while still
// catching any indexing bug (those give errors of the order of the magnitude itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <future>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/gemm.h"
#include "core/thread_pool.h"
#include "hwy/targets.h"
#include "kiln/error.h"
#include "run_as_job.h"

namespace kiln::cpu {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kSentinel = 12345.0f;

struct Case {
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 1;
  int64_t n = 1;
  int64_t k = 1;
  int64_t pad = 0;  // extra floats per row in every leading dimension
  GemmEpilogue ep;
};

// The epilogue the packed-operand tests use: a row bias, beta 0.5 and a clip to [-2, 2].
Case row_bias_clip_case(int64_t m, int64_t n, int64_t k, int64_t pad) {
  Case c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.pad = pad;
  c.ep.beta = 0.5f;
  c.ep.bias_kind = GemmBias::kPerRow;
  c.ep.activation = GemmActivation::kClip;
  c.ep.clip_min = -2.0f;
  c.ep.clip_max = 2.0f;
  return c;
}

std::string describe(const Case& c) {
  return "trans_a=" + std::to_string(c.trans_a) + " trans_b=" + std::to_string(c.trans_b) +
         " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) + " K=" + std::to_string(c.k) +
         " pad=" + std::to_string(c.pad) + " alpha=" + std::to_string(c.ep.alpha) +
         " beta=" + std::to_string(c.ep.beta) +
         " bias=" + std::to_string(static_cast<int>(c.ep.bias_kind)) +
         " act=" + std::to_string(static_cast<int>(c.ep.activation));
}

// Operands laid out as the API sees them, with NaN in the padding so that reading past a row
// poisons the result, and a sentinel in C's padding to catch writes past a row.
struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c, c_initial, bias;

  Operands(const Case& cs, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t a_rows = cs.trans_a ? cs.k : cs.m;
    const int64_t a_cols = cs.trans_a ? cs.m : cs.k;
    const int64_t b_rows = cs.trans_b ? cs.n : cs.k;
    const int64_t b_cols = cs.trans_b ? cs.k : cs.n;
    lda = a_cols + cs.pad;
    ldb = b_cols + cs.pad;
    ldc = cs.n + cs.pad;
    a = fill(a_rows, a_cols, lda, rng, dist, kNaN);
    b = fill(b_rows, b_cols, ldb, rng, dist, kNaN);
    c = fill(cs.m, cs.n, ldc, rng, dist, kSentinel);
    if (cs.ep.beta == 0.0f) {  // C must not be read: make any read visible
      for (int64_t i = 0; i < cs.m; ++i) std::fill_n(c.begin() + i * ldc, cs.n, kNaN);
    }
    c_initial = c;
    const int64_t bias_len = cs.ep.bias_kind == GemmBias::kPerRow ? cs.m : cs.n;
    for (int64_t i = 0; i < bias_len; ++i) bias.push_back(dist(rng));
    if (bias.empty()) bias.push_back(0.0f);
  }

  static std::vector<float> fill(int64_t rows, int64_t cols, int64_t ld, std::mt19937& rng,
                                 std::uniform_real_distribution<float>& dist, float padding) {
    std::vector<float> v(static_cast<size_t>(std::max<int64_t>(rows * ld, 1)), padding);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) v[i * ld + j] = dist(rng);
    }
    return v;
  }
};

// Checks ops.c against the double-precision reference for case cs.
void expect_matches_reference(const Case& cs, const Operands& ops) {
  const GemmEpilogue& ep = cs.ep;
  int bad = 0;
  for (int64_t i = 0; i < cs.m; ++i) {
    for (int64_t j = 0; j < cs.n; ++j) {
      double dot = 0.0;
      double magnitude = 0.0;
      for (int64_t t = 0; t < cs.k; ++t) {
        const double av = cs.trans_a ? ops.a[t * ops.lda + i] : ops.a[i * ops.lda + t];
        const double bv = cs.trans_b ? ops.b[j * ops.ldb + t] : ops.b[t * ops.ldb + j];
        dot += av * bv;
        magnitude += std::abs(av * bv);
      }
      double want = ep.alpha * dot;
      magnitude *= std::abs(ep.alpha);
      if (ep.beta != 0.0f) {
        const double c0 = ops.c_initial[i * ops.ldc + j];
        want += ep.beta * c0;
        magnitude += std::abs(ep.beta * c0);
      }
      if (ep.bias_kind != GemmBias::kNone) {
        const double bias = ops.bias[ep.bias_kind == GemmBias::kPerRow ? i : j];
        want += bias;
        magnitude += std::abs(bias);
      }
      if (ep.activation == GemmActivation::kRelu) want = std::max(want, 0.0);
      if (ep.activation == GemmActivation::kClip) {
        want = std::min(std::max(want, double{ep.clip_min}), double{ep.clip_max});
      }
      const double tolerance = (cs.k + 4) * FLT_EPSILON * magnitude + 1e-30;
      const float got = ops.c[i * ops.ldc + j];
      if (!(std::abs(got - want) <= tolerance) && ++bad <= 5) {
        ADD_FAILURE() << describe(cs) << ": C(" << i << ", " << j << ") = " << got << ", want "
                      << want << " +- " << tolerance;
      }
    }
    for (int64_t j = cs.n; j < ops.ldc && i * ops.ldc + j < static_cast<int64_t>(ops.c.size());
         ++j) {
      if (ops.c[i * ops.ldc + j] != kSentinel && ++bad <= 5) {
        ADD_FAILURE() << describe(cs) << ": wrote C(" << i << ", " << j << ") past the row";
      }
    }
  }
  if (bad > 5) ADD_FAILURE() << describe(cs) << ": " << bad << " mismatches in all";
}

GemmEpilogue with_bias(GemmEpilogue ep, const Operands& ops) {
  if (ep.bias_kind != GemmBias::kNone) ep.bias = ops.bias.data();
  return ep;
}

void run_unpacked(const Case& cs, uint32_t seed) {
  Operands ops(cs, seed);
  const bool plain =
      cs.ep.bias_kind == GemmBias::kNone && cs.ep.activation == GemmActivation::kNone;
  if (plain) {  // the BLAS-style overload
    sgemm(cs.trans_a, cs.trans_b, cs.m, cs.n, cs.k, cs.ep.alpha, ops.a.data(), ops.lda,
          ops.b.data(), ops.ldb, cs.ep.beta, ops.c.data(), ops.ldc);
  } else {
    sgemm(cs.trans_a, cs.trans_b, cs.m, cs.n, cs.k, ops.a.data(), ops.lda, ops.b.data(), ops.ldb,
          ops.c.data(), ops.ldc, with_bias(cs.ep, ops));
  }
  expect_matches_reference(cs, ops);
}

void run_packed(const Case& cs, uint32_t seed) {
  Operands ops(cs, seed);
  const PackedB packed = pack_b(cs.trans_b, cs.k, cs.n, ops.b.data(), ops.ldb);
  EXPECT_EQ(packed.k(), cs.k);
  EXPECT_EQ(packed.n(), cs.n);
  sgemm_packed(cs.trans_a, cs.m, ops.a.data(), ops.lda, packed, ops.c.data(), ops.ldc,
               with_bias(cs.ep, ops));
  expect_matches_reference(cs, ops);
}

// Shapes chosen to hit every path: 1x1x1, GEMV rows and columns, odd sizes around the register
// tile (14 x 32 on AVX-512, 4 x 24 on AVX2), several K blocks (K > 512), several row blocks
// (M > 168), few columns (the dot-product path), tiny K, K = lda = 512 (A packed rather than
// read in place), many column panels.
const std::vector<std::array<int64_t, 3>>& shapes() {
  static const std::vector<std::array<int64_t, 3>> list = {
      {1, 1, 1},    {1, 1, 7},     {2, 3, 4},     {7, 5, 3},      {13, 17, 19},  {1, 100, 37},
      {100, 1, 37}, {1, 300, 300}, {3, 70, 33},   {14, 32, 16},   {15, 33, 17},  {33, 65, 129},
      {6, 16, 300}, {29, 31, 513}, {200, 70, 90}, {5, 8, 100},    {300, 3, 64},  {40, 40, 2},
      {64, 96, 1},  {17, 4, 16},   {1, 47, 600},  {190, 97, 270}, {20, 40, 512}, {30, 300, 64}};
  return list;
}

TEST(Gemm, MatchesReferenceAllTransposesAndScales) {
  uint32_t seed = 1;
  for (const auto& [m, n, k] : shapes()) {
    for (int trans = 0; trans < 4; ++trans) {
      for (const auto& [alpha, beta] :
           std::vector<std::pair<float, float>>{{1.0f, 0.0f}, {0.5f, 2.0f}, {-1.0f, 1.0f}}) {
        for (int64_t pad : {0, 3}) {
          Case cs;
          cs.trans_a = trans & 1;
          cs.trans_b = trans & 2;
          cs.m = m;
          cs.n = n;
          cs.k = k;
          cs.pad = pad;
          cs.ep.alpha = alpha;
          cs.ep.beta = beta;
          run_unpacked(cs, seed++);
        }
      }
    }
  }
}

TEST(Gemm, ZeroKScalesC) {
  for (float beta : {0.0f, 1.0f, -2.5f}) {
    Case cs;
    cs.m = 5;
    cs.n = 7;
    cs.k = 0;
    cs.pad = 2;
    cs.ep.alpha = 3.0f;
    cs.ep.beta = beta;
    run_unpacked(cs, 7);
    run_packed(cs, 8);
  }
}

TEST(Gemm, ZeroAlphaDoesNotReadOperands) {
  Case cs;
  cs.m = 9;
  cs.n = 11;
  cs.k = 13;
  cs.ep.alpha = 0.0f;
  cs.ep.beta = 0.5f;
  Operands ops(cs, 3);
  std::fill(ops.a.begin(), ops.a.end(), kNaN);
  std::fill(ops.b.begin(), ops.b.end(), kNaN);
  sgemm(false, false, cs.m, cs.n, cs.k, 0.0f, ops.a.data(), ops.lda, ops.b.data(), ops.ldb, 0.5f,
        ops.c.data(), ops.ldc);
  for (int64_t i = 0; i < cs.m * cs.n; ++i) {
    EXPECT_EQ(ops.c[i], 0.5f * ops.c_initial[i]);
  }
}

TEST(Gemm, EmptyDimensionsDoNothing) {
  float c = kSentinel;
  sgemm(false, false, 0, 1, 1, 1.0f, nullptr, 1, nullptr, 1, 0.0f, &c, 1);
  sgemm(false, false, 1, 0, 1, 1.0f, nullptr, 1, nullptr, 1, 0.0f, &c, 1);
  EXPECT_EQ(c, kSentinel);
}

TEST(Gemm, RejectsBadLeadingDimension) {
  std::vector<float> a(12), b(12), c(12);
  EXPECT_THROW(sgemm(false, false, 3, 4, 3, 1.0f, a.data(), 2, b.data(), 4, 0.0f, c.data(), 4),
               kiln::Error);
}

std::vector<GemmEpilogue> epilogues() {
  std::vector<GemmEpilogue> list;
  for (GemmBias bias : {GemmBias::kNone, GemmBias::kPerRow, GemmBias::kPerColumn}) {
    for (int act = 0; act < 4; ++act) {
      for (float beta : {0.0f, 1.0f}) {
        GemmEpilogue ep;
        ep.bias_kind = bias;
        ep.beta = beta;
        if (act == 1) ep.activation = GemmActivation::kRelu;
        if (act == 2) {  // relu6
          ep.activation = GemmActivation::kClip;
          ep.clip_min = 0.0f;
          ep.clip_max = 6.0f;
        }
        if (act == 3) {  // a tight clip that most outputs hit
          ep.activation = GemmActivation::kClip;
          ep.clip_min = -0.25f;
          ep.clip_max = 0.5f;
        }
        list.push_back(ep);
      }
    }
  }
  return list;
}

TEST(Gemm, PackedEveryEpilogue) {
  uint32_t seed = 100;
  for (const auto& [m, n, k] : shapes()) {
    for (const GemmEpilogue& ep : epilogues()) {
      for (int trans = 0; trans < 4; ++trans) {
        Case cs;
        cs.trans_a = trans & 1;
        cs.trans_b = trans & 2;
        cs.m = m;
        cs.n = n;
        cs.k = k;
        cs.pad = trans == 3 ? 5 : 0;
        cs.ep = ep;
        run_packed(cs, seed++);
      }
    }
  }
}

TEST(Gemm, UnpackedEveryEpilogue) {
  uint32_t seed = 5000;
  for (const auto& [m, n, k] : shapes()) {
    for (GemmEpilogue ep : epilogues()) {
      ep.alpha = 0.75f;
      Case cs;
      cs.trans_a = seed & 1;
      cs.trans_b = seed & 2;
      cs.m = m;
      cs.n = n;
      cs.k = k;
      cs.pad = 1;
      cs.ep = ep;
      run_unpacked(cs, seed++);
    }
  }
}

// The finish_block hook (an activation the register tile does not apply) sees every element of
// C exactly once, after its final value, and nothing past a row: on every path (GEMV, the
// dot-product path, tiles, several row and K blocks), B packed or not, A packed or not.
struct FinishLog {
  const float* c = nullptr;
  int64_t ldc = 0;
  std::vector<int>* visits = nullptr;  // per element of the C buffer
};

void double_and_add_one(const void* context, float* c, int64_t rows, int64_t cols, int64_t ldc) {
  const auto& log = *static_cast<const FinishLog*>(context);
  EXPECT_EQ(ldc, log.ldc);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      float& x = c[i * ldc + j];
      ++(*log.visits)[static_cast<size_t>(&x - log.c)];
      x = 2.0f * x + 1.0f;
    }
  }
}

TEST(Gemm, FinishBlockSeesEveryElementOnceAfterTheEpilogue) {
  uint32_t seed = 900;
  for (const auto& shape : shapes()) {
    const int64_t m = shape[0], n = shape[1], k = shape[2];  // captured below: no binding
    for (int path = 0; path < 4; ++path) {  // unpacked, unpacked B transposed, packed B, packed A
      Case cs;
      cs.m = m;
      cs.n = n;
      cs.k = k;
      cs.pad = 3;
      cs.trans_b = path == 1;
      cs.ep.bias_kind = GemmBias::kPerColumn;
      cs.ep.activation = GemmActivation::kRelu;
      Operands plain(cs, seed++);
      Operands hooked = plain;
      std::vector<int> visits(hooked.c.size(), 0);
      const FinishLog log{hooked.c.data(), hooked.ldc, &visits};
      GemmEpilogue with_hook = with_bias(cs.ep, hooked);
      with_hook.finish_block = &double_and_add_one;
      with_hook.finish_context = &log;
      auto run = [&](Operands& ops, const GemmEpilogue& ep) {
        if (path <= 1) {
          sgemm(false, cs.trans_b, m, n, k, ops.a.data(), ops.lda, ops.b.data(), ops.ldb,
                ops.c.data(), ops.ldc, ep);
        } else if (path == 2) {
          const PackedB b = pack_b(false, k, n, ops.b.data(), ops.ldb);
          sgemm_packed(false, m, ops.a.data(), ops.lda, b, ops.c.data(), ops.ldc, ep);
        } else {
          const PackedA a = pack_a(m, k, ops.a.data(), ops.lda);
          sgemm_packed_a(a, n, ops.b.data(), ops.ldb, ops.c.data(), ops.ldc, ep);
        }
      };
      run(plain, with_bias(cs.ep, plain));
      run(hooked, with_hook);
      const std::string what = describe(cs) + " path " + std::to_string(path);
      int bad = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0;
             j < hooked.ldc && i * hooked.ldc + j < static_cast<int64_t>(visits.size()); ++j) {
          const size_t at = static_cast<size_t>(i * hooked.ldc + j);
          const int want_visits = j < n ? 1 : 0;
          const float want = j < n ? 2.0f * plain.c[at] + 1.0f : plain.c[at];
          if ((visits[at] != want_visits || hooked.c[at] != want) && ++bad <= 3) {
            ADD_FAILURE() << what << ": C(" << i << ", " << j << ") visited " << visits[at]
                          << " times, " << hooked.c[at] << " against " << want;
          }
        }
      }
    }
  }
}

TEST(Gemm, PackedAlphaScalesProductNotBias) {
  Case cs;
  cs.m = 20;
  cs.n = 45;
  cs.k = 30;
  cs.ep.alpha = -2.0f;
  cs.ep.beta = 0.5f;
  cs.ep.bias_kind = GemmBias::kPerColumn;
  run_packed(cs, 11);
}

TEST(Gemm, RepackReusesStorage) {
  Case cs;
  cs.m = 16;
  cs.n = 100;
  cs.k = 50;
  Operands ops(cs, 12);
  PackedB packed;
  pack_b(false, cs.k, cs.n, ops.b.data(), ops.ldb, packed);
  const size_t bytes = packed.size_bytes();
  pack_b(false, cs.k, cs.n - 10, ops.b.data(), ops.ldb, packed);
  EXPECT_EQ(packed.size_bytes(), bytes);
  EXPECT_EQ(packed.n(), cs.n - 10);
}

TEST(Gemm, UnpackedBRejected) {
  PackedB empty;
  float c = 0.0f;
  EXPECT_THROW(sgemm_packed(false, 1, &c, 1, empty, &c, 1), kiln::Error);
}

// Large enough to be split across the shared pool's threads (hardware threads unless
// KILN_NUM_THREADS says otherwise) on every path (blocked, B in place, dot products, GEMV),
// and also run from inside parallel jobs at once, which exercises the per-thread packing
// buffers concurrently.
TEST(Gemm, Multithreaded) {
  const std::vector<Case> cases = [] {
    std::vector<Case> list;
    for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{
             {300, 257, 300}, {1, 6000, 1000}, {4000, 4, 1000}, {8, 4000, 600}, {128, 768, 200}}) {
      for (int trans = 0; trans < 4; ++trans) {
        Case cs;
        cs.trans_a = trans & 1;
        cs.trans_b = trans & 2;
        cs.m = m;
        cs.n = n;
        cs.k = k;
        cs.ep.beta = 0.5f;
        list.push_back(cs);
      }
    }
    return list;
  }();
  for (size_t i = 0; i < cases.size(); ++i) {
    run_unpacked(cases[i], 200 + i);
    run_packed(cases[i], 300 + i);
  }
  parallel_for(static_cast<int64_t>(cases.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      run_unpacked(cases[i], 400 + i);
      run_packed(cases[i], 500 + i);
    }
  });
}

// Runs `fn` as a job on a one-thread pool, where parallel_for runs everything inline.
template <class Fn>
void run_single_threaded(Fn fn) {
  ThreadPool pool(1);
  kiln::testing::run_as_job(pool, std::move(fn));
}

// The summation order of every C element depends on K blocking and the register tile only,
// never on how the work is split, so results are bit-identical for any thread count.
TEST(Gemm, SameBitsOnAnyThreadCount) {
  for (auto [m, n, k] :
       std::vector<std::array<int64_t, 3>>{{300, 257, 700}, {129, 1000, 300}, {40, 2000, 600}}) {
    Case cs;
    cs.m = m;
    cs.n = n;
    cs.k = k;
    Operands ops(cs, 77);
    std::vector<float> one_thread(ops.c.size()), shared_pool(ops.c.size());
    run_single_threaded([&] {
      sgemm(false, false, cs.m, cs.n, cs.k, 1.0f, ops.a.data(), ops.lda, ops.b.data(), ops.ldb,
            0.0f, one_thread.data(), ops.ldc);
    });
    sgemm(false, false, m, n, k, 1.0f, ops.a.data(), ops.lda, ops.b.data(), ops.ldb, 0.0f,
          shared_pool.data(), ops.ldc);
    EXPECT_EQ(one_thread, shared_pool) << "M=" << m << " N=" << n << " K=" << k;
  }
}

// Every SIMD target compiled in and supported here (AVX-512, AVX2, SSE4, SSSE3, scalar on
// x86), on a few shapes that cross every tile edge.
TEST(Gemm, EveryTarget) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    uint32_t seed = 9000;
    for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{{1, 1, 1},
                                                              {1, 37, 19},
                                                              {23, 1, 9},
                                                              {7, 35, 300},
                                                              {31, 67, 45},
                                                              {5, 3, 40},
                                                              {40, 600, 20},
                                                              {9, 30, 50},
                                                              {13, 40, 33}}) {
      for (int trans = 0; trans < 4; ++trans) {
        Case cs;
        cs.trans_a = trans & 1;
        cs.trans_b = trans & 2;
        cs.m = m;
        cs.n = n;
        cs.k = k;
        cs.pad = 2;
        cs.ep.beta = 1.0f;
        cs.ep.bias_kind = GemmBias::kPerColumn;
        cs.ep.activation = GemmActivation::kRelu;
        run_unpacked(cs, seed++);
        run_packed(cs, seed++);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Blocking edges on every target: B packed on the fly in blocks of ~1024 columns (N = 2100 makes
// a last, partial block ending in a partial panel), K blocks of up to 512 (K = 1030 is three),
// A packed by transposing 4- and 2-row groups (lda = 1024, a multiple of 512) with a row tail,
// a per-row bias with a clip; and 5 columns, which both paths hand to the dot-product kernel.
// The pre-packed path runs the same blocks in the same order, so it must give the unpacked
// result bit for bit.
TEST(Gemm, BlockEdgesAndPackedEqualsUnpacked) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    uint32_t seed = 500;
    for (auto [m, n, k, pad] : std::vector<std::array<int64_t, 4>>{
             {45, 2100, 40, 0}, {31, 70, 1030, 0}, {29, 37, 1000, 24}, {40, 5, 300, 3}}) {
      for (int trans = 0; trans < 4; ++trans) {
        Case cs = row_bias_clip_case(m, n, k, pad);
        cs.trans_a = trans & 1;
        cs.trans_b = trans & 2;
        Operands unpacked(cs, seed), prepacked(cs, seed);
        ++seed;
        sgemm(cs.trans_a, cs.trans_b, m, n, k, unpacked.a.data(), unpacked.lda, unpacked.b.data(),
              unpacked.ldb, unpacked.c.data(), unpacked.ldc, with_bias(cs.ep, unpacked));
        expect_matches_reference(cs, unpacked);
        const PackedB packed = pack_b(cs.trans_b, k, n, prepacked.b.data(), prepacked.ldb);
        sgemm_packed(cs.trans_a, m, prepacked.a.data(), prepacked.lda, packed, prepacked.c.data(),
                     prepacked.ldc, with_bias(cs.ep, prepacked));
        EXPECT_EQ(unpacked.c, prepacked.c) << describe(cs);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A pre-packed A (a conv's weights) on every target: shapes across the row-panel, column-panel
// and K-block edges (K = 1030 is three blocks, M = 29 ends in a part panel), with a row bias,
// beta and a clip; then on the shared pool, where the rows and columns are split into parts,
// which must give the one-thread bits.
TEST(Gemm, PackedAEveryTargetAndThreadCount) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    uint32_t seed = 700;
    for (auto [m, n, k, pad] : std::vector<std::array<int64_t, 4>>{{1, 1, 1, 0},
                                                                   {23, 37, 9, 2},
                                                                   {14, 64, 512, 0},
                                                                   {31, 70, 1030, 0},
                                                                   {29, 37, 1000, 24},
                                                                   {45, 2100, 40, 3},
                                                                   {15, 5, 300, 1}}) {
      const Case cs = row_bias_clip_case(m, n, k, pad);
      Operands ops(cs, seed++);
      const PackedA packed = pack_a(m, k, ops.a.data(), ops.lda);
      EXPECT_EQ(packed.m(), m);
      EXPECT_EQ(packed.k(), k);
      Operands pooled = ops;
      run_single_threaded([&] {  // cs.n: clang 14 captures no structured binding
        sgemm_packed_a(packed, cs.n, ops.b.data(), ops.ldb, ops.c.data(), ops.ldc,
                       with_bias(cs.ep, ops));
      });
      expect_matches_reference(cs, ops);
      sgemm_packed_a(packed, n, pooled.b.data(), pooled.ldb, pooled.c.data(), pooled.ldc,
                     with_bias(cs.ep, pooled));
      EXPECT_EQ(ops.c, pooled.c) << describe(cs);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// B written by the caller straight into the panel layout (sgemm_packed_ab, what MatMulNBits'
// dequantization does) with a pre-packed A, on every target: a last panel narrower than the
// others (N = 37, 70) or a single narrow one (N = 5, which must not take the dot-product path
// that reads A unpacked), K blocks, with a row bias, beta and a clip; then on the shared pool.
TEST(Gemm, PackedABEveryTargetAndThreadCount) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    uint32_t seed = 800;
    for (auto [m, n, k, pad] : std::vector<std::array<int64_t, 4>>{
             {1, 1, 1, 0}, {23, 37, 9, 2}, {31, 70, 1030, 0}, {15, 5, 300, 1}, {45, 130, 40, 3}}) {
      const Case cs = row_bias_clip_case(m, n, k, pad);
      Operands ops(cs, seed++);
      const int64_t columns = gemm_panel_columns();
      std::vector<float> panels(static_cast<size_t>(gemm_panels_floats(k, n)), kNaN);
      for (int64_t j = 0; j * columns < n; ++j) {
        const int64_t width = gemm_panel_width(j, n);
        ASSERT_GE(width, std::min(columns, n - j * columns));
        for (int64_t kk = 0; kk < k; ++kk) {
          for (int64_t c = 0; c < width; ++c) {
            const int64_t col = j * columns + c;
            panels[static_cast<size_t>(j * k * columns + kk * width + c)] =
                col < n ? ops.b[static_cast<size_t>(kk * ops.ldb + col)] : 0.0f;
          }
        }
      }
      const PackedA packed = pack_a(m, k, ops.a.data(), ops.lda);
      Operands pooled = ops;
      run_single_threaded([&] {  // cs.n: clang 14 captures no structured binding
        sgemm_packed_ab(packed, panels.data(), cs.n, ops.c.data(), ops.ldc, with_bias(cs.ep, ops));
      });
      expect_matches_reference(cs, ops);
      sgemm_packed_ab(packed, panels.data(), n, pooled.c.data(), pooled.ldc,
                      with_bias(cs.ep, pooled));
      EXPECT_EQ(ops.c, pooled.c) << describe(cs);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A PackedA's panels are as tall as the packing target's micro-kernel: one packed by another
// target is refused where that height differs (AVX-512's from the scalar fallback's) and, where
// it is the same (AVX2's), gives the result an A packed by the running target gives.
TEST(Gemm, PackedAForAnotherTargetOrNeverPackedRejected) {
  std::vector<float> a(64 * 64), b(64 * 64, 1.0f), c(64 * 64), expected(64 * 64);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 61) - 30.0f;
  EXPECT_THROW(sgemm_packed_a(PackedA{}, 64, b.data(), 64, c.data(), 64), kiln::Error);
  EXPECT_THROW(sgemm_packed_ab(PackedA{}, b.data(), 64, c.data(), 64), kiln::Error);
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  if (targets.size() < 2 || targets.back() != HWY_SCALAR) GTEST_SKIP() << "no scalar fallback";
  hwy::SetSupportedTargetsForTest(targets.front());
  const PackedA packed = pack_a(64, 64, a.data(), 64);
  hwy::SetSupportedTargetsForTest(HWY_SCALAR);
  sgemm_packed_a(pack_a(64, 64, a.data(), 64), 64, b.data(), 64, expected.data(), 64);
  try {
    sgemm_packed_a(packed, 64, b.data(), 64, c.data(), 64);
    EXPECT_EQ(c, expected) << "an A packed for " << hwy::TargetName(targets.front())
                           << " was accepted by the scalar fallback but read wrongly";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("different SIMD target"), std::string::npos) << e.what();
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A PackedB's layout depends on the vector width; the scalar fallback's differs from every
// SIMD target's, so a B packed by one and used by the other must be refused.
TEST(Gemm, PackedForAnotherTargetRejected) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  if (targets.size() < 2 || targets.back() != HWY_SCALAR) GTEST_SKIP() << "no scalar fallback";
  std::vector<float> b(64 * 64, 1.0f), c(64 * 64);
  hwy::SetSupportedTargetsForTest(targets.front());
  const PackedB packed = pack_b(false, 64, 64, b.data(), 64);
  hwy::SetSupportedTargetsForTest(HWY_SCALAR);
  EXPECT_THROW(sgemm_packed(false, 64, b.data(), 64, packed, c.data(), 64), kiln::Error);
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace kiln::cpu
