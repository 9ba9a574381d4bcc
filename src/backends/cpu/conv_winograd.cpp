#include "backends/cpu/conv_winograd.h"

#include <algorithm>
#include <cstring>

#include "backends/cpu/conv_f32.h"  // conv_scratch
#include "backends/cpu/gemm.h"
#include "core/thread_pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/conv_winograd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// B^T z for one 6-vector (of vectors): the input transform along one axis.
template <class V>
HWY_INLINE void input_1d(const V* z, V* r) {
  const hn::DFromV<V> d;
  const V two = hn::Set(d, 2.0f), four = hn::Set(d, 4.0f), five = hn::Set(d, 5.0f);
  // r0 = 4 z0 - 5 z2 + z4; r5 = 4 z1 - 5 z3 + z5
  r[0] = hn::MulAdd(four, z[0], hn::NegMulAdd(five, z[2], z[4]));
  r[5] = hn::MulAdd(four, z[1], hn::NegMulAdd(five, z[3], z[5]));
  // r1, r2 = -+4 (z1) - 4 z2 + -+... : with a = z4 - 4 z2, b = z3 - 4 z1: r1 = a + b, r2 = a - b
  const V a = hn::NegMulAdd(four, z[2], z[4]);
  const V b = hn::NegMulAdd(four, z[1], z[3]);
  r[1] = hn::Add(a, b);
  r[2] = hn::Sub(a, b);
  // r3, r4 = (z4 - z2) +- 2 (z3 - z1)
  const V c = hn::Sub(z[4], z[2]);
  const V e = hn::Mul(two, hn::Sub(z[3], z[1]));
  r[3] = hn::Add(c, e);
  r[4] = hn::Sub(c, e);
}

// A^T m for one 6-vector: the output transform along one axis (4 values).
template <class V>
HWY_INLINE void output_1d(const V* m, V* o) {
  const hn::DFromV<V> d;
  const V two = hn::Set(d, 2.0f), four = hn::Set(d, 4.0f), eight = hn::Set(d, 8.0f);
  const V s12 = hn::Add(m[1], m[2]), d12 = hn::Sub(m[1], m[2]);
  const V s34 = hn::Add(m[3], m[4]), d34 = hn::Sub(m[3], m[4]);
  o[0] = hn::Add(hn::Add(m[0], s12), s34);
  o[1] = hn::MulAdd(two, d34, d12);
  o[2] = hn::MulAdd(four, s34, s12);
  o[3] = hn::Add(hn::MulAdd(eight, d34, d12), m[5]);
}

// Tiles [t0, t0 + lanes) of one tile row (same ty) of channel plane `xp` (padded: row pitch
// `pitch`, the tile at tx starting at column 4 tx) into v[xi * v_stride + t].
template <class D>
HWY_INLINE void input_tiles(D d, const float* HWY_RESTRICT xp, int64_t pitch, int64_t ty,
                            int64_t tx0, int64_t count, float* HWY_RESTRICT v, int64_t v_stride,
                            int64_t t0) {
  using V = hn::Vec<D>;
  V e[6][6];  // e[i][*] = B^T applied along the row i of the 6x6 tiles
  for (int64_t i = 0; i < 6; ++i) {
    const float* row = xp + (4 * ty + i) * pitch + 4 * tx0;
    V z[6], unused0, unused1;
    hn::LoadInterleaved4(d, row, z[0], z[1], z[2], z[3]);
    hn::LoadInterleaved4(d, row + 4, z[4], z[5], unused0, unused1);
    input_1d(z, e[i]);
  }
  const size_t valid = static_cast<size_t>(count);
  const bool full = valid == hn::Lanes(d);
  for (int64_t j = 0; j < 6; ++j) {
    V col[6], r[6];
    for (int64_t i = 0; i < 6; ++i) col[i] = e[i][j];
    input_1d(col, r);
    for (int64_t i = 0; i < 6; ++i) {
      float* dst = v + (i * 6 + j) * v_stride + t0;
      if (full) {
        hn::StoreU(r[i], d, dst);
      } else {
        hn::BlendedStore(r[i], hn::FirstN(d, valid), d, dst);
      }
    }
  }
}

// Tiles [t0, t0 + lanes) of tile row ty from m[xi * m_stride + t] into the output plane
// buffer `yp` (row pitch `pitch`, 4 tiles wide per tile), bias added.
template <class D>
HWY_INLINE void output_tiles(D d, const float* HWY_RESTRICT m, int64_t m_stride, int64_t t0,
                             float bias, float* HWY_RESTRICT yp, int64_t pitch, int64_t ty,
                             int64_t tx0) {
  using V = hn::Vec<D>;
  V f[6][4];  // f[i][*] = A^T along the row i
  for (int64_t i = 0; i < 6; ++i) {
    V z[6];
    for (int64_t j = 0; j < 6; ++j) z[j] = hn::LoadU(d, m + (i * 6 + j) * m_stride + t0);
    output_1d(z, f[i]);
  }
  const V vbias = hn::Set(d, bias);
  V o[4][4];
  for (int64_t b = 0; b < 4; ++b) {
    V col[6], r[4];
    for (int64_t i = 0; i < 6; ++i) col[i] = f[i][b];
    output_1d(col, r);
    for (int64_t a = 0; a < 4; ++a) o[a][b] = hn::Add(r[a], vbias);
  }
  for (int64_t a = 0; a < 4; ++a) {
    hn::StoreInterleaved4(o[a][0], o[a][1], o[a][2], o[a][3], d,
                          yp + (4 * ty + a) * pitch + 4 * tx0);
  }
}

