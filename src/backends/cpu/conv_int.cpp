#include "backends/cpu/conv_int.h"

#include <algorithm>
#include <vector>

#include "backends/cpu/conv_reference.h"
#include "core/thread_pool.h"

namespace kiln::cpu {
namespace {

// Column chunks small enough for the column matrix to stay in L2.
constexpr int64_t kChunkBytes = 256 * 1024;

// For every (tap, output position): the image offset the tap reads, or -1 in the padding.
std::vector<int64_t> tap_offsets(const WindowGeometry& g) {
  const int64_t positions = g.out_size(), taps = g.kernel_size();
  std::vector<int64_t> offsets(static_cast<size_t>(taps * positions), -1);
  for (int64_t pos = 0; pos < positions; ++pos) {
    conv_reference_detail::for_each_tap(
        g, pos, [&](int64_t k, int64_t offset) { offsets[k * positions + pos] = offset; });
  }
  return offsets;
}

}  // namespace

void conv_int32(const ConvProblem& p, const int16_t* x, const int16_t* w, const int32_t* bias,
                int32_t* y) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group, mg = p.out_channels / p.group;
  const int64_t in_size = g.in_size(), positions = g.out_size(), taps = g.kernel_size();
  const int64_t rows = cg * taps;
  if (positions == 0 || p.batch == 0 || p.out_channels == 0) return;
  const std::vector<int64_t> offsets = tap_offsets(g);
  const int64_t chunk = std::clamp<int64_t>(
      kChunkBytes / std::max<int64_t>(1, rows * static_cast<int64_t>(sizeof(int16_t))), 16,
      positions);
  const int64_t chunks = (positions + chunk - 1) / chunk;

  parallel_for(p.batch * p.group * chunks, 1, [&](int64_t begin, int64_t end) {
    // Per-thread scratch that only grows.
    thread_local std::vector<int16_t> cols;
    thread_local std::vector<uint32_t> acc;
    cols.resize(std::max(cols.size(), static_cast<size_t>(rows * chunk)));
    acc.resize(std::max(acc.size(), static_cast<size_t>(chunk)));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t ch = task % chunks, grp = (task / chunks) % p.group;
      const int64_t n = task / (chunks * p.group);
      const int64_t j0 = ch * chunk, width = std::min(chunk, positions - j0);
      // The column matrix of this chunk: rows (c, k), columns j0 .. j0 + width.
      for (int64_t c = 0; c < cg; ++c) {
        const int16_t* xc = x + (n * p.in_channels + grp * cg + c) * in_size;
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t* off = offsets.data() + k * positions + j0;
          int16_t* row = cols.data() + (c * taps + k) * width;
          for (int64_t j = 0; j < width; ++j) row[j] = off[j] >= 0 ? xc[off[j]] : int16_t{0};
        }
      }
      for (int64_t mi = 0; mi < mg; ++mi) {
        const int64_t m = grp * mg + mi;
        const int16_t* wm = w + m * rows;
        std::fill_n(acc.data(), width, bias ? static_cast<uint32_t>(bias[m]) : 0u);
        for (int64_t r = 0; r < rows; ++r) {
          const int32_t wv = wm[r];
          if (wv == 0) continue;
          const int16_t* col = cols.data() + r * width;
          for (int64_t j = 0; j < width; ++j) acc[j] += static_cast<uint32_t>(wv * col[j]);
        }
        int32_t* out = y + (n * p.out_channels + m) * positions + j0;
        for (int64_t j = 0; j < width; ++j) out[j] = static_cast<int32_t>(acc[j]);
      }
    }
  });
}

}  // namespace kiln::cpu
