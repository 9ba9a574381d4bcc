#include "backends/cpu/nbits_matmul.h"

#include <algorithm>
#include <cstddef>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/nbits_matmul.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

int64_t nbits_vector_lanes() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

// One row's zero points: per block, packed `kBits`-bit values, floats, or the default.
struct RowZeroPoints {
  const uint8_t* packed = nullptr;
  const float* floats = nullptr;
  float fixed = 0.0f;
};

RowZeroPoints row_zero_points(const NBitsWeight& w, int64_t n) {
  RowZeroPoints z;
  if (w.float_zero_points) {
    z.floats = w.float_zero_points + n * w.k_blocks();
  } else if (w.packed_zero_points) {
    z.packed = w.packed_zero_points + n * ((w.k_blocks() * w.bits + 7) / 8);
  } else {
    z.fixed = static_cast<float>(1 << (w.bits - 1));
  }
  return z;
}

// Block b's zero point (kBits a constant, so that no division is left in the loop).
template <int kBits>
HWY_INLINE float zero_point(const RowZeroPoints& z, int64_t b) {
  constexpr int64_t kPer = 8 / kBits;
  if (z.floats) return z.floats[b];
  if (z.packed) {
    return static_cast<float>((z.packed[b / kPer] >> ((b % kPer) * kBits)) & ((1 << kBits) - 1));
  }
  return z.fixed;
}

// The values of the chunk of Lanes(d) packed bytes at `bytes` (zero-extended to 32 bits),
// phase p (the p-th value of every byte), as floats. The last phase needs no mask.
template <int kBits, class D>
HWY_INLINE hn::Vec<D> unpack(D d, hn::Vec<hn::Rebind<uint32_t, D>> bytes, int p) {
  const hn::Rebind<uint32_t, D> du;
  const hn::Rebind<int32_t, D> di;
  auto q = hn::ShiftRightSame(bytes, p * kBits);
  if (p + 1 < 8 / kBits) q = hn::And(q, hn::Set(du, (1u << kBits) - 1));
  return hn::ConvertTo(d, hn::BitCast(di, q));
}

// Rows [n0, n1) of W, dequantized in the rearranged order into out ([n1 - n0, k_pad]).
template <int kBits, class D>
void dequantize_rows(D d, const NBitsWeight& w, int64_t n0, int64_t n1, int64_t k_pad,
                     float* HWY_RESTRICT out) {
  constexpr int kPer = 8 / kBits;
  const hn::Rebind<uint8_t, D> d8;
  const hn::Rebind<uint32_t, D> du;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t blocks = w.k_blocks(), blob = w.blob_size();
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* row = w.data + n * blocks * blob;
    float* o = out + (n - n0) * k_pad;
    const RowZeroPoints zp = row_zero_points(w, n);
    for (int64_t b = 0; b < blocks; ++b) {
      const float s = w.scales[n * blocks + b];
      const auto scale = hn::Set(d, s), shift = hn::Set(d, s * zero_point<kBits>(zp, b));
      for (int64_t c = b * blob; c < (b + 1) * blob; c += lanes) {
        const auto bytes = hn::PromoteTo(du, hn::LoadU(d8, row + c));
        for (int p = 0; p < kPer; ++p) {
          hn::StoreU(hn::MulSub(unpack<kBits>(d, bytes, p), scale, shift), d,
                     o + c * kPer + p * lanes);
        }
      }
    }
  }
}

// The chunk width `lanes` (4, 8 or 16, at most this target's vector) picks the tag.
template <class F>
void with_tag(int64_t lanes, F&& f) {
  if (lanes >= 16) {
    f(hn::CappedTag<float, 16>());
  } else if (lanes >= 8) {
    f(hn::CappedTag<float, 8>());
  } else {
    f(hn::CappedTag<float, 4>());
  }
}