struct Layout {
  int64_t tiles_h, tiles_w, tiles;
  int64_t in_pitch, in_rows;  // the padded input plane
  int64_t out_pitch;          // the output plane buffer, 4 tiles_h rows
  int64_t lanes;
};

Layout layout(const WindowGeometry& g) {
  Layout l;
  const hn::ScalableTag<float> d;
  l.lanes = static_cast<int64_t>(hn::Lanes(d));
  l.tiles_h = (g.out[0] + 3) / 4;
  l.tiles_w = (g.out[1] + 3) / 4;
  l.tiles = l.tiles_h * l.tiles_w;
  // Whole groups of `lanes` tiles along a row, with the interleaved loads' 4 floats of reach
  // past the last tile's 6 columns.
  const int64_t groups_w = (l.tiles_w + l.lanes - 1) / l.lanes;
  l.in_pitch = 4 * groups_w * l.lanes + 8;
  l.in_rows = 4 * l.tiles_h + 2;
  l.out_pitch = 4 * groups_w * l.lanes;
  return l;
}

size_t plane_floats(const WindowGeometry& g) {
  const Layout l = layout(g);
  return static_cast<size_t>(std::max(l.in_pitch * l.in_rows, l.out_pitch * 4 * l.tiles_h) + 64);
}

// V[xi][c][t] for channels [c_begin, c_end) of one image.
void transform_input(const WindowGeometry& g, const float* x, int64_t c_begin, int64_t c_end,
                     float* plane, float* v, int64_t channels) {
  const Layout l = layout(g);
  const hn::ScalableTag<float> d;
  const int64_t ih = g.in[0], iw = g.in[1], ph = g.pad[0], pw = g.pad[1];
  for (int64_t c = c_begin; c < c_end; ++c) {
    // The zero-padded plane: image row r at padded row r + ph, column q at q + pw.
    std::fill(plane, plane + l.in_pitch * l.in_rows, 0.0f);
    const float* xc = x + c * ih * iw;
    for (int64_t r = 0; r < ih; ++r) {
      const int64_t pr = r + ph;
      if (pr >= l.in_rows) break;
      const int64_t n = std::min(iw, l.in_pitch - pw);
      std::memcpy(plane + pr * l.in_pitch + pw, xc + r * iw,
                  static_cast<size_t>(n) * sizeof(float));
    }
    float* vc = v + c * l.tiles;
    for (int64_t ty = 0; ty < l.tiles_h; ++ty) {
      for (int64_t tx = 0; tx < l.tiles_w; tx += l.lanes) {
        input_tiles(d, plane, l.in_pitch, ty, tx, std::min(l.lanes, l.tiles_w - tx), vc,
                    channels * l.tiles, ty * l.tiles_w + tx);
      }
    }
  }
}

// Output channels [m_begin, m_end) of one image from M[xi][m][t]: the plane with its bias into
// `plane`, then its valid part into y.
void transform_output(const WindowGeometry& g, const float* mm, const float* bias, int64_t m_begin,
                      int64_t m_end, float* plane, float* y, int64_t out_channels) {
  const Layout l = layout(g);
  const hn::ScalableTag<float> d;
  const int64_t oh = g.out[0], ow = g.out[1];
  for (int64_t m = m_begin; m < m_end; ++m) {
    const float* mc = mm + m * l.tiles;
    const float b = bias ? bias[m] : 0.0f;
    for (int64_t ty = 0; ty < l.tiles_h; ++ty) {
      for (int64_t tx = 0; tx < l.tiles_w; tx += l.lanes) {
        // A group past the row's last tile reads (and transforms) the next row's tiles or
        // whatever follows in M; its columns are beyond the output and not copied.
        output_tiles(d, mc, out_channels * l.tiles, ty * l.tiles_w + tx, b, plane, l.out_pitch, ty,
                     tx);
      }
    }
    float* ym = y + m * oh * ow;
    for (int64_t r = 0; r < oh; ++r) {
      std::memcpy(ym + r * ow, plane + r * l.out_pitch, static_cast<size_t>(ow) * sizeof(float));
    }
  }
}

int64_t lanes() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(plane_floats);
HWY_EXPORT(transform_input);
HWY_EXPORT(transform_output);
HWY_EXPORT(lanes);

