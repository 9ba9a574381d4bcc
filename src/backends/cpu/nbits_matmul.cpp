// MatMulNBits' entry point and its GEMM path (many rows of A; the GEMV path is nbits_gemv.cpp).
//
// The GEMM path dequantizes the weight a tile of columns at a time straight into the column
// panels kiln's GEMM kernel streams (gemm.h's sgemm_packed_ab), with A packed once per call,
// each thread taking whole tiles (dequantized and multiplied on that thread):
// each weight value is then written once, as the float the kernel reads, where dequantizing
// into a plain matrix and letting the GEMM pack it cost a second pass over every value (and
// a repacking of A per tile). A tile's panels (about 2 MiB) stay in cache between being written
// and being read. Caching the dequantized panels across calls would save the dequantization
// too, but take 32 / bits times the weight's memory, which is what keeping the weight packed
// avoids.
//
// A panel holds, per k, the values of gemm_panel_columns() consecutive weight rows, so writing
// it is a transpose: it is done on the packed bytes, 8 / bits values at a time, before they
// are unpacked. Per group of L rows (L the vector length), the 32-bit words of the rows are
// interleaved (word w of row j goes to lane j of vector w); field s of vector w is then value
// w * 32 / bits + s of each of the L rows: L consecutive columns of panel row k, scaled and
// shifted by their blocks' scales and zero points (also interleaved) in one FMA.
#include "backends/cpu/nbits_matmul.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/nbits_gemv.h"
#include "core/thread_pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/nbits_matmul.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;

// Row n's zero points as floats, one per block, into `out` (kBits a constant: no division).
template <int kBits>
void row_zero_points(const NBitsWeight& w, int64_t n, int64_t blocks, float* HWY_RESTRICT out) {
  constexpr int kPer = 8 / kBits;
  if (w.float_zero_points) {
    std::copy_n(w.float_zero_points + n * blocks, blocks, out);
  } else if (w.packed_zero_points) {
    const uint8_t* row = w.packed_zero_points + n * ((blocks * kBits + 7) / 8);
    for (int64_t b = 0; b < blocks; ++b) {
      out[b] = static_cast<float>((row[b / kPer] >> ((b % kPer) * kBits)) & ((1 << kBits) - 1));
    }
  } else {
    std::fill_n(out, blocks, static_cast<float>(1 << (kBits - 1)));
  }
}

// Vectors across a panel: kiln's GEMM panels are at most 3 vectors wide.
constexpr int64_t kMaxGroups = 4;

// Weight rows [n0, n0 + cols) into one panel of `width` columns (a multiple of L, >= cols):
// panel[k * width + j] = W[n0 + j, k] for k < K, zero for j >= cols.
template <int kBits>
void dequantize_panel(const NBitsWeight& w, int64_t n0, int64_t cols, int64_t width,
                      float* HWY_RESTRICT panel) {
  constexpr int kFields = 32 / kBits;
  const DF d;
  const DU du;
  const DI di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t blocks = w.k_blocks(), row_bytes = blocks * w.blob_size(), words = row_bytes / 4;
  const int64_t words_per_block = w.blob_size() / 4;
  // Per group of L rows: their words, scales and scale * zero point, interleaved by row.
  const int64_t groups = width / L;
  HWY_DASSERT(groups <= kMaxGroups);
  thread_local std::vector<uint32_t> words_t;
  thread_local std::vector<float> scales_t, shifts_t, zero_points;
  words_t.resize(static_cast<size_t>(groups * words * L));
  scales_t.resize(static_cast<size_t>(groups * blocks * L));
  shifts_t.resize(static_cast<size_t>(groups * blocks * L));
  zero_points.resize(static_cast<size_t>(blocks));
  for (int64_t g = 0; g < groups; ++g) {
    uint32_t* group_words = words_t.data() + g * words * L;
    float* group_scales = scales_t.data() + g * blocks * L;
    float* group_shifts = shifts_t.data() + g * blocks * L;
    for (int64_t j = 0; j < L; ++j) {
      const int64_t n = n0 + g * L + j;
      if (g * L + j < cols) {
        const uint8_t* row = w.data + n * row_bytes;
        for (int64_t v = 0; v < words; ++v) std::memcpy(&group_words[v * L + j], row + 4 * v, 4);
        row_zero_points<kBits>(w, n, blocks, zero_points.data());
        for (int64_t b = 0; b < blocks; ++b) {
          const float s = w.scales[n * blocks + b];
          group_scales[b * L + j] = s;
          group_shifts[b * L + j] = s * zero_points[b];
        }
      } else {  // past the last row: zeros
        for (int64_t v = 0; v < words; ++v) group_words[v * L + j] = 0;
        for (int64_t b = 0; b < blocks; ++b) group_scales[b * L + j] = group_shifts[b * L + j] = 0;
      }
    }
  }
  // Word by word, all groups at once, so that each panel row is written whole and in order.
  const hn::Vec<DU> mask = hn::Set(du, (1u << kBits) - 1);
  for (int64_t v = 0; v < words; ++v) {
    const int64_t b = v / words_per_block;
    hn::Vec<DU> packed[kMaxGroups];
    hn::Vec<DF> scale[kMaxGroups], shift[kMaxGroups];
    for (int64_t g = 0; g < groups; ++g) {
      packed[g] = hn::LoadU(du, words_t.data() + (g * words + v) * L);
      scale[g] = hn::LoadU(d, scales_t.data() + (g * blocks + b) * L);
      shift[g] = hn::LoadU(d, shifts_t.data() + (g * blocks + b) * L);
    }
    const int64_t k0 = v * kFields;
    const int64_t fields = std::min<int64_t>(kFields, w.K - k0);  // none past K
#pragma GCC unroll 16
    for (int s = 0; s < kFields; ++s) {
      if (s >= fields) break;
      float* out = panel + (k0 + s) * width;
      for (int64_t g = 0; g < groups; ++g) {
        auto q = s == 0 ? packed[g] : hn::ShiftRightSame(packed[g], s * kBits);
        if ((s + 1) * kBits < 32) q = hn::And(q, mask);
        const auto value = hn::MulSub(hn::ConvertTo(d, hn::BitCast(di, q)), scale[g], shift[g]);
        hn::Store(value, d, out + g * L);
      }
    }
  }
}

}  // namespace

