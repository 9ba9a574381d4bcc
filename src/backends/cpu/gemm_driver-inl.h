// GEMM cache blocking and work split, compiled once per SIMD target.
//
// Loop nest of one part of C (rows [m0, m1), column panels [p0, p1)), BLIS-style:
//   for each block of column panels:          (only when B is packed on the fly)
//     for each K block (kc):                  C is revisited once per K block
//       [pack the kc x block slice of B]      it stays in L3 for the loops below
//       for each row block of A (mc rows):    packed A block (mc x kc) stays in L2
//         for each column panel (kNR):        its kc x kNR slice of B stays in L1/L2
//           for each kMR rows of the block:   micro-kernel
// Packing exists to give the kernel contiguous, cache-friendly streams; it is skipped where
// it would not repay the copy (see BMode and use_direct_a).

#if defined(KILN_CPU_GEMM_DRIVER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_GEMM_DRIVER_INL_H_
#undef KILN_CPU_GEMM_DRIVER_INL_H_
#else
#define KILN_CPU_GEMM_DRIVER_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cpu/gemm_detail.h"
#include "backends/cpu/gemm_dot-inl.h"
#include "backends/cpu/gemm_gemv-inl.h"
#include "backends/cpu/gemm_kernel-inl.h"
#include "backends/cpu/gemm_pack-inl.h"
#include "backends/cpu/gemm_plan.h"
#include "core/thread_pool.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace gemm {

// K blocks of up to 512: each K block is one more pass over C (a load and a store of every
// tile), and the streams the kernel reads per k (one B row of kNR floats, kMR A values) come
// from L2 fast enough, so a B panel need not fit L1 (measured on Zen 4: 512 beat 256 and 384
// by 3-5 % on 1024^3). mc x kc floats of A (~300 KiB) stay in L2.
inline constexpr int64_t kMaxKc = 512;
inline constexpr int64_t kMaxMc =
    kMR * (HWY_MAX_BYTES >= 64 ? 12 : (HWY_MAX_BYTES == 32 ? 30 : 20));

// A tile narrower than kNR goes through a buffer on the stack, so the kernel never touches C
// (or the column bias) past column n_valid.
inline void run_edge_tile(KernelFn kernel, const float* a, size_t lda, const float* b,
                          size_t b_stride, size_t kc, float* c, size_t ldc, size_t rows,
                          size_t n_valid, const TileStore& store) {
  HWY_ALIGN float tile[kMR * kNR];
  HWY_ALIGN float bias[kNR];
  const size_t bytes = n_valid * sizeof(float);
  TileStore edge = store;
  if (store.c_scale != 0.0f) {
    for (size_t i = 0; i < rows; ++i) {
      std::memcpy(tile + i * kNR, c + i * ldc, bytes);
      std::fill(tile + i * kNR + n_valid, tile + (i + 1) * kNR, 0.0f);
    }
  }
  if (store.finish && store.col_bias) {
    std::memcpy(bias, store.col_bias, bytes);
    std::fill(bias + n_valid, bias + kNR, 0.0f);
    edge.col_bias = bias;
  }
  kernel(a, lda, b, b_stride, kc, tile, kNR, edge);
  for (size_t i = 0; i < rows; ++i) std::memcpy(c + i * ldc, tile + i * kNR, bytes);
}

// B is read in place when all rows fit one register tile (each B value is then used once).
inline constexpr int64_t kDirectBMaxRows = kMR;
// Column panels per block when B is packed on the fly: about 1024 columns, so that a part of
// up to that width packs each A block once (512 columns, as before, cost 1024^3 about 2 % in
// A packing). The kc x 1024 block (2 MiB per thread at kc = 512) lives in L3; what has to stay
// close is only the kc x kNR panel the row tiles of one A block share (L2), as in BLIS.
inline constexpr int64_t kBlockPanels = (1024 + kNR - 1) / kNR;

// How a part gets its B panels.
enum class BMode {
  kPrepacked,    // all of op(B) packed beforehand (PackedB)
  kPackInBlock,  // each part packs kc x (kBlockPanels * kNR) slices as it goes
  kDirect,       // op(B) = B read in place: for a single row panel, which uses each value once
};

