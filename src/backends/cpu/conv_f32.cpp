#include "backends/cpu/conv_f32.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/conv_depthwise_channels.h"
#include "backends/cpu/conv_direct.h"
#include "backends/cpu/conv_im2col.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/gemm_plan.h"
#include "backends/cpu/strided_copy.h"
#include "core/thread_pool.h"
#include "hwy/aligned_allocator.h"

namespace kiln::cpu {

namespace {

struct ScratchBuffer {
  hwy::AlignedFreeUniquePtr<float[]> data;
  size_t capacity = 0;
};
thread_local std::array<ScratchBuffer, static_cast<size_t>(ConvScratch::kCount)> scratch_buffers;

// Columns per im2col chunk: the chunk (taps * C/group rows) should stay in L2 while the GEMM
// packs and streams it. A multiple of 32 keeps the GEMM's column panels full.
int64_t chunk_columns(int64_t rows, int64_t total) {
  static const int64_t budget_floats = [] {
    const char* v = std::getenv("KILN_CONV_CHUNK_FLOATS");
    return v ? std::max<int64_t>(1024, std::atoll(v)) : int64_t{48 * 1024};
  }();
  int64_t cols = budget_floats / std::max<int64_t>(rows, 1);
  // At least KILN_CONV_MIN_CHUNK columns: the GEMM reads A (the weights) unpacked when a
  // product has only a few column panels, which is slow for long weight rows.
  static const int64_t min_cols = [] {
    const char* v = std::getenv("KILN_CONV_MIN_CHUNK");
    return v ? std::max<int64_t>(32, std::atoll(v)) : int64_t{256};
  }();
  cols = std::max<int64_t>(min_cols, cols / 32 * 32);
  // Split evenly rather than leave a sliver for the last chunk.
  const int64_t chunks = (total + cols - 1) / cols;
  cols = (total + chunks - 1) / chunks;
  return std::min(total, (cols + 31) / 32 * 32);
}

bool is_pointwise(const WindowGeometry& g) {
  for (size_t d = 0; d < g.rank(); ++d) {
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad[d] != 0 || g.in[d] != g.out[d]) return false;
  }
  return true;
}

GemmEpilogue bias_epilogue(const float* bias) {
  GemmEpilogue ep;
  if (bias) {
    ep.bias_kind = GemmBias::kPerRow;
    ep.bias = bias;
  }
  return ep;
}

// The geometry of a 1-D or 2-D window as the 2-D depthwise kernel wants it.
WindowGeometry as_2d(const WindowGeometry& g) {
  if (g.rank() == 2) return g;
  WindowGeometry r;
  r.in = {1, g.in[0]};
  r.out = {1, g.out[0]};
  r.kernel = {1, g.kernel[0]};
  r.stride = {1, g.stride[0]};
  r.dilation = {1, g.dilation[0]};
  r.pad = {0, g.pad[0]};
  return r;
}

// im2col split by channels over the job system: each channel's rows are a contiguous block of
// the column matrix. On one thread the copy would be a serial stretch between two parallel
// GEMMs.
void im2col_parallel(const WindowGeometry& g, int64_t channels, const float* image,
                     int64_t col_begin, int64_t col_end, float* cols) {
  const int64_t rows_per_channel = g.kernel_size();
  const int64_t width = col_end - col_begin;
  const int64_t grain =
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, rows_per_channel * width));
  parallel_for(channels, grain, [&](int64_t begin, int64_t end) {
    im2col(g, end - begin, image + begin * g.in_size(), col_begin, col_end,
           cols + begin * rows_per_channel * width);
  });
}

}  // namespace

float* conv_scratch(ConvScratch slot, size_t floats) {
  ScratchBuffer& b = scratch_buffers[static_cast<size_t>(slot)];
  if (floats > b.capacity || b.data == nullptr) {
    const size_t capacity = floats + floats / 4 + 64;
    b.data = hwy::AllocateAligned<float>(capacity);
    b.capacity = capacity;
  }
  return b.data.get();
}

bool conv_wants_packed_weights(int64_t group, int64_t channels_per_group) {
  return channels_per_group > 1 && group <= 64;
}

const std::vector<PackedB>& PackedConvWeights::gemm_groups(const float* w,
                                                           const ConvProblem& p) const {
  std::call_once(gemm_once_, [&] {
    const int64_t mg = p.out_channels / p.group;
    const int64_t row_length = p.in_channels / p.group * p.geometry.kernel_size();
    for (int64_t g = 0; g < p.group; ++g) {
      groups_.push_back(pack_b(true, row_length, mg, w + g * mg * row_length, row_length));
    }
  });
  return groups_;
}

