// MatMulNBits' GEMV (few rows of A against a packed weight; backends/cpu/nbits_gemv.h): reads
// the packed bytes once and does all of its arithmetic in vector registers.
//
// A weight row is read as 32-bit lanes of 4 packed bytes each: lane i of a chunk of L lanes
// holds the F = 32 / bits consecutive values F * i.., its field s (bits s * bits up) being value
// F * i + s. A field is a mask away from an integer times a power of two (field_unit), for all
// L lanes at once, so a chunk of 4 L bytes costs one load and, per field, a mask, a conversion
// and an FMA with the matching vector of A. A's rows are rearranged once per call into that
// order (field by field, lanes within; each field's values divided by its power of two), so
// that these are plain vector loads.
//
// A lane's values lie in one quantization block (a block is at least 4 bytes), but a chunk can
// span several blocks: the per-block scale and zero point then come as vectors holding each
// lane's block's value (a table lookup). Per lane, sum(a * (q - zp)) * scale is
// (sum(a * q) - zp * sum(a)) * scale, with sum(a) per lane computed once per call during the
// rearrangement: the zero point costs one FMA per chunk and weight row, and no scalar loop.
//
// In the float32 arithmetic, several weight rows go through a chunk of A together (4 with one row
// of A, 2 with two, 1 with four), so that each vector of A loaded serves several FMAs and
// independent accumulators hide the FMA latency. The int8 arithmetic, with far fewer instructions
// per byte, is bound by memory instead and reads one weight row at a time (gemv_rows_int8 says
// why).
//
// Most chunks are "plain" (WeightRows::plain_chunks): their scales are one load inside the array,
// and a loop without branches runs them with every accumulator in a register; the others (a
// partial last chunk, the array's end, blocks wider than a chunk) take the general path.
//
// Where it stands (bench/nbits_matmul_bench.cpp, Zen 3 with AVX2, one thread, int4, block 32):
// with int8 activations 8-11 GB/s from memory, 70-90 % of a streaming read; float32 4-7 GB/s
// (arithmetic-bound: 3 instructions per 8 values).
#include "backends/cpu/nbits_gemv.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/thread_pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/nbits_gemv.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;

// How a chunk is run. kGeneral: any chunk (a partial last one, or one at the end of the scales'
// array), with every check. The others are "plain" chunks, whole ones whose per-block values
// (scales, zero points) need no check. kPlain: of the geometry's kind, picked per chunk at run
// time (one well-predicted branch). Or, with the kernel compiled for the kind, by how the lanes
// get those values: kOneBlock, the chunk lies in one block, whose value goes to every lane;
// kFewBlocks, it spans 2 to 4 blocks, whose values are loaded into every 128-bit part of a vector
// and picked within it (one shuffle inside each part); kManyBlocks, more, loaded once and picked
// across the vector (a permute across parts, slower on x86). (A chunk in one block used to find
// its block by a division, which halved the int8 GEMV's speed at block 128.)
enum class Chunk { kGeneral, kPlain, kOneBlock, kFewBlocks, kManyBlocks };
template <Chunk kKind>
using ChunkKind = std::integral_constant<Chunk, kKind>;

// How a weight row falls into chunks of L 32-bit lanes on this target.
struct Geometry {
  int64_t lanes = 0;         // L
  int64_t chunk_bytes = 0;   // 4 L
  int64_t chunk_values = 0;  // 4 L * 8 / bits
  int64_t row_bytes = 0;
  int64_t full_chunks = 0;        // chunks wholly inside the row
  int64_t tail_bytes = 0;         // bytes of the last, partial chunk (0: none)
  int64_t chunks = 0;             // full_chunks, plus one for a tail
  int64_t k_pad = 0;              // chunks * chunk_values: a rearranged row of A
  int64_t blocks = 0;             // quantization blocks per row
  int64_t block_size = 0;         // values per block
  int64_t blocks_per_chunk = 0;   // > 1: a chunk spans several blocks; else it lies in one
  int block_shift = 0;            // in one block: chunk c lies in block c >> block_shift
  Chunk plain = Chunk::kGeneral;  // the kind of the plain chunks
  int64_t prefetch_bytes = 0;     // how far ahead of a row's reads to prefetch
};

Geometry geometry(const NBitsWeight& w) {
  Geometry g;
  g.lanes = static_cast<int64_t>(hn::Lanes(DF()));
  g.chunk_bytes = 4 * g.lanes;
  g.chunk_values = g.chunk_bytes * (8 / w.bits);
  g.blocks = w.k_blocks();
  g.block_size = w.block_size;
  g.row_bytes = g.blocks * w.blob_size();
  g.full_chunks = g.row_bytes / g.chunk_bytes;
  g.tail_bytes = g.row_bytes % g.chunk_bytes;
  g.chunks = g.full_chunks + (g.tail_bytes > 0 ? 1 : 0);
  g.k_pad = g.chunks * g.chunk_values;
  g.blocks_per_chunk = g.chunk_values / w.block_size;
  if (g.blocks_per_chunk <= 1) {
    g.plain = Chunk::kOneBlock;
    while ((g.chunk_values << g.block_shift) < w.block_size) ++g.block_shift;
  } else {
    g.plain = g.blocks_per_chunk <= 4 ? Chunk::kFewBlocks : Chunk::kManyBlocks;
  }
  // Four rows on, which follow in memory: the next group's where a group of rows reads several
  // short runs at once, which the hardware prefetchers follow less well than one long one.
  g.prefetch_bytes = 4 * g.row_bytes;
  return g;
}