void nbits_dequantize_rows(int64_t lanes, const NBitsWeight& w, int64_t n0, int64_t n1,
                           int64_t k_pad, float* out) {
  with_tag(lanes, [&](auto d) {
    if (w.bits == 2) {
      dequantize_rows<2>(d, w, n0, n1, k_pad, out);
    } else if (w.bits == 4) {
      dequantize_rows<4>(d, w, n0, n1, k_pad, out);
    } else {
      dequantize_rows<8>(d, w, n0, n1, k_pad, out);
    }
  });
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/nbits_gemv.h"
#include "core/thread_pool.h"
#include "hwy/aligned_allocator.h"

namespace kiln::cpu {

HWY_EXPORT(nbits_vector_lanes);
HWY_EXPORT(nbits_dequantize_rows);

namespace {

// Weight values a parallel chunk should cover at least.
constexpr int64_t kMinChunkValues = 16384;
// Floats of the dequantized tile of the GEMM path: 1 MiB, about an L2 cache.
constexpr int64_t kTileFloats = int64_t{1} << 18;

// A's rows rearranged into the weight's chunk order (zero past K, so that whatever the padding
// of the last block holds adds nothing), and their sums per block.
struct Rearranged {
  std::vector<float> a;    // [M, k_pad]
  std::vector<float> sum;  // [M, k_blocks]
};

Rearranged rearrange(const NBitsWeight& w, int64_t M, const float* A, int64_t lanes) {
  const int64_t per = 8 / w.bits, blocks = w.k_blocks(), k_pad = blocks * w.block_size;
  const int64_t chunk = lanes * per;  // values per chunk of `lanes` bytes
  Rearranged r;
  r.a.assign(static_cast<size_t>(M * k_pad), 0.0f);
  r.sum.assign(static_cast<size_t>(M * blocks), 0.0f);
  for (int64_t m = 0; m < M; ++m) {
    const float* a = A + m * w.K;
    float* out = r.a.data() + m * k_pad;
    for (int64_t k = 0; k < w.K; ++k) {
      // Value k is in chunk k / chunk, byte i of it, phase p.
      const int64_t in_chunk = k % chunk, i = in_chunk / per, p = in_chunk % per;
      out[k - in_chunk + p * lanes + i] = a[k];
      r.sum[static_cast<size_t>(m * blocks + k / w.block_size)] += a[k];
    }
  }
  return r;
}

}  // namespace

void nbits_matmul_path(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                       bool gemv) {
  if (M <= 0 || w.N <= 0) return;
  if (gemv) {
    nbits_gemv(w, M, A, bias, Y);
    return;
  }
  const int64_t blocks = w.k_blocks(), k_pad = blocks * w.block_size;
  // Chunks never straddle a block: blob sizes are powers of two of at least 4 bytes.
  const int64_t lanes =
      std::min({HWY_DYNAMIC_DISPATCH(nbits_vector_lanes)(), int64_t{16}, w.blob_size()});
  const Rearranged r = rearrange(w, M, A, lanes);
  const auto dequantize = HWY_DYNAMIC_DISPATCH(nbits_dequantize_rows);
  const int64_t tile = std::min(w.N, std::max<int64_t>(16, kTileFloats / k_pad / 16 * 16));
  thread_local hwy::AlignedFreeUniquePtr<float[]> buffer;
  thread_local size_t capacity = 0;
  const size_t floats = static_cast<size_t>(tile * k_pad);
  if (floats > capacity) {
    buffer = hwy::AllocateAligned<float>(floats);
    capacity = floats;
  }
  float* wt = buffer.get();
  for (int64_t n0 = 0; n0 < w.N; n0 += tile) {
    const int64_t rows = std::min(tile, w.N - n0);
    parallel_for(rows, std::max<int64_t>(1, kMinChunkValues / k_pad), [&](int64_t b, int64_t e) {
      dequantize(lanes, w, n0 + b, n0 + e, k_pad, wt + b * k_pad);
    });
    GemmEpilogue epilogue;
    if (bias) {
      epilogue.bias_kind = GemmBias::kPerColumn;
      epilogue.bias = bias + n0;
    }
    sgemm(false, true, M, rows, k_pad, r.a.data(), k_pad, wt, k_pad, Y + n0, w.N, epilogue);
  }
}

void nbits_matmul(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y) {
  nbits_matmul_path(w, M, A, bias, Y, M <= kNBitsGemvMaxRows);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