const std::vector<PackedA>& PackedConvWeights::gemm_a_groups(const float* w,
                                                             const ConvProblem& p) const {
  std::call_once(gemm_a_once_, [&] {
    const int64_t mg = p.out_channels / p.group;
    const int64_t row_length = p.in_channels / p.group * p.geometry.kernel_size();
    for (int64_t g = 0; g < p.group; ++g) {
      a_groups_.push_back(pack_a(mg, row_length, w + g * mg * row_length, row_length));
    }
  });
  return a_groups_;
}

const float* PackedConvWeights::winograd(const float* w, const ConvProblem& p) const {
  std::call_once(winograd_once_, [&] {
    winograd_floats_ = static_cast<size_t>(winograd_weight_floats(p.out_channels, p.in_channels));
    winograd_ = allocate_host_array<float>(winograd_floats_);
    winograd_transform_weights(w, p.out_channels, p.in_channels, winograd_.get());
  });
  return winograd_.get();
}

size_t PackedConvWeights::size_bytes() const {
  size_t bytes = winograd_floats_ * sizeof(float);
  for (const PackedB& g : groups_) bytes += g.size_bytes();
  for (const PackedA& g : a_groups_) bytes += g.size_bytes();
  return bytes;
}

namespace {

// Below this many output positions the weights-as-A product has too few column panels for the
// GEMM to pack A, and the transposed product with packed weights is faster.
constexpr int64_t kTransposedMaxPositions = 160;

// Y_g = (cols^T W_g^T)^T: the GEMM writes Y_g^T [out_size, mg] into scratch, which is then
// transposed into place.
void conv_transposed_product(const ConvProblem& p, const float* x, const float* bias, float* y,
                             const std::vector<PackedB>& packed, bool pointwise,
                             const ConvEpilogue& e) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group, mg = p.out_channels / p.group;
  const int64_t in_size = g.in_size(), out_size = g.out_size(), k = cg * g.kernel_size();
  float* cols =
      pointwise ? nullptr : conv_scratch(ConvScratch::kColumns, static_cast<size_t>(k * out_size));
  float* yt = conv_scratch(ConvScratch::kTransposed, static_cast<size_t>(out_size * mg));
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t grp = 0; grp < p.group; ++grp) {
      const float* xg = x + (n * p.in_channels + grp * cg) * in_size;
      const float* a = xg;
      if (!pointwise) {
        im2col_parallel(g, cg, xg, 0, out_size, cols);
        a = cols;
      }
      GemmEpilogue ep;
      if (bias) {
        ep.bias_kind = GemmBias::kPerColumn;
        ep.bias = bias + grp * mg;
      }
      sgemm_packed(true, out_size, a, out_size, packed[static_cast<size_t>(grp)], yt, mg, ep);
      float* yg = y + (n * p.out_channels + grp * mg) * out_size;
      const float* zg =
          e.residual ? e.residual + (n * p.out_channels + grp * mg) * out_size : nullptr;
      // Y_g = (Y_g^T)^T. Reading a column of Y_g^T steps mg floats: from a few hundred channels
      // on, those reads fall into a few cache sets, and the tiled copy is several times faster
      // (2048 x 49: 38 against 259 us on Zen 4).
      if (mg >= 256) {
        strided_copy(DataType::Float32, Shape{mg, out_size}, yg, Shape{out_size, 1}, yt,
                     Shape{1, mg});
      } else {
        for (int64_t m = 0; m < mg; ++m) {
          float* row = yg + m * out_size;
          for (int64_t j = 0; j < out_size; ++j) row[j] = yt[j * mg + m];
        }
      }
      add_residual_and_activate(e, yg, zg, mg, out_size, out_size, /*in_gemm=*/false);
    }
  }
}

// Y's columns (output positions) in blocks of whole GEMM column panels, nearly equal in size:
// every block boundary is a panel boundary of the unsplit product, so the blocks give the
// same bits as one GEMM over all columns, whatever their number.
struct ColumnBlocks {
  int64_t count = 1;
  int64_t total = 0;
  int64_t unit = 1;                 // columns per GEMM panel
  bool split_over_threads = false;  // the blocks are parallel_for items
  int64_t begin(int64_t b) const {
    const int64_t units = (total + unit - 1) / unit;
    return std::min(total, units * b / count * unit);
  }
};