// Whether field<kBits> looks its fields up in a table (AVX-512, 4 bits) rather than masking
// them in place.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr bool kHasFieldTable = true;
#else
constexpr bool kHasFieldTable = false;
#endif
template <int kBits>
constexpr bool kFieldsByTable = kBits == 4 && kHasFieldTable;

// What field s of a lane comes out of field<kBits> multiplied by: a field below the top one is
// masked where it lies, without a shift, so it comes out as its value times 2^(s * kBits); A's
// values for that field are rearranged multiplied by the inverse, so that the products are
// exact all the same (a power of two; only an activation below ~1e-29 would lose bits, to
// subnormals). That makes a field a mask, a conversion and an FMA, one instruction fewer than
// with a shift, in an arithmetic bound by its instruction count.
template <int kBits>
constexpr float field_unit(int s) {
  const bool top = (s + 1) * kBits >= 32;
  return kFieldsByTable<kBits> || top ? 1.0f : static_cast<float>(1u << (s * kBits));
}

// Field s (bits s * kBits up) of every lane, as a float times field_unit<kBits>(s) (s a constant
// once unrolled).
template <int kBits>
HWY_INLINE VF field(VU packed, int s) {
  const DU du;
  const DF df;
  const DI di;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (kFieldsByTable<kBits>) {
    // vpermps reads only the low 4 bits of each index: a 16-entry table of the floats 0..15
    // masks and converts in one instruction. (Not hn::TableLookupLanes, whose debug builds
    // check that the indices are in range.)
    const VU q = s == 0 ? packed : hn::ShiftRightSame(packed, s * kBits);
    const VF table = hn::Iota(df, 0.0f);
    return VF{_mm512_permutexvar_ps(q.raw, table.raw)};
  }
#endif
  // The top field is a shift (a mask in place would set the sign bit); the others a mask.
  if ((s + 1) * kBits >= 32)
    return hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRightSame(packed, s * kBits)));
  const VU q = hn::And(packed, hn::Set(du, ((1u << kBits) - 1) << (s * kBits)));
  return hn::ConvertTo(df, hn::BitCast(di, q));
}

// Spreads a row's per-block values (scales or zero points) over the lanes of a chunk: lane i of
// chunk c takes the value of the block its values lie in.
class LaneValues {
 public:
  explicit LaneValues(const Geometry& g) : g_(g) {
    HWY_ALIGN int32_t block[hn::MaxLanes(DF())] = {};
    HWY_ALIGN uint8_t byte[4 * hn::MaxLanes(DF())] = {};
    if (g.blocks_per_chunk > 1) {
      const int64_t lanes_per_block = g.lanes / g.blocks_per_chunk;
      for (int64_t i = 0; i < g.lanes; ++i) {
        block[i] = static_cast<int32_t>(i / lanes_per_block);
        // kFewBlocks: every 128-bit part holds the chunk's first 4 values; lane i takes bytes
        // 4 block .. 4 block + 3 of its part.
        for (int t = 0; t < 4; ++t) byte[4 * i + t] = static_cast<uint8_t>(4 * (block[i] & 3) + t);
      }
    }
    lanes_ = hn::SetTableIndices(DF(), block);
#if HWY_TARGET != HWY_SCALAR
    in_part_ = hn::Load(D8(), byte);
#else
    (void)byte;  // one lane: every chunk lies in one block
#endif
  }

  // Chunk c's, from the values at `row`, for a plain chunk of kind kKind.
  template <Chunk kKind>
  HWY_INLINE VF plain(const float* HWY_RESTRICT row, int64_t c) const {
    const DF d;
    if constexpr (kKind == Chunk::kPlain) {
      if (g_.plain == Chunk::kOneBlock) return plain<Chunk::kOneBlock>(row, c);
      if (g_.plain == Chunk::kFewBlocks) return plain<Chunk::kFewBlocks>(row, c);
      return plain<Chunk::kManyBlocks>(row, c);
    } else if constexpr (kKind == Chunk::kOneBlock) {
      return hn::Set(d, row[c >> g_.block_shift]);
#if HWY_TARGET != HWY_SCALAR
    } else if constexpr (kKind == Chunk::kFewBlocks) {
      const auto values = hn::BitCast(D8(), hn::LoadDup128(d, row + c * g_.blocks_per_chunk));
      return hn::BitCast(d, hn::TableLookupBytes(values, in_part_));
#endif
    } else {
      return hn::TableLookupLanes(hn::LoadU(d, row + c * g_.blocks_per_chunk), lanes_);
    }
  }