struct BInput {
  BMode mode = BMode::kPrepacked;
  const float* packed = nullptr;  // kPrepacked: panels of K x kNR floats
  bool trans = false;             // the caller's B, for the other modes
  const float* b = nullptr;
  int64_t ldb = 0;
};

// Whether the kernel reads op(A) = A in place instead of a packed copy, for a part of `panels`
// column panels. Each kMR-row panel of A is then kMR strided rows instead of one contiguous
// run: that saves a pass over A per K block, which pays when few column panels share each
// packed A block, but costs in the kernel (kMR address streams; on AVX-512 more row pointers
// than general registers, so some are reloaded every k), which shows when many do. Measured on
// Zen 4 (gemm_bench --shapes, ResNet's 1x1 convolutions): packing wins by 6-10 % at 784 and
// 3136 columns, reading in place by up to 5 % at 196. A stride that maps all kMR rows to the
// same few L1 sets (lda a multiple of 512 floats) always packs: those rows conflict.
// Either way the kernel sums in the same order, so the choice never changes the result.
inline constexpr int64_t kDirectAMaxPanels = 256 / kLanes;
inline bool use_direct_a(const gemm_detail::Problem& p, int64_t panels) {
  return p.packed_a == nullptr && !p.trans_a && p.lda % 512 != 0 && panels <= kDirectAMaxPanels;
}

// Rows of op(A) rounded up to whole kMR-row panels: the rows of a packed A.
inline int64_t padded_rows(int64_t m) { return (m + kMR - 1) / kMR * kMR; }