// Blocks for an M x out_size x K product: as many as keep an im2col block in L2 (a 1x1
// stride-1 conv needs no columns: one block); on several threads, a multiple of the thread
// count with at least one block per thread (two for large layers, so that a thread the shared
// host slows down hands blocks to the other), if the layer is worth splitting at all.
ColumnBlocks plan_column_blocks(bool pointwise, int64_t m, int64_t k, int64_t out_size) {
  ColumnBlocks blocks;
  blocks.total = out_size;
  blocks.unit = gemm_panel_columns();
  const int64_t units = (out_size + blocks.unit - 1) / blocks.unit;
  if (!pointwise) {
    const int64_t chunk = chunk_columns(k, out_size);
    blocks.count = std::min(units, (out_size + chunk - 1) / chunk);
  }
  const int threads = gemm_detail::available_threads();
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(out_size) * static_cast<double>(k);
  if (threads <= 1 || flops < gemm_detail::kMinParallelFlops || units < threads) return blocks;
  const int64_t per_thread = flops >= 2e8 ? 2 : 1;
  const int64_t wanted = std::max<int64_t>(blocks.count, int64_t{threads} * per_thread);
  blocks.count = std::min(units, (wanted + threads - 1) / threads * threads);
  blocks.split_over_threads = true;
  return blocks;
}

}  // namespace

void conv_f32(const ConvProblem& p, const float* x, const float* w, const float* bias, float* y,
              const PackedConvWeights* packed, const ConvEpilogue& e) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group;
  const int64_t mg = p.out_channels / p.group;
  const int64_t in_size = g.in_size();
  const int64_t out_size = g.out_size();
  const int64_t taps = g.kernel_size();
  const int64_t k = cg * taps;
  if (out_size == 0 || p.batch == 0 || p.out_channels == 0) return;

  if (cg == 1 && g.rank() <= 2) {
    // Depthwise (channel multiplier mg): output channel m reads input channel m / mg.
    const WindowGeometry g2 = as_2d(g);
    const int64_t planes = p.batch * p.out_channels;
    const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(out_size * taps, 1));
    // Relu and Clip are applied in the kernel, unless a residual must be added before them.
    DepthwiseClamp clamp;
    const bool clamp_in_kernel = e.residual == nullptr && e.activation_in_gemm();
    if (clamp_in_kernel) {
      clamp.lo = e.activation == FusedActivation::kRelu ? 0.0f : e.clip_min;
      if (e.activation == FusedActivation::kClip) clamp.hi = e.clip_max;
    }
    // The plane is still in cache: the residual and activation cost no extra memory pass.
    auto finish_plane = [&](int64_t plane) {
      add_residual_and_activate(e, y + plane * out_size,
                                e.residual ? e.residual + plane * out_size : nullptr, 1, out_size,
                                out_size, /*in_gemm=*/clamp_in_kernel);
    };
    if (mg == 1 && depthwise_channels_applies(g2)) {
      // Small maps: a group of channels at a time, vectorised across the channels.
      const int64_t group = depthwise_channel_group();
      const int64_t groups = (p.out_channels + group - 1) / group;
      parallel_for(p.batch * groups, 1, [&](int64_t begin, int64_t end) {
        for (int64_t job = begin; job < end; ++job) {
          const int64_t n = job / groups, c0 = job % groups * group;
          const int64_t c1 = std::min(p.out_channels, c0 + group);
          depthwise_conv2d_channels(g2, x + n * p.in_channels * in_size, w, bias, clamp,
                                    y + n * p.out_channels * out_size, c0, c1);
          for (int64_t m = c0; m < c1; ++m) finish_plane(n * p.out_channels + m);
        }
      });
      return;
    }
    parallel_for(planes, grain, [&](int64_t begin, int64_t end) {
      for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t n = plane / p.out_channels, m = plane % p.out_channels;
        const float* xp = x + (n * p.in_channels + m / mg) * in_size;
        float* scratch = conv_scratch(ConvScratch::kPlane, depthwise_scratch_floats(g2));
        depthwise_conv2d_plane(g2, xp, w + m * taps, bias ? bias[m] : 0.0f, clamp,
                               y + plane * out_size, scratch);
        finish_plane(plane);
      }
    });
    return;
  }

  if (direct_conv_applies(p)) {
    conv_direct_f32(p, x, w, bias, y, e);
    return;
  }
  if (packed && winograd_applies(p)) {
    conv_winograd_f32(p, x, packed->winograd(w, p), bias, y, e);
    return;
  }
  const bool pointwise = is_pointwise(g);
  if (packed && out_size < kTransposedMaxPositions && conv_wants_packed_weights(p.group, cg)) {
    const std::vector<PackedB>& groups = packed->gemm_groups(w, p);
    // Packed for this W by the first run; a W of other dimensions (not a constant) falls
    // through to the general path.
    if (static_cast<int64_t>(groups.size()) == p.group && groups[0].k() == k &&
        groups[0].n() == mg) {
      conv_transposed_product(p, x, bias, y, groups, pointwise, e);
      return;
    }
  }
  // Y_g's columns are cut into blocks, each an independent job: build its im2col columns
  // (a 1x1 stride-1 conv reads X itself), copy the residual in (the GEMM adds it as beta * C),
  // multiply, activate. On several threads the blocks are what is split, so every thread
  // builds and packs only its own columns and the layer has one join instead of two per block.
  const ColumnBlocks blocks = plan_column_blocks(pointwise, mg, k, out_size);
  // The weights packed once as the GEMM's A, where the conv may keep them (packed on the first
  // run that comes here); a W of other dimensions than they were packed for is read in place.
  const std::vector<PackedA>* packed_a = nullptr;
  if (packed && conv_wants_packed_weights(p.group, cg)) {
    const std::vector<PackedA>& groups = packed->gemm_a_groups(w, p);
    if (static_cast<int64_t>(groups.size()) == p.group && groups[0].m() == mg &&
        groups[0].k() == k) {
      packed_a = &groups;
    }
  }
  const int64_t jobs = p.batch * p.group * blocks.count;
  auto run_block = [&](int64_t job) {
    const int64_t b = job % blocks.count, ng = job / blocks.count;
    const int64_t n = ng / p.group, grp = ng % p.group;
    const int64_t c0 = blocks.begin(b), width = blocks.begin(b + 1) - c0;
    if (width <= 0) return;
    const float* xg = x + (n * p.in_channels + grp * cg) * in_size;
    const int64_t y_offset = (n * p.out_channels + grp * mg) * out_size + c0;
    float* yg = y + y_offset;
    if (e.residual && e.residual != y) {
      const float* zg = e.residual + y_offset;
      for (int64_t m = 0; m < mg; ++m) {
        std::memcpy(yg + m * out_size, zg + m * out_size,
                    static_cast<size_t>(width) * sizeof(float));
      }
    }
    const GemmEpilogue ep = conv_gemm_epilogue(bias ? bias + grp * mg : nullptr, e);
    const float* b_operand = xg + c0;
    int64_t ldb = in_size;
    if (!pointwise) {
      float* cols = conv_scratch(ConvScratch::kColumns, static_cast<size_t>(k * width));
      im2col_parallel(g, cg, xg, c0, c0 + width, cols);
      b_operand = cols;
      ldb = width;
    }
    if (packed_a) {
      sgemm_packed_a((*packed_a)[static_cast<size_t>(grp)], width, b_operand, ldb, yg, out_size,
                     ep);
    } else {
      sgemm(false, false, mg, width, k, w + grp * mg * k, k, b_operand, ldb, yg, out_size, ep);
    }
    apply_conv_activation(e, yg, mg, width, out_size, /*in_gemm=*/true);
  };
  if (blocks.split_over_threads) {
    parallel_for(jobs, 1, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) run_block(job);
    });
  } else {
    // One thread, or a layer too small to split by blocks: im2col and the GEMM may still
    // split inside.
    for (int64_t job = 0; job < jobs; ++job) run_block(job);
  }
}