  // Chunk c's for any chunk; `end` is where the array the values lie in ends, which no load
  // passes.
  HWY_INLINE VF general(const float* HWY_RESTRICT row, const float* end, int64_t c) const {
    const DF d;
    if (g_.blocks_per_chunk <= 1) return hn::Set(d, row[c >> g_.block_shift]);
    const float* first = row + c * g_.blocks_per_chunk;
    VF v;
    if (end - first >= g_.lanes) {
      v = hn::LoadU(d, first);
    } else {
      HWY_ALIGN float buffer[hn::MaxLanes(DF())] = {};
      std::copy(first, end, buffer);
      v = hn::Load(d, buffer);
    }
    return hn::TableLookupLanes(v, lanes_);
  }

 private:
  const Geometry& g_;
  decltype(hn::SetTableIndices(DF(), static_cast<const int32_t*>(nullptr))) lanes_;
#if HWY_TARGET != HWY_SCALAR
  using D8 = hn::Repartition<uint8_t, DF>;
  hn::Vec<D8> in_part_;
#endif
};

// The zero points of a row as floats, into `out` (blocks floats); packed ones are unpacked.
struct ZeroPoints {
  const NBitsWeight* w = nullptr;
  // Fixed: every block's zero point (no zero points given).
  bool fixed = false;
  float fixed_value = 0.0f;

  // The row's zero points and the end of the array they lie in.
  std::pair<const float*, const float*> row(int64_t n, float* HWY_RESTRICT out) const {
    const int64_t blocks = w->k_blocks();
    if (w->float_zero_points) {
      return {w->float_zero_points + n * blocks, w->float_zero_points + w->N * blocks};
    }
    const int64_t bits = w->bits, per = 8 / bits;
    const uint8_t* packed = w->packed_zero_points + n * ((blocks * bits + 7) / 8);
    const unsigned mask = (1u << bits) - 1;
    for (int64_t b = 0; b < blocks; ++b) {
      out[b] = static_cast<float>((packed[b / per] >> ((b % per) * bits)) & mask);
    }
    return {out, out + blocks};
  }
};

// kRowsW consecutive weight rows from row n: their packed bytes, scales and zero points.
template <int kRowsW>
struct WeightRows {
  const Geometry& g;
  const LaneValues& lane_values;
  const uint8_t* rows[kRowsW];
  const float* scales[kRowsW];
  const float* zp_rows[kRowsW];
  const float* zp_ends[kRowsW];
  const float* scales_end;
  const ZeroPoints& zps;
  const VF fixed_zp;

  HWY_INLINE WeightRows(const Geometry& geometry, const LaneValues& values, const NBitsWeight& w,
                        const ZeroPoints& z, float* HWY_RESTRICT zp_buffer, int64_t n)
      : g(geometry),
        lane_values(values),
        scales_end(w.scales + w.N * geometry.blocks),
        zps(z),
        fixed_zp(hn::Set(DF(), z.fixed_value)) {
    for (int j = 0; j < kRowsW; ++j) {
      rows[j] = w.data + (n + j) * g.row_bytes;
      scales[j] = w.scales + (n + j) * g.blocks;
      if (!zps.fixed) {
        const auto [row, end] = zps.row(n + j, zp_buffer + j * g.blocks);
        zp_rows[j] = row;
        zp_ends[j] = end;
      }
    }
  }

  // Chunk c of each row as 32-bit lanes, and a prefetch of the rows further on. kPlain: c is
  // one of the plain chunks, a whole one.
  // kPrefetch false: the caller knows the line ahead was prefetched already.
  template <bool kPlain, bool kPrefetch = true>
  HWY_INLINE void load(int64_t c, VU (&packed)[kRowsW]) const {
    const DU du;
#pragma GCC unroll 4
    for (int j = 0; j < kRowsW; ++j) {
      const uint8_t* bytes = rows[j] + c * g.chunk_bytes;
      if constexpr (kPrefetch) hwy::Prefetch(bytes + g.prefetch_bytes);
      if (kPlain || c < g.full_chunks) {
        // Rows start at multiples of 4 bytes (a block is at least 4 bytes); LoadU copies.
        packed[j] = hn::LoadU(du, reinterpret_cast<const uint32_t*>(bytes));
      } else {  // the tail: whole lanes (blocks are multiples of 4 bytes), the rest zero
        HWY_ALIGN uint32_t buffer[hn::MaxLanes(DU())] = {};
        std::memcpy(buffer, bytes, static_cast<size_t>(g.tail_bytes));
        packed[j] = hn::Load(du, buffer);
      }
    }
  }