// Weight rows [n0, n0 + cols) into the panels gemm.h's sgemm_packed_ab reads for a B of `cols`
// columns, panels [p0, p1) of them; `panels` is where panel 0 starts.
void nbits_dequantize_panels(const NBitsWeight& w, int64_t n0, int64_t cols, int64_t p0, int64_t p1,
                             int64_t panel_columns, float* panels) {
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t first = p * panel_columns;
    const int64_t width = gemm_panel_width(p, cols);
    float* panel = panels + first * w.K;
    const int64_t n = std::min(panel_columns, cols - first);
    if (w.bits == 2) {
      dequantize_panel<2>(w, n0 + first, n, width, panel);
    } else if (w.bits == 4) {
      dequantize_panel<4>(w, n0 + first, n, width, panel);
    } else {
      dequantize_panel<8>(w, n0 + first, n, width, panel);
    }
  }
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "hwy/aligned_allocator.h"

namespace kiln::cpu {

HWY_EXPORT(nbits_dequantize_panels);

namespace {

// Floats of a tile of dequantized panels at most: 256 KiB, which stays in the core's L2 cache
// beside the GEMM's block of A (a 512 KiB L2 on Zen 3) between being written and being read,
// and is overwritten there by the next tile without ever going out to L3. 2 MiB tiles went to
// L3 and back: at two threads, where both cores share L3, the dequantization took 8 % of a
// 128-token prefill (perf) and the prefill ran 3-7 % slower (the tokengen decoder, kiln bench
// minimums alternating, Zen 3).
constexpr int64_t kTileFloats = int64_t{1} << 16;

// How many tiles of whole panels the weight's columns split into: none above kTileFloats, and
// a multiple of the thread count where there are panels enough, so the threads get equal work.
int64_t tile_count(int64_t panels, int64_t K, int64_t panel_columns, int threads) {
  const int64_t max_panels = std::max<int64_t>(1, kTileFloats / K / panel_columns);
  int64_t tiles = (panels + max_panels - 1) / max_panels;
  if (threads > 1 && panels >= threads) tiles = (tiles + threads - 1) / threads * threads;
  return std::min(tiles, panels);
}

// Each thread takes whole tiles of columns: it dequantizes a tile's panels into its own buffer
// and multiplies them at once (the GEMM inside runs on that thread alone), so the panels are
// read from the cache of the core that wrote them, and a call splits its work once instead of
// twice per tile.
void gemm_path(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y) {
  thread_local PackedA packed;
  pack_a(M, w.K, A, w.K, packed);
  // The calling thread's: named inside the body, a thread_local would be the worker's.
  const PackedA& a = packed;
  const int64_t panel_columns = gemm_panel_columns();
  const int64_t panels = (w.N + panel_columns - 1) / panel_columns;
  ThreadPool* pool = ThreadPool::current();
  const int threads = (pool ? *pool : ThreadPool::shared()).num_threads();
  const int64_t tiles = tile_count(panels, w.K, panel_columns, threads);
  const int64_t tile_panels = (panels + tiles - 1) / tiles;
  const auto dequantize = HWY_DYNAMIC_DISPATCH(nbits_dequantize_panels);
  parallel_for(tiles, 1, [&](int64_t t0, int64_t t1) {
    thread_local hwy::AlignedFreeUniquePtr<float[]> buffer;
    thread_local size_t capacity = 0;
    const size_t floats =
        static_cast<size_t>(gemm_panels_floats(w.K, std::min(w.N, tile_panels * panel_columns)));
    if (floats > capacity) {
      buffer = hwy::AllocateAligned<float>(floats);
      capacity = floats;
    }
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t p0 = t * tile_panels, p1 = std::min(panels, p0 + tile_panels);
      if (p0 >= p1) break;
      const int64_t n0 = p0 * panel_columns;
      const int64_t cols = std::min(w.N, p1 * panel_columns) - n0;
      dequantize(w, n0, cols, 0, p1 - p0, panel_columns, buffer.get());
      GemmEpilogue epilogue;
      if (bias) {
        epilogue.bias_kind = GemmBias::kPerColumn;
        epilogue.bias = bias + n0;
      }
      sgemm_packed_ab(a, buffer.get(), cols, Y + n0, w.N, epilogue);
    }
  });
}

}  // namespace

void nbits_matmul_path(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                       bool gemv, NBitsArithmetic arithmetic) {
  if (M <= 0 || w.N <= 0) return;
  if (gemv) {
    nbits_gemv(w, M, A, bias, Y, arithmetic);
  } else {
    gemm_path(w, M, A, bias, Y);
  }
}

void nbits_matmul(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                  NBitsArithmetic arithmetic) {
  nbits_matmul_path(w, M, A, bias, Y, M <= kNBitsGemvMaxRows, arithmetic);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