void conv_transpose_f32(const ConvProblem& p, const float* x, const float* w, const float* bias,
                        float* y) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group;
  const int64_t mg = p.out_channels / p.group;
  const int64_t x_size = g.out_size();  // window positions = the input's spatial size
  const int64_t y_size = g.in_size();
  const int64_t taps = g.kernel_size();
  const int64_t rows = mg * taps;
  if (y_size == 0 || p.batch == 0 || p.out_channels == 0) return;
  const bool pointwise = is_pointwise(g);
  float* cols =
      pointwise ? nullptr : conv_scratch(ConvScratch::kColumns, static_cast<size_t>(rows * x_size));
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t grp = 0; grp < p.group; ++grp) {
      const float* xg = x + (n * p.in_channels + grp * cg) * x_size;
      const float* wg = w + grp * cg * rows;
      float* yg = y + (n * p.out_channels + grp * mg) * y_size;
      const float* bg = bias ? bias + grp * mg : nullptr;
      if (pointwise) {
        sgemm(true, false, mg, x_size, cg, wg, rows, xg, x_size, yg, y_size, bias_epilogue(bg));
        continue;
      }
      sgemm(true, false, rows, x_size, cg, 1.0f, wg, rows, xg, x_size, 0.0f, cols, x_size);
      for (int64_t m = 0; m < mg; ++m) {
        std::fill(yg + m * y_size, yg + (m + 1) * y_size, bg ? bg[m] : 0.0f);
      }
      col2im_add(g, mg, cols, yg);
    }
  }
}

}  // namespace kiln::cpu