  // How many chunks from the first on are plain in every row: whole, and with per-block values
  // (scales, zero points) that LaneValues::plain reads without passing the end of their array.
  int64_t plain_chunks() const {
    if (g.plain == Chunk::kOneBlock) return g.full_chunks;
    int64_t plain = g.full_chunks;
    const auto limit = [&](const float* first, const float* end) {
      const int64_t room = end - first - g.lanes;  // floats a chunk's load may start past first
      if (room >= (plain - 1) * g.blocks_per_chunk) return;  // every row but the array's last
      plain = room < 0 ? 0 : std::min(plain, room / g.blocks_per_chunk + 1);
    };
    for (int j = 0; j < kRowsW; ++j) {
      limit(scales[j], scales_end);
      if (!zps.fixed) limit(zp_rows[j], zp_ends[j]);
    }
    return plain;
  }

  // Runs step(c, kind, parity) over the plain chunks, then over the rest with
  // ChunkKind<Chunk::kGeneral>: the plain ones in a loop without a check, with every accumulator
  // in a register. With kByKind, the plain chunks' kind is ChunkKind<g.plain> (the step is
  // compiled once for each kind), and parity, a std::integral_constant of 0 or 1, alternates over
  // pairs of them, so that a step can keep two sets of accumulators whose FMAs do not wait on
  // each other; without, it is ChunkKind<Chunk::kPlain>, and parity is always 0. (The float
  // path's step, unrolled over fields and rows, goes without: compiled for every kind and
  // parity, it took the sanitizer build's clang from 7.5 to over 19 minutes on this file.)
  template <bool kByKind, class Step>
  HWY_INLINE void for_each_chunk(const Step& step) const {
    const int64_t plain = plain_chunks();
    if constexpr (!kByKind) {
      for (int64_t c = 0; c < plain; ++c) step(c, ChunkKind<Chunk::kPlain>(), Even());
    } else if (g.plain == Chunk::kOneBlock) {
      run_plain<Chunk::kOneBlock>(step, plain);
    } else if (g.plain == Chunk::kFewBlocks) {
      run_plain<Chunk::kFewBlocks>(step, plain);
    } else {
      run_plain<Chunk::kManyBlocks>(step, plain);
    }
    for (int64_t c = plain; c < g.chunks; ++c) step(c, ChunkKind<Chunk::kGeneral>(), Even());
  }

  // Each lane's scale and zero point of row j in chunk c, a chunk of kind kKind.
  template <Chunk kKind>
  HWY_INLINE VF scale(int j, int64_t c) const {
    if constexpr (kKind == Chunk::kGeneral) {
      return lane_values.general(scales[j], scales_end, c);
    } else {
      return lane_values.plain<kKind>(scales[j], c);
    }
  }
  template <Chunk kKind>
  HWY_INLINE VF zero_point(int j, int64_t c) const {
    if (zps.fixed) return fixed_zp;
    if constexpr (kKind == Chunk::kGeneral) {
      return lane_values.general(zp_rows[j], zp_ends[j], c);
    } else {
      return lane_values.plain<kKind>(zp_rows[j], c);
    }
  }

 private:
  using Even = std::integral_constant<int, 0>;
  using Odd = std::integral_constant<int, 1>;

  template <Chunk kKind, class Step>
  HWY_INLINE void run_plain(const Step& step, int64_t plain) const {
    int64_t c = 0;
    for (; c + 2 <= plain; c += 2) {
      step(c, ChunkKind<kKind>(), Even());
      step(c + 1, ChunkKind<kKind>(), Odd());
    }
    if (c < plain) step(c, ChunkKind<kKind>(), Even());
  }
};

// Y[r, n + j] = the sum of acc[r][j]'s lanes + bias[n + j], for the kRowsA rows of Y (N apart).
template <int kRowsA, int kRowsW>
HWY_INLINE void store_sums(const VF (&acc)[kRowsA][kRowsW], int64_t N, int64_t n, const float* bias,
                           float* HWY_RESTRICT y) {
  const DF d;
  for (int r = 0; r < kRowsA; ++r) {
    for (int j = 0; j < kRowsW; ++j) {
      y[r * N + n + j] = hn::GetLane(hn::SumOfLanes(d, acc[r][j])) + (bias ? bias[n + j] : 0.0f);
    }
  }
}

// Weight rows [n0, n1) in groups of kRowsW, then one by one: group(rows, zp_buffer, n) with
// rows a std::integral_constant of kRowsW or 1, and zp_buffer room for their zero points.
template <int kRowsW, class Group>
void for_each_row_group(const Geometry& g, const ZeroPoints& zps, int64_t n0, int64_t n1,
                        const Group& group) {
  thread_local std::vector<float> zp_buffer;
  if (!zps.fixed) zp_buffer.resize(static_cast<size_t>(kRowsW * g.blocks));
  int64_t n = n0;
  for (; n + kRowsW <= n1; n += kRowsW) {
    group(std::integral_constant<int, kRowsW>(), zp_buffer.data(), n);
  }
  for (; n < n1; ++n) group(std::integral_constant<int, 1>(), zp_buffer.data(), n);
}