// Computes rows [m0, m1) x column panels [p0, p1) of C over all of K.
inline void run_part(const gemm_detail::Problem& p, const BInput& in, int64_t m0, int64_t m1,
                     int64_t p0, int64_t p1) {
  using gemm_detail::Scratch;
  const int64_t k = p.k;
  const int64_t kc_block = gemm_detail::even_block(k, kMaxKc, 8);
  const int64_t mc_block = gemm_detail::even_block(m1 - m0, kMaxMc, kMR);
  const int64_t mc_padded = (mc_block + kMR - 1) / kMR * kMR;
  const int64_t nc_panels =
      in.mode == BMode::kPackInBlock ? std::min(kBlockPanels, p1 - p0) : p1 - p0;
  const bool direct_a = use_direct_a(p, p1 - p0);
  const bool prepacked_a = p.packed_a != nullptr;
  float* a_block =
      direct_a || prepacked_a
          ? nullptr
          : gemm_detail::thread_scratch(Scratch::kPackA, static_cast<size_t>(mc_padded * kc_block));
  float* b_block = nullptr;
  if (in.mode == BMode::kPackInBlock) {
    b_block = gemm_detail::thread_scratch(Scratch::kPackB,
                                          static_cast<size_t>(kc_block * nc_panels * kNR));
  } else if (in.mode == BMode::kDirect && p1 * kNR > p.n) {
    // Only the last panel is copied: reading kNR columns there would run past B.
    b_block = gemm_detail::thread_scratch(Scratch::kPackB, static_cast<size_t>(kc_block * kNR));
  }
  const size_t lda = static_cast<size_t>(p.lda);
  const size_t ldc = static_cast<size_t>(p.ldc);

  TileStore store;
  store.alpha = p.ep.alpha;
  store.clamp = p.ep.clamp;
  store.lo = p.ep.lo;
  store.hi = p.ep.hi;
  for (int64_t jc = p0; jc < p1; jc += nc_panels) {
    const int64_t jc_end = std::min(p1, jc + nc_panels);
    for (int64_t pc = 0; pc < k; pc += kc_block) {
      const int64_t kc = std::min(kc_block, k - pc);
      store.c_scale = pc == 0 ? p.ep.beta : 1.0f;
      store.finish = pc + kc == k;
      if (in.mode == BMode::kPackInBlock) {
        pack_b_panels(in.trans, p.n, in.b, in.ldb, pc, kc, jc, jc_end, kc * kNR, b_block);
      } else if (b_block) {
        pack_b_panels(false, p.n, in.b, in.ldb, pc, kc, p1 - 1, p1, 0, b_block);
      }
      for (int64_t ic = m0; ic < m1; ic += mc_block) {
        const int64_t mc = std::min(mc_block, m1 - ic);
        if (!direct_a && !prepacked_a) pack_a_block(p, ic, mc, pc, kc, a_block);
        // A pre-packed A holds, per K block, all row panels at kc floats per row (pack_a_all).
        const float* a_packed_block =
            prepacked_a ? p.packed_a + pc * padded_rows(p.m) + ic * kc : a_block;
        for (int64_t jp = jc; jp < jc_end; ++jp) {
          const int64_t n0 = jp * kNR;
          const size_t n_valid = static_cast<size_t>(std::min(kNR, p.n - n0));
          const int64_t width = panel_width(jp, p.n);
          const KernelTable& kernels = kernel_table(static_cast<size_t>(width / kLanes), direct_a);
          const float* b_panel;
          size_t b_stride = static_cast<size_t>(width);
          if (in.mode == BMode::kPrepacked) {
            b_panel = in.packed + jp * k * kNR + pc * width;
          } else if (in.mode == BMode::kPackInBlock) {
            b_panel = b_block + (jp - jc) * kc * kNR;
          } else if (n_valid == static_cast<size_t>(kNR)) {
            b_panel = in.b + pc * in.ldb + n0;
            b_stride = static_cast<size_t>(in.ldb);
          } else {
            b_panel = b_block;
          }
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            const size_t rows = static_cast<size_t>(std::min(kMR, mc - ir));
            float* c = p.c + (ic + ir) * p.ldc + n0;
            store.row_bias = p.ep.row_bias ? p.ep.row_bias + ic + ir : nullptr;
            store.col_bias = p.ep.col_bias ? p.ep.col_bias + n0 : nullptr;
            const float* a_panel =
                direct_a ? p.a + (ic + ir) * p.lda + pc : a_packed_block + ir * kc;
            const KernelFn kernel = kernels[rows - 1];
            if (n_valid == static_cast<size_t>(width)) {
              kernel(a_panel, lda, b_panel, b_stride, static_cast<size_t>(kc), c, ldc, store);
            } else {
              run_edge_tile(kernel, a_panel, lda, b_panel, b_stride, static_cast<size_t>(kc), c,
                            ldc, rows, n_valid, store);
            }
          }
        }
        if (store.finish) {
          gemm_detail::finish_block(p.ep, p.c, p.ldc, ic, ic + mc, jc * kNR,
                                    std::min(p.n, jc_end * kNR));
        }
      }
    }
  }
}

// Runs the parts of `grid` on the job system (inline when there is one part).
inline void run_parts(const gemm_detail::Problem& p, const BInput& in, gemm_detail::PartGrid grid) {
  const int64_t row_panels = (p.m + kMR - 1) / kMR;
  const int64_t col_panels = (p.n + kNR - 1) / kNR;
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index) {
      const int64_t ri = index / grid.col_parts;
      const int64_t ci = index % grid.col_parts;
      const int64_t m0 = gemm_detail::part_begin(row_panels, grid.row_parts, ri) * kMR;
      const int64_t m1 =
          std::min(p.m, gemm_detail::part_begin(row_panels, grid.row_parts, ri + 1) * kMR);
      const int64_t p0 = gemm_detail::part_begin(col_panels, grid.col_parts, ci);
      const int64_t p1 = gemm_detail::part_begin(col_panels, grid.col_parts, ci + 1);
      if (m0 < m1 && p0 < p1) run_part(p, in, m0, m1, p0, p1);
    }
  };
  if (grid.count() == 1) {
    body(0, 1);
  } else {
    parallel_for(grid.count(), 1, body);
  }
}

inline int64_t packed_b_floats(int64_t k, int64_t n) {
  const int64_t panels = (n + kNR - 1) / kNR;
  return panels == 0 ? 0 : ((panels - 1) * kNR + panel_width(panels - 1, n)) * k;
}

