// Tests of the packed-weight MatMulNBits kernels (backends/cpu/nbits_matmul.h): the GEMV and the
// tiled GEMM path, on every SIMD target, against a double-precision reference that dequantizes
// value by value as the op's definition says.
//
// Tolerance: both paths sum K float32 products in some order, and the GEMV subtracts the zero
// point's share (scale * zp * sum(a)) per block, so the error is bounded by about
// K * 2^-24 times the sum of the magnitudes of everything summed: |a| * (|q| + |zp|) * scale per
// value, and the bias. We allow (K + 8) * FLT_EPSILON times that, which catches any indexing bug
// (those give errors of the order of the terms themselves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/nbits_matmul.h"
#include "core/thread_pool.h"
#include "hwy/targets.h"
#include "random_data.h"
#include "run_as_job.h"

namespace kiln::cpu {
namespace {

using kiln::testing::uniform_floats;

enum class Zp { kDefault, kPacked, kFloat };

struct Weight {
  NBitsWeight w;
  std::vector<uint8_t> data, packed_zp;
  std::vector<float> scales, float_zp;
  std::vector<int> q, zp;  // [N, K] and [N, blocks], unpacked
};

// Random values; the bits of the last block past K are set to garbage (all ones), which the
// kernels must ignore.
Weight make_weight(int64_t N, int64_t K, int64_t bits, int64_t block, Zp zp, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(0, (1 << bits) - 1);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  Weight r;
  NBitsWeight& w = r.w;
  w.N = N;
  w.K = K;
  w.bits = bits;
  w.block_size = block;
  const int64_t blocks = w.k_blocks(), per = 8 / bits, row_bytes = blocks * w.blob_size();
  const int64_t zp_row = (blocks * bits + 7) / 8;
  r.data.assign(static_cast<size_t>(N * row_bytes), 0);
  r.packed_zp.assign(static_cast<size_t>(N * zp_row), 0);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < blocks * block; ++k) {
      const int q = k < K ? value(rng) : (1 << bits) - 1;
      if (k < K) r.q.push_back(q);
      r.data[n * row_bytes + k / per] |= static_cast<uint8_t>(q << ((k % per) * bits));
    }
    for (int64_t b = 0; b < blocks; ++b) {
      const int z = zp == Zp::kDefault ? 1 << (bits - 1) : value(rng);
      r.zp.push_back(z);
      r.packed_zp[n * zp_row + b / per] |= static_cast<uint8_t>(z << ((b % per) * bits));
      r.float_zp.push_back(static_cast<float>(z));
      r.scales.push_back(scale(rng));
    }
  }
  w.data = r.data.data();
  w.scales = r.scales.data();
  if (zp == Zp::kPacked) w.packed_zero_points = r.packed_zp.data();
  if (zp == Zp::kFloat) w.float_zero_points = r.float_zp.data();
  return r;
}

// Runs one path and compares every output with the reference.
void check(const Weight& r, int64_t M, bool gemv, bool with_bias, uint32_t seed) {
  const NBitsWeight& w = r.w;
  const auto a = uniform_floats(M * w.K, seed, -1.0f, 1.0f);
  const auto bias = uniform_floats(w.N, seed + 1, -1.0f, 1.0f);
  std::vector<float> y(static_cast<size_t>(M * w.N), std::nanf(""));
  nbits_matmul_path(w, M, a.data(), with_bias ? bias.data() : nullptr, y.data(), gemv);
  const int64_t blocks = w.k_blocks();
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < w.N; ++n) {
      double want = with_bias ? bias[n] : 0.0, magnitude = with_bias ? std::fabs(bias[n]) : 0.0;
      for (int64_t k = 0; k < w.K; ++k) {
        const int64_t b = k / w.block_size;
        const double s = r.scales[n * blocks + b], z = r.zp[n * blocks + b];
        const double q = r.q[n * w.K + k], x = a[m * w.K + k];
        want += x * (q - z) * s;
        magnitude += std::fabs(x) * (q + z) * s;
      }
      const double tolerance = static_cast<double>(w.K + 8) * FLT_EPSILON * magnitude;
      ASSERT_NEAR(y[m * w.N + n], want, tolerance) << "m " << m << " n " << n;
    }
  }
}

std::string describe(const NBitsWeight& w, int64_t M, bool gemv, Zp zp) {
  return "bits " + std::to_string(w.bits) + " block " + std::to_string(w.block_size) + " K " +
         std::to_string(w.K) + " N " + std::to_string(w.N) + " M " + std::to_string(M) +
         (gemv ? " gemv" : " tiled") + " zp " + std::to_string(static_cast<int>(zp));
}