// Y[r, n + j] for kRowsA rows of A (rearranged: ar, k_pad apart; lane sums: lane_sums,
// chunks * L apart) and kRowsW weight rows from n on.
template <int kBits, int kRowsA, int kRowsW>
HWY_NOINLINE void gemv_group(const Geometry& g, const LaneValues& lane_values, const NBitsWeight& w,
                             const ZeroPoints& zps, float* HWY_RESTRICT zp_buffer, int64_t n,
                             const float* HWY_RESTRICT ar, const float* HWY_RESTRICT lane_sums,
                             const float* bias, float* HWY_RESTRICT y) {
  constexpr int kFields = 32 / kBits;
  const DF d;
  const int64_t L = g.lanes, sums_stride = g.chunks * L;
  const WeightRows<kRowsW> rows(g, lane_values, w, zps, zp_buffer, n);
  VF acc[kRowsA][kRowsW];
  for (int r = 0; r < kRowsA; ++r) {
    for (int j = 0; j < kRowsW; ++j) acc[r][j] = hn::Zero(d);
  }
  // Chunk c, of the kind `kind`.
  const auto step = [&](int64_t c, auto kind, auto /*parity*/) HWY_ATTR {
    constexpr Chunk kKind = decltype(kind)::value;
    VU packed[kRowsW];
    rows.template load<kKind != Chunk::kGeneral>(c, packed);
    VF dot[kRowsA][kRowsW];
#pragma GCC unroll 4
    for (int r = 0; r < kRowsA; ++r) {
#pragma GCC unroll 4
      for (int j = 0; j < kRowsW; ++j) dot[r][j] = hn::Zero(d);
    }
    const float* a = ar + c * g.chunk_values;
#pragma GCC unroll 16
    for (int s = 0; s < kFields; ++s) {
      VF av[kRowsA];
#pragma GCC unroll 4
      for (int r = 0; r < kRowsA; ++r) av[r] = hn::LoadU(d, a + r * g.k_pad + s * L);
#pragma GCC unroll 4
      for (int j = 0; j < kRowsW; ++j) {
        const VF q = field<kBits>(packed[j], s);
#pragma GCC unroll 4
        for (int r = 0; r < kRowsA; ++r) dot[r][j] = hn::MulAdd(q, av[r], dot[r][j]);
      }
    }
    VF sums[kRowsA];
#pragma GCC unroll 4
    for (int r = 0; r < kRowsA; ++r) sums[r] = hn::LoadU(d, lane_sums + r * sums_stride + c * L);
#pragma GCC unroll 4
    for (int j = 0; j < kRowsW; ++j) {
      const VF scale = rows.template scale<kKind>(j, c);
      const VF zp = rows.template zero_point<kKind>(j, c);
#pragma GCC unroll 4
      for (int r = 0; r < kRowsA; ++r) {
        acc[r][j] = hn::MulAdd(hn::NegMulAdd(zp, sums[r], dot[r][j]), scale, acc[r][j]);
      }
    }
  };
  rows.template for_each_chunk<false>(step);
  store_sums(acc, w.N, n, bias, y);
}

// Weight rows [n0, n1) for kRowsA rows of A: groups of kRowsW rows, then single rows.
template <int kBits, int kRowsA>
void gemv_rows(const Geometry& g, const NBitsWeight& w, const ZeroPoints& zps, int64_t n0,
               int64_t n1, const float* ar, const float* lane_sums, const float* bias, float* y) {
  const LaneValues lane_values(g);
  for_each_row_group<4 / kRowsA>(g, zps, n0, n1, [&](auto rows_w, float* zp_buffer, int64_t n) {
    gemv_group<kBits, kRowsA, rows_w>(g, lane_values, w, zps, zp_buffer, n, ar, lane_sums, bias, y);
  });
}

template <int kBits>
void gemv_bits(const Geometry& g, const NBitsWeight& w, const ZeroPoints& zps, int64_t rows,
               int64_t n0, int64_t n1, const float* ar, const float* lane_sums, const float* bias,
               float* y) {
  if (rows == 4) {
    gemv_rows<kBits, 4>(g, w, zps, n0, n1, ar, lane_sums, bias, y);
  } else if (rows == 2) {
    gemv_rows<kBits, 2>(g, w, zps, n0, n1, ar, lane_sums, bias, y);
  } else {
    gemv_rows<kBits, 1>(g, w, zps, n0, n1, ar, lane_sums, bias, y);
  }
}

// The int8 arithmetic (accuracy_level 4, 4-bit weights; x86 with AVX2 or AVX-512): A is
// quantized per block to int8 (nbits_quantize_block), and a chunk of 4 L packed bytes becomes two
// byte vectors (low and high nibbles) multiplied with A's bytes by vpmaddubsw (unsigned by
// signed bytes, pairs summed to 16 bits: at most 2 * 15 * 127, no saturation) and summed to 32
// bits per lane by vpmaddwd: 7 instructions per chunk where the float arithmetic needs 30.
// Lane i of a chunk still sums values 8 i to 8 i + 7, so scales and zero points go as above,
// A's scale joining the weight's per lane.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2