bool winograd_applies(const ConvProblem& p) {
  const WindowGeometry& g = p.geometry;
  if (p.group != 1 || g.rank() != 2) return false;
  for (size_t a = 0; a < 2; ++a) {
    if (g.kernel[a] != 3 || g.stride[a] != 1 || g.dilation[a] != 1) return false;
  }
  // Few channels: the 36 GEMMs are too thin to run near the GEMM's speed. Few tiles: the
  // GEMMs' columns are the tiles, and below 16 (a 4 x 4 grid) they fill too little of a
  // register tile to repay a third of the multiplications. A 14 x 14 map (ResNet-50's third
  // stage, SqueezeNet's last fires: 16 tiles) still gains: measured on Zen 4 (AVX-512) with
  // `kiln bench --trace`, ResNet-50's 256-channel 3x3 layers took 30-40 % less time than
  // through im2col, where the 7 x 7 maps of its last stage (4 tiles) took about twice as long.
  const int64_t tiles_w = (g.out[1] + 3) / 4;
  const int64_t tiles = ((g.out[0] + 3) / 4) * tiles_w;
  return p.in_channels >= 16 && p.out_channels >= 32 && tiles >= 16 && tiles_w >= 4;
}

void winograd_transform_weights(const float* w, int64_t out_channels, int64_t in_channels,
                                float* u) {
  // G (6 x 3) of F(4x4, 3x3).
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  const int64_t mc = out_channels * in_channels;
  for (int64_t k = 0; k < mc; ++k) {
    const float* g = w + k * 9;
    double t[6][3];  // G g
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 3; ++j) {
        t[i][j] = kG[i][0] * g[0 * 3 + j] + kG[i][1] * g[1 * 3 + j] + kG[i][2] * g[2 * 3 + j];
      }
    }
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {  // (G g) G^T
        const double v = t[i][0] * kG[j][0] + t[i][1] * kG[j][1] + t[i][2] * kG[j][2];
        u[(i * 6 + j) * mc + k] = static_cast<float>(v);
      }
    }
  }
}

void conv_winograd_f32(const ConvProblem& p, const float* x, const float* u, const float* bias,
                       float* y, const ConvEpilogue& e) {
  const WindowGeometry& g = p.geometry;
  const int64_t c_in = p.in_channels, m_out = p.out_channels;
  const int64_t tiles = ((g.out[0] + 3) / 4) * ((g.out[1] + 3) / 4);
  const int64_t out_size = g.out_size(), in_size = g.in_size();
  // M is read a vector of tiles past its end by the last tile groups (see transform_output).
  const int64_t slack = HWY_DYNAMIC_DISPATCH(lanes)() * 2;
  float* v = conv_scratch(ConvScratch::kWinogradInput, static_cast<size_t>(36 * c_in * tiles));
  float* mm =
      conv_scratch(ConvScratch::kWinogradOutput, static_cast<size_t>(36 * m_out * tiles + slack));
  std::fill(mm + 36 * m_out * tiles, mm + 36 * m_out * tiles + slack, 0.0f);
  const size_t plane = HWY_DYNAMIC_DISPATCH(plane_floats)(g);
  for (int64_t n = 0; n < p.batch; ++n) {
    const float* xn = x + n * c_in * in_size;
    float* yn = y + n * m_out * out_size;
    parallel_for(c_in, 1, [&](int64_t begin, int64_t end) {
      float* scratch = conv_scratch(ConvScratch::kWinogradPlane, plane);
      HWY_DYNAMIC_DISPATCH(transform_input)(g, xn, begin, end, scratch, v, c_in);
    });
    auto products = [&](int64_t begin, int64_t end) {
      for (int64_t xi = begin; xi < end; ++xi) {
        sgemm(false, false, m_out, tiles, c_in, 1.0f, u + xi * m_out * c_in, c_in,
              v + xi * c_in * tiles, tiles, 0.0f, mm + xi * m_out * tiles, tiles);
      }
    };
    // The 36 products are independent and each is small (64 x 196 x 64 in ResNet's first
    // stage): threads take whole products, which needs no packing twice and one join, where
    // splitting each product would join 36 times.
    parallel_for(36, 1, products);
    const float* zn = e.residual ? e.residual + n * m_out * out_size : nullptr;
    parallel_for(m_out, 1, [&](int64_t begin, int64_t end) {
      float* scratch = conv_scratch(ConvScratch::kWinogradPlane, plane);
      HWY_DYNAMIC_DISPATCH(transform_output)(g, mm, bias, begin, end, scratch, yn, m_out);
      // Each plane is still in cache: the residual and the activation cost no memory pass.
      for (int64_t m = begin; m < end; ++m) {
        add_residual_and_activate(e, yn + m * out_size, zn ? zn + m * out_size : nullptr, 1,
                                  out_size, out_size, /*in_gemm=*/false);
      }
    });
  }
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