// Packs all of op(B) into panels of K x kNR, splitting large packs across threads.
inline void pack_b_all(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb,
                       float* dst) {
  const int64_t col_panels = (n + kNR - 1) / kNR;
  const int64_t panel_floats = k * kNR;
  auto body = [&](int64_t begin, int64_t end) {
    pack_b_panels(trans_b, n, b, ldb, 0, k, begin, end, panel_floats, dst + begin * panel_floats);
  };
  const int64_t grain = std::max<int64_t>(
      1, gemm_detail::kMinParallelFloats / 4 / std::max<int64_t>(1, panel_floats));
  if (k * n < gemm_detail::kMinParallelFloats || gemm_detail::available_threads() <= 1) {
    body(0, col_panels);
  } else {
    parallel_for(col_panels, grain, body);
  }
}

inline int64_t packed_a_floats(int64_t m, int64_t k) { return padded_rows(m) * k; }

// Packs op(A) (M x K) for run_part: per K block (the blocking run_part uses for this K), all
// its kMR-row panels as pack_a_block lays them out.
inline void pack_a_all(const gemm_detail::Problem& p, float* dst) {
  const int64_t kc_block = gemm_detail::even_block(p.k, kMaxKc, 8);
  for (int64_t pc = 0; pc < p.k; pc += kc_block) {
    const int64_t kc = std::min(kc_block, p.k - pc);
    pack_a_block(p, 0, p.m, pc, kc, dst + pc * padded_rows(p.m));
  }
}

// C = op(A) B with A from pack_a_all (p.packed_a) and B read as it is: always the tiled path,
// as the others read A in place.
inline void gemm_with_packed_a(const gemm_detail::Problem& p, const float* b, int64_t ldb) {
  BInput in;
  in.b = b;
  in.ldb = ldb;
  in.mode = p.m <= kDirectBMaxRows ? BMode::kDirect : BMode::kPackInBlock;
  run_parts(p, in,
            gemm_detail::plan_parts(p.m, p.n, p.k, kMR, kNR, gemm_detail::available_threads(),
                                    /*columns_first=*/true));
}

inline void gemm_with_packed_b(const gemm_detail::Problem& p, const float* packed) {
  // A few columns (a classifier head, a narrow convolution) fill a fraction of each vector in
  // the register tile; the dot-product path suits them better. op(B) is then one panel, which
  // is op(B) itself, row-major with its panel width as the leading dimension.
  if (p.n <= kNR && use_dot_path(p, /*trans_b=*/false)) {
    dot_gemm(p, /*trans_b=*/false, packed, panel_width(0, p.n));
    gemm_detail::finish_block(p.ep, p.c, p.ldc, 0, p.m, 0, p.n);
    return;
  }
  BInput in;
  in.packed = packed;
  run_parts(p, in,
            gemm_detail::plan_parts(p.m, p.n, p.k, kMR, kNR, gemm_detail::available_threads()));
}

inline void gemm_unpacked(const gemm_detail::Problem& p, bool trans_b, const float* b,
                          int64_t ldb) {
  // These paths make small outputs (one row, or a few columns): finished as a whole.
  if (use_gemv_path(p, trans_b)) {
    gemv(p, trans_b, b, ldb);
    gemm_detail::finish_block(p.ep, p.c, p.ldc, 0, p.m, 0, p.n);
    return;
  }
  if (use_dot_path(p, trans_b)) {
    dot_gemm(p, trans_b, b, ldb);
    gemm_detail::finish_block(p.ep, p.c, p.ldc, 0, p.m, 0, p.n);
    return;
  }
  BInput in;
  in.trans = trans_b;
  in.b = b;
  in.ldb = ldb;
  in.mode = !trans_b && p.m <= kDirectBMaxRows ? BMode::kDirect : BMode::kPackInBlock;
  // Parts that share columns would each pack the same B slices, so split columns first.
  run_parts(p, in,
            gemm_detail::plan_parts(p.m, p.n, p.k, kMR, kNR, gemm_detail::available_threads(),
                                    /*columns_first=*/true));
}

}  // namespace gemm
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