// init + sum(q * qa) per 32-bit lane of the 4 L packed bytes `packed` against A's bytes for their
// low (a_low) and high (a_high) nibbles.
HWY_INLINE hn::Vec<DI> dot_u4_s8(VU packed, const int8_t* a_low, const int8_t* a_high,
                                 hn::Vec<DI> init) {
#if HWY_TARGET <= HWY_AVX3
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const __m512i low = _mm512_and_si512(packed.raw, nibble);
  const __m512i high = _mm512_and_si512(_mm512_srli_epi16(packed.raw, 4), nibble);
  const __m512i pairs = _mm512_add_epi16(_mm512_maddubs_epi16(low, _mm512_loadu_si512(a_low)),
                                         _mm512_maddubs_epi16(high, _mm512_loadu_si512(a_high)));
  return hn::Add(init, hn::Vec<DI>{_mm512_madd_epi16(pairs, _mm512_set1_epi16(1))});
#else
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i low = _mm256_and_si256(packed.raw, nibble);
  const __m256i high = _mm256_and_si256(_mm256_srli_epi16(packed.raw, 4), nibble);
  const __m256i pairs = _mm256_add_epi16(
      _mm256_maddubs_epi16(low, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a_low))),
      _mm256_maddubs_epi16(high, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a_high))));
  return hn::Add(init, hn::Vec<DI>{_mm256_madd_epi16(pairs, _mm256_set1_epi16(1))});
#endif
}

// A quantized and rearranged for dot_u4_s8: per chunk, the 4 L bytes of its even values, then
// the 4 L bytes of its odd ones; per chunk lane, the sum of its quantized values and its block's
// scale of A.
struct QuantizedRows {
  const int8_t* q = nullptr;           // [rows, chunks * chunk_values]
  const float* lane_sums = nullptr;    // [rows, chunks * L]
  const float* lane_scales = nullptr;  // [rows, chunks * L]
  // Without zero points, -2^(bits - 1) * sum per lane, where the integer dot products start:
  // the fixed zero point then costs nothing per weight row.
  const int32_t* lane_zp_sums = nullptr;  // [rows, chunks * L]
};

// Y[r, n] for kRowsA rows of A and the weight rows [n0, n1), one weight row at a time: rows lie
// one after another in memory, so this order reads the weight as one sequential stream and the
// scales as another. (Chunks of four rows in turn, as the float path reads them, are interleaved
// short runs, which the hardware prefetchers of a Zen 3 followed at about half a stream's speed:
// bench/nbits_matmul_bench.cpp.) Two sets of accumulators take a row's chunks in turn.
template <int kRowsA, bool kFixedZeroPoint>
HWY_NOINLINE void gemv_rows_int8(const Geometry& g, const NBitsWeight& w, const ZeroPoints& zps,
                                 int64_t n0, int64_t n1, const QuantizedRows& qa, const float* bias,
                                 float* HWY_RESTRICT y) {
  const DF d;
  const DI di;
  const int64_t L = g.lanes, q_stride = g.k_pad, sums_stride = g.chunks * L;
  const LaneValues lane_values(g);
  thread_local std::vector<float> zp_buffer;
  if (!zps.fixed) zp_buffer.resize(static_cast<size_t>(g.blocks));
  for (int64_t n = n0; n < n1; ++n) {
    const WeightRows<1> row(g, lane_values, w, zps, zp_buffer.data(), n);
    VF acc[2][kRowsA];
    for (int r = 0; r < kRowsA; ++r) acc[0][r] = acc[1][r] = hn::Zero(d);
    // Chunk c, of the kind `kind`, into accumulator set `parity`.
    const auto step = [&](int64_t c, auto kind, auto parity) HWY_ATTR {
      constexpr Chunk kKind = decltype(kind)::value;
      constexpr int kSet = decltype(parity)::value;
      // A cache line holds two AVX2 chunks: the even one prefetches for both.
      constexpr bool kPrefetch = kSet == 0 || 4 * hn::MaxLanes(DF()) >= 64;
      VU packed[1];
      row.template load<kKind != Chunk::kGeneral, kPrefetch>(c, packed);
      const VF w_scale = row.template scale<kKind>(0, c);
#pragma GCC unroll 4
      for (int r = 0; r < kRowsA; ++r) {
        const int8_t* a = qa.q + r * q_stride + c * g.chunk_values;
        const int64_t lane = r * sums_stride + c * L;
        const auto init = kFixedZeroPoint ? hn::LoadU(di, qa.lane_zp_sums + lane) : hn::Zero(di);
        VF dot = hn::ConvertTo(d, dot_u4_s8(packed[0], a, a + g.chunk_bytes, init));
        if constexpr (!kFixedZeroPoint) {
          dot = hn::NegMulAdd(row.template zero_point<kKind>(0, c),
                              hn::LoadU(d, qa.lane_sums + lane), dot);
        }
        acc[kSet][r] =
            hn::MulAdd(dot, hn::Mul(w_scale, hn::LoadU(d, qa.lane_scales + lane)), acc[kSet][r]);
      }
    };
    row.template for_each_chunk<true>(step);
    for (int r = 0; r < kRowsA; ++r) {
      y[r * w.N + n] =
          hn::GetLane(hn::SumOfLanes(d, hn::Add(acc[0][r], acc[1][r]))) + (bias ? bias[n] : 0.0f);
    }
  }
}