// Bits, block sizes 16 to 256, K a multiple of the block or not, every zero-point form, with and
// without bias, rows of A from 1 to 5 (the GEMV's groups of 4, 2 and 1), on each path.
TEST(NBitsMatmul, BitsBlocksZeroPointsRowsAndPaths) {
  uint32_t seed = 100;
  for (int64_t bits : {2, 4, 8}) {
    for (int64_t block : {16, 32, 64, 128, 256}) {
      for (int64_t K : {block, 2 * block + 8, 3 * block - 1}) {
        for (Zp zp : {Zp::kDefault, Zp::kPacked, Zp::kFloat}) {
          const Weight r = make_weight(7, K, bits, block, zp, ++seed);
          for (int64_t M : {1, 2, 3, 5}) {
            for (bool gemv : {true, false}) {
              SCOPED_TRACE(describe(r.w, M, gemv, zp));
              ++seed;
              check(r, M, gemv, seed % 2 == 0, seed);
            }
          }
        }
      }
    }
  }
}

// Every SIMD target compiled in and supported here (chunks of 16, 8 and 4 lanes), with shapes
// big enough to split over the threads and, on the tiled path, over several tiles (a tile holds
// 2^18 floats: 64 rows of K = 4096).
TEST(NBitsMatmul, EveryTargetAndSeveralTiles) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    uint32_t seed = 900;
    for (int64_t bits : {2, 4, 8}) {
      for (int64_t block : {16, 32}) {
        const Weight r = make_weight(150, 4096 - 24, bits, block, Zp::kPacked, ++seed);
        for (auto [M, gemv] : {std::pair{int64_t{1}, true}, std::pair{int64_t{4}, true},
                               std::pair{int64_t{9}, false}}) {
          SCOPED_TRACE(describe(r.w, M, gemv, Zp::kPacked));
          check(r, M, gemv, true, ++seed);
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// The int8 arithmetic (accuracy_level 4) against a double-precision reference that quantizes A
// per block as nbits_quantize_block defines and multiplies the integers exactly: the kernel's
// integer sums are exact, so only the float scaling and summing of per-lane results differ,
// within the same bound as the float path's. Every target (those without the int8 kernel compute
// in float32, which must then meet the float reference), blocks 16 to 256, K tails, every
// zero-point form, rows of A 1 to 5, N with a tail of single rows. Bits 2 and 8 take float32.
void check_int8(const Weight& r, int64_t M, uint32_t seed, bool int8_kernel) {
  const NBitsWeight& w = r.w;
  auto a = uniform_floats(M * w.K, seed, -1.0f, 1.0f);
  if (M > 1) std::fill_n(a.begin() + w.K, std::min<int64_t>(w.block_size, w.K), 0.0f);  // amax 0
  const auto bias = uniform_floats(w.N, seed + 1, -1.0f, 1.0f);
  std::vector<float> y(static_cast<size_t>(M * w.N), std::nanf(""));
  nbits_matmul_path(w, M, a.data(), bias.data(), y.data(), true, NBitsArithmetic::kInt8Activations);
  const int64_t blocks = w.k_blocks();
  std::vector<int8_t> qa(static_cast<size_t>(w.K));
  std::vector<float> a_scales(static_cast<size_t>(blocks));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t k0 = b * w.block_size;
      a_scales[b] = nbits_quantize_block(a.data() + m * w.K + k0, std::min(w.block_size, w.K - k0),
                                         qa.data() + k0);
    }
    for (int64_t n = 0; n < w.N; ++n) {
      double want = bias[n], magnitude = std::fabs(bias[n]);
      for (int64_t k = 0; k < w.K; ++k) {
        const int64_t b = k / w.block_size;
        const double s = r.scales[n * blocks + b], z = r.zp[n * blocks + b];
        const double q = r.q[n * w.K + k];
        const double x = int8_kernel ? qa[k] * static_cast<double>(a_scales[b]) : a[m * w.K + k];
        want += x * (q - z) * s;
        magnitude += std::fabs(x) * (q + z) * s;
      }
      const double tolerance = static_cast<double>(w.K + 8) * FLT_EPSILON * magnitude;
      ASSERT_NEAR(y[m * w.N + n], want, tolerance) << "m " << m << " n " << n;
    }
  }
}

TEST(NBitsMatmul, Int8ActivationsEveryTarget) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    const bool x86_int8 = target == HWY_AVX2 || target <= HWY_AVX3;
    uint32_t seed = 1300;
    for (int64_t bits : {2, 4, 8}) {
      for (int64_t block : {16, 32, 64, 128, 256}) {
        for (int64_t K : {block, 3 * block - 8, 4 * block + 16}) {
          for (Zp zp : {Zp::kDefault, Zp::kPacked, Zp::kFloat}) {
            const Weight r = make_weight(9, K, bits, block, zp, ++seed);
            for (int64_t M : {1, 2, 3, 5}) {
              SCOPED_TRACE(describe(r.w, M, true, zp));
              check_int8(r, M, ++seed, x86_int8 && bits == 4);
            }
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A call's int8 arithmetic owes nothing to the calls before it: here an earlier call, with an
// infinity in A, leaves an infinite block scale where the next, shorter call's last partial
// chunk has lanes past its last block (3 blocks of 16 values in a chunk of 64 on AVX2, of 32 on
// 128-bit targets); those lanes must add nothing, not 0 * inf.
TEST(NBitsMatmul, Int8ActivationsIgnoreAnEarlierCallsScales) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    const Weight wide = make_weight(3, 256, 4, 16, Zp::kDefault, 41);
    std::vector<float> a(256, 0.5f);
    std::fill(a.begin() + 48, a.begin() + 64, INFINITY);
    std::vector<float> y(3);
    nbits_matmul_path(wide.w, 1, a.data(), nullptr, y.data(), true,
                      NBitsArithmetic::kInt8Activations);
    const bool x86_int8 = target == HWY_AVX2 || target <= HWY_AVX3;
    check_int8(make_weight(5, 48, 4, 16, Zp::kDefault, 42), 1, 43, x86_int8);
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Both paths, the GEMV in both arithmetics, as a job of a 4-thread pool, with enough weight rows
// to be split over the threads (GEMV ranges of 64 rows at K = 4072), against the same call as a
// job of a 1-thread pool: the same bits (each output sums in an order that depends on the
// shapes only), and the reference's values.
TEST(NBitsMatmul, SameBitsOverThreads) {
  const Weight r = make_weight(301, 4096 - 24, 4, 32, Zp::kPacked, 77);
  ThreadPool four(4), one(1);
  for (NBitsArithmetic arithmetic :
       {NBitsArithmetic::kFloat32, NBitsArithmetic::kInt8Activations}) {
    for (auto [M, gemv] :
         {std::pair{int64_t{1}, true}, std::pair{int64_t{4}, true}, std::pair{int64_t{9}, false}}) {
      const auto a = uniform_floats(M * r.w.K, 78, -1.0f, 1.0f);
      std::vector<float> pooled(static_cast<size_t>(M * r.w.N)), single(pooled.size());
      const int64_t rows = M;  // clang 14 captures no structured binding
      const bool use_gemv = gemv;
      kiln::testing::run_as_job(four, [&] {
        nbits_matmul_path(r.w, rows, a.data(), nullptr, pooled.data(), use_gemv, arithmetic);
      });
      kiln::testing::run_as_job(one, [&] {
        nbits_matmul_path(r.w, rows, a.data(), nullptr, single.data(), use_gemv, arithmetic);
      });
      EXPECT_EQ(pooled, single) << "M " << M;
    }
  }
  kiln::testing::run_as_job(four, [&] { check(r, 4, true, true, 79); });
  kiln::testing::run_as_job(four, [&] { check(r, 20, false, true, 80); });
}

// nbits_matmul picks the path by the rows of A; both give the reference's values.
TEST(NBitsMatmul, PicksEitherPath) {
  const Weight r = make_weight(33, 200, 4, 32, Zp::kFloat, 7);
  for (int64_t M : {int64_t{1}, kNBitsGemvMaxRows, kNBitsGemvMaxRows + 1, int64_t{20}}) {
    const auto a = uniform_floats(M * r.w.K, 8, -1.0f, 1.0f);
    std::vector<float> y(static_cast<size_t>(M * r.w.N)), gemv(y.size()), tiled(y.size());
    nbits_matmul(r.w, M, a.data(), nullptr, y.data());
    nbits_matmul_path(r.w, M, a.data(), nullptr, gemv.data(), true);
    nbits_matmul_path(r.w, M, a.data(), nullptr, tiled.data(), false);
    EXPECT_EQ(y, M <= kNBitsGemvMaxRows ? gemv : tiled) << "M " << M;
  }
}

}  // namespace
}  // namespace kiln::cpu