template <int kRowsA>
void gemv_rows_int8(const Geometry& g, const NBitsWeight& w, const ZeroPoints& zps, int64_t n0,
                    int64_t n1, const QuantizedRows& qa, const float* bias, float* y) {
  if (zps.fixed) {
    gemv_rows_int8<kRowsA, true>(g, w, zps, n0, n1, qa, bias, y);
  } else {
    gemv_rows_int8<kRowsA, false>(g, w, zps, n0, n1, qa, bias, y);
  }
}
#endif

// Weight values a parallel range should cover at least: a split costs a few microseconds, and
// each thread should stream long runs of the weight.
constexpr int64_t kMinRangeValues = int64_t{1} << 18;

}  // namespace

namespace {

ZeroPoints zero_points(const NBitsWeight& w) {
  ZeroPoints zps;
  zps.w = &w;
  zps.fixed = !w.float_zero_points && !w.packed_zero_points;
  zps.fixed_value = static_cast<float>(1 << (w.bits - 1));
  return zps;
}

// Splits the weight rows over the job system, in ranges of whole groups where it can.
template <class F>
void for_row_ranges(const NBitsWeight& w, const Geometry& g, int64_t M, const F& f) {
  const int64_t grain = std::max<int64_t>(4, kMinRangeValues / (g.k_pad * M) / 4 * 4);
  parallel_for(w.N, grain, [&](int64_t n0, int64_t n1) {
    for (int64_t m = 0; m < M;) {
      const int64_t rows = M - m >= 4 ? 4 : M - m >= 2 ? 2 : 1;
      f(m, rows, n0, n1);
      m += rows;
    }
  });
}

void gemv_float(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y) {
  const Geometry g = geometry(w);
  const int64_t L = g.lanes, per_lane = 32 / w.bits;
  // A rearranged (zero past K, so that whatever the padding of the last block holds adds
  // nothing; field s times the inverse of its field_unit) and its sums per chunk lane.
  float field_scales[32];
  for (int s = 0; s < per_lane; ++s) {
    const float unit = w.bits == 2   ? field_unit<2>(s)
                       : w.bits == 4 ? field_unit<4>(s)
                                     : field_unit<8>(s);
    field_scales[s] = 1.0f / unit;
  }
  thread_local std::vector<float> ar, lane_sums;
  ar.assign(static_cast<size_t>(M * g.k_pad), 0.0f);
  lane_sums.assign(static_cast<size_t>(M * g.chunks * L), 0.0f);
  for (int64_t m = 0; m < M; ++m) {
    const float* a = A + m * w.K;
    float* out = ar.data() + m * g.k_pad;
    float* sums = lane_sums.data() + m * g.chunks * L;
    // Value k = c * chunk_values + i * per_lane + s goes to lane i, field s of chunk c.
    for (int64_t c = 0; c < g.chunks; ++c) {
      for (int64_t i = 0; i < L; ++i) {
        const int64_t k0 = c * g.chunk_values + i * per_lane;
        const int64_t count = std::min(per_lane, w.K - k0);
        float sum = 0.0f;
        for (int64_t s = 0; s < count; ++s) {
          out[c * g.chunk_values + s * L + i] = a[k0 + s] * field_scales[s];
          sum += a[k0 + s];
        }
        sums[c * L + i] = sum;
      }
    }
  }
  const ZeroPoints zps = zero_points(w);
  // The calling thread's buffers: named inside the body, a thread_local would be the worker's.
  const float* ar_data = ar.data();
  const float* sums_data = lane_sums.data();
  for_row_ranges(w, g, M, [&](int64_t m, int64_t rows, int64_t n0, int64_t n1) {
    const float* a = ar_data + m * g.k_pad;
    const float* s = sums_data + m * g.chunks * L;
    float* y = Y + m * w.N;
    if (w.bits == 2) {
      gemv_bits<2>(g, w, zps, rows, n0, n1, a, s, bias, y);
    } else if (w.bits == 4) {
      gemv_bits<4>(g, w, zps, rows, n0, n1, a, s, bias, y);
    } else {
      gemv_bits<8>(g, w, zps, rows, n0, n1, a, s, bias, y);
    }
  });
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// nbits_quantize_block's result with vectors, when `count` is a whole number of them.
HWY_INLINE float quantize_block(const float* HWY_RESTRICT a, int64_t count,
                                int8_t* HWY_RESTRICT out) {
  const DF d;
  const DI di;
  const hn::Rebind<int8_t, DF> d8;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  if (count % L != 0) return nbits_quantize_block(a, count, out);
  VF amax = hn::Zero(d);
  for (int64_t i = 0; i < count; i += L) amax = hn::Max(amax, hn::Abs(hn::LoadU(d, a + i)));
  const float max_abs = hn::GetLane(hn::MaxOfLanes(d, amax));
  const VF inverse = hn::Set(d, max_abs > 0.0f ? 127.0f / max_abs : 0.0f);
  const auto low = hn::Set(di, -127), high = hn::Set(di, 127);
  for (int64_t i = 0; i < count; i += L) {
    const auto q =
        hn::Min(hn::Max(hn::NearestInt(hn::Mul(hn::LoadU(d, a + i), inverse)), low), high);
    hn::StoreU(hn::DemoteTo(d8, q), d8, out + i);
  }
  return max_abs / 127.0f;
}

void gemv_int8(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y) {
  const Geometry g = geometry(w);
  const int64_t L = g.lanes, lanes = g.chunks * L;
  const hn::ScalableTag<int8_t> d8;  // 4 L bytes: half a chunk
  thread_local std::vector<int8_t> q, values;
  thread_local std::vector<float> lane_sums, lane_scales;
  thread_local std::vector<int32_t> lane_zp_sums;
  values.assign(static_cast<size_t>(g.k_pad), 0);
  q.resize(static_cast<size_t>(M * g.k_pad));
  lane_sums.resize(static_cast<size_t>(M * lanes));
  // Zero: lanes of a last, partial chunk past the last block take no block's scale, and a stale
  // one (an inf from an earlier call) would turn their 0 dot products into NaN.
  lane_scales.assign(static_cast<size_t>(M * lanes), 0.0f);
  lane_zp_sums.resize(static_cast<size_t>(M * lanes));
  const int32_t fixed_zero_point = int32_t{1} << (w.bits - 1);
  for (int64_t m = 0; m < M; ++m) {
    const float* a = A + m * w.K;
    float* sums = lane_sums.data() + m * lanes;
    float* scales = lane_scales.data() + m * lanes;
    int32_t* zp_sums = lane_zp_sums.data() + m * lanes;
    // The row quantized in order (zero past K); lane e sums values 8 e to 8 e + 7, all in one
    // block, and takes that block's scale (lanes past K sum nothing).
    for (int64_t b = 0; b < g.blocks; ++b) {
      const int64_t k0 = b * w.block_size, count = std::min(w.block_size, w.K - k0);
      const float scale = quantize_block(a + k0, count, values.data() + k0);
      std::fill_n(scales + k0 / 8, w.block_size / 8, scale);
    }
    for (int64_t e = 0; e < lanes; ++e) {
      int32_t sum = 0;
      for (int64_t t = 0; t < 8; ++t) sum += values[static_cast<size_t>(8 * e + t)];
      sums[e] = static_cast<float>(sum);
      zp_sums[e] = -fixed_zero_point * sum;
    }
    // Per chunk, the even values' bytes, then the odd values'.
    int8_t* out = q.data() + m * g.k_pad;
    for (int64_t c = 0; c < g.k_pad; c += g.chunk_values) {
      const auto lo = hn::LoadU(d8, values.data() + c);
      const auto hi = hn::LoadU(d8, values.data() + c + g.chunk_bytes);
      hn::StoreU(hn::ConcatEven(d8, hi, lo), d8, out + c);
      hn::StoreU(hn::ConcatOdd(d8, hi, lo), d8, out + c + g.chunk_bytes);
    }
  }
  const ZeroPoints zps = zero_points(w);
  // The calling thread's buffers: named inside the body, a thread_local would be the worker's.
  const int8_t* q_data = q.data();
  const float* sums_data = lane_sums.data();
  const float* scales_data = lane_scales.data();
  const int32_t* zp_sums_data = lane_zp_sums.data();
  for_row_ranges(w, g, M, [&](int64_t m, int64_t rows, int64_t n0, int64_t n1) {
    QuantizedRows qa;
    qa.q = q_data + m * g.k_pad;
    qa.lane_sums = sums_data + m * lanes;
    qa.lane_scales = scales_data + m * lanes;
    qa.lane_zp_sums = zp_sums_data + m * lanes;
    float* y = Y + m * w.N;
    if (rows == 4) {
      gemv_rows_int8<4>(g, w, zps, n0, n1, qa, bias, y);
    } else if (rows == 2) {
      gemv_rows_int8<2>(g, w, zps, n0, n1, qa, bias, y);
    } else {
      gemv_rows_int8<1>(g, w, zps, n0, n1, qa, bias, y);
    }
  });
}
#endif

}  // namespace

void nbits_gemv(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                NBitsArithmetic arithmetic) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if (arithmetic == NBitsArithmetic::kInt8Activations && w.bits == 4) {
    gemv_int8(w, M, A, bias, Y);
    return;
  }
#endif
  (void)arithmetic;
  gemv_float(w, M, A, bias, Y);
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(nbits_gemv);

void nbits_gemv(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                NBitsArithmetic arithmetic) {
  if (M <= 0 || w.N <= 0) return;
  HWY_DYNAMIC_DISPATCH(nbits_gemv)(w, M, A, bias, Y, arithmetic);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
