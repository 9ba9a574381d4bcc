#include "backends/gpu_pixel/matmul.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_pixel/banded_draw.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/fused_activation.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// Variants: ROW_TEXEL (the four outputs share row m; B read a texel at a time), A_TEXEL (A too),
// HAS_C, and the fused activation's define (fused_activation.h).
constexpr const char* kShader = R"(
uniform highp sampler2D a;
uniform int a_width;
uniform highp sampler2D b;
uniform int b_width;
#ifdef HAS_C
uniform highp sampler2D c;
uniform int c_width;
#endif
uniform int u_batch_rank;
uniform int u_batch_shape[4];
uniform int u_a_batch_stride[4];
uniform int u_b_batch_stride[4];
uniform int u_m;
uniform int u_n;
uniform int u_k;
uniform int u_a_stride_m;
uniform int u_a_stride_k;
uniform int u_b_stride_k;
uniform int u_b_stride_n;
uniform float u_alpha;
uniform float u_beta;
uniform int u_c_stride_m;
uniform int u_c_stride_n;

// Where batch `batch` starts in a (x) and b (y).
ivec2 batch_bases(int batch) {
  ivec2 base = ivec2(0);
  for (int d = u_batch_rank - 1; d >= 0; --d) {
    int i = batch % u_batch_shape[d];
    batch /= u_batch_shape[d];
    base += i * ivec2(u_a_batch_stride[d], u_b_batch_stride[d]);
  }
  return base;
}

float epilogue(float sum, int m, int n) {
  float v = u_alpha * sum;
#ifdef HAS_C
  v += u_beta * fetch_element(c, c_width, m * u_c_stride_m + n * u_c_stride_n);
#endif
  return activate(v);
}

// Output element e = ((batch * M) + m) * N + n as (batch, m, n).
ivec3 output_position(int e) {
  int mn = u_m * u_n;
  int batch = e / mn;
  int r = e - batch * mn;
  int m = r / u_n;
  return ivec3(batch, m, r - m * u_n);
}

// Output element e, one at a time.
float element(int e) {
  ivec3 position = output_position(e);
  int m = position.y, n = position.z;
  ivec2 base = batch_bases(position.x);
  int ai = base.x + m * u_a_stride_m;
  int bi = base.y + n * u_b_stride_n;
  float sum = 0.0;
  for (int k = 0; k < u_k; ++k) {
    sum += fetch_element(a, a_width, ai) * fetch_element(b, b_width, bi);
    ai += u_a_stride_k;
    bi += u_b_stride_k;
  }
  return epilogue(sum, m, n);
}

#ifdef ROW_TEXEL
void main() {
  int e = 4 * output_texel();
  if (e >= u_out_count) {
    out_texel = vec4(0.0);
    return;
  }
  ivec3 position = output_position(e);
  int m = position.y, n = position.z;
  ivec2 base = batch_bases(position.x);
  int bt = (base.y + n) >> 2;  // texel of B(0, n..n+3)
  int b_step = u_b_stride_k >> 2;
  vec4 sum = vec4(0.0);
#ifdef A_TEXEL
  int at = (base.x + m * u_a_stride_m) >> 2;  // texel of A(m, 0..3)
  for (int k = 0; k < u_k; k += 4) {
    vec4 av = fetch_texel(a, a_width, at++);
    sum += av.x * fetch_texel(b, b_width, bt);
    sum += av.y * fetch_texel(b, b_width, bt + b_step);
    sum += av.z * fetch_texel(b, b_width, bt + 2 * b_step);
    sum += av.w * fetch_texel(b, b_width, bt + 3 * b_step);
    bt += 4 * b_step;
  }
#else
  int ai = base.x + m * u_a_stride_m;
  for (int k = 0; k < u_k; ++k) {
    sum += fetch_element(a, a_width, ai) * fetch_texel(b, b_width, bt);
    ai += u_a_stride_k;
    bt += b_step;
  }
#endif
  out_texel = vec4(epilogue(sum.x, m, n), epilogue(sum.y, m, n + 1), epilogue(sum.z, m, n + 2),
                   epilogue(sum.w, m, n + 3));
}
#endif
)";

std::string dims(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

// The largest index `p` reaches in a (x) and b (y), plus one.
int64_t a_extent(const MatmulParams& p) {
  int64_t last = int64_t{p.m - 1} * p.a_stride_m + int64_t{p.k - 1} * p.a_stride_k;
  for (int d = 0; d < p.batch_rank; ++d)
    last += int64_t{p.batch_shape[d] - 1} * p.a_batch_stride[d];
  return last + 1;
}
int64_t b_extent(const MatmulParams& p) {
  int64_t last = int64_t{p.k - 1} * p.b_stride_k + int64_t{p.n - 1} * p.b_stride_n;
  for (int d = 0; d < p.batch_rank; ++d)
    last += int64_t{p.batch_shape[d] - 1} * p.b_batch_stride[d];
  return last + 1;
}

bool all_multiple_of_4(const std::array<int, kMatmulMaxBatchRank>& strides, int rank) {
  return std::all_of(strides.begin(), strides.begin() + rank, [](int s) { return s % 4 == 0; });
}

}  // namespace

int64_t MatmulParams::batch_count() const {
  int64_t count = 1;
  for (int d = 0; d < batch_rank; ++d) count *= batch_shape[d];
  return count;
}

MatmulParams matmul_params(const Shape& a_in, const Shape& b_in) {
  const std::string where = "MatMul on OpenGL ES of " + dims(a_in) + " and " + dims(b_in);
  check(!a_in.empty() && !b_in.empty(), where + ": operands must have rank 1 or more");
  Shape a = a_in, b = b_in;
  if (a.size() == 1) a.insert(0, 1);           // [K] -> [1, K]
  if (b.size() == 1) b.push_back(int64_t{1});  // [K] -> [K, 1]
  MatmulParams p;
  const int64_t m = a[a.size() - 2], k = a[a.size() - 1], n = b[b.size() - 1];
  check(b[b.size() - 2] == k, where + ": inner dimensions differ");
  check(m <= kIndexLimit && n <= kIndexLimit && k <= kIndexLimit, where + ": too large");
  p.m = static_cast<int>(m);
  p.n = static_cast<int>(n);
  p.k = static_cast<int>(k);
  p.a_stride_m = p.k;
  p.a_stride_k = 1;
  p.b_stride_k = p.n;
  p.b_stride_n = 1;

  // Broadcast the batch dimensions (right-aligned), with row-major strides per operand.
  const size_t a_rank = a.size() - 2, b_rank = b.size() - 2;
  const size_t rank = std::max(a_rank, b_rank);
  std::vector<int64_t> shape(rank), a_stride(rank), b_stride(rank);
  int64_t a_step = m * k, b_step = k * n;
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = rank - 1 - i;  // output dimension, from the innermost
    const int64_t ad = i < a_rank ? a[a_rank - 1 - i] : 1;
    const int64_t bd = i < b_rank ? b[b_rank - 1 - i] : 1;
    check(ad == bd || ad == 1 || bd == 1, where + ": batch dimensions do not broadcast");
    shape[d] = std::max(ad, bd);
    if (ad == 0 || bd == 0) shape[d] = 0;
    a_stride[d] = ad == 1 ? 0 : a_step;
    b_stride[d] = bd == 1 ? 0 : b_step;
    a_step *= ad;
    b_step *= bd;
  }
  // Drop unit dimensions and merge neighbours that are contiguous in both operands.
  std::vector<int64_t> s2, as2, bs2;
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    if (!s2.empty() && as2.back() == a_stride[d] * shape[d] &&
        bs2.back() == b_stride[d] * shape[d]) {
      s2.back() *= shape[d];
      as2.back() = a_stride[d];
      bs2.back() = b_stride[d];
      continue;
    }
    s2.push_back(shape[d]);
    as2.push_back(a_stride[d]);
    bs2.push_back(b_stride[d]);
  }
  check(s2.size() <= kMatmulMaxBatchRank,
        where + ": more than " + std::to_string(kMatmulMaxBatchRank) + " batch dimensions");
  p.batch_rank = static_cast<int>(s2.size());
  for (size_t d = 0; d < s2.size(); ++d) {
    check(s2[d] <= kIndexLimit && as2[d] <= kIndexLimit && bs2[d] <= kIndexLimit,
          where + ": too large");
    p.batch_shape[d] = static_cast<int>(s2[d]);
    p.a_batch_stride[d] = static_cast<int>(as2[d]);
    p.b_batch_stride[d] = static_cast<int>(bs2[d]);
  }
  check(p.output_count() <= kIndexLimit && a_step <= kIndexLimit && b_step <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
  return p;
}

MatmulParams gemm_params(const Shape& a, const Shape& b, const Shape* c_shape, bool trans_a,
                         bool trans_b, float alpha, float beta) {
  const std::string where = "Gemm on OpenGL ES of " + dims(a) + " and " + dims(b);
  check(a.size() == 2 && b.size() == 2, where + ": A and B must be 2-D");
  const int64_t m = trans_a ? a[1] : a[0], k = trans_a ? a[0] : a[1];
  const int64_t kb = trans_b ? b[1] : b[0], n = trans_b ? b[0] : b[1];
  check(k == kb, where + ": inner dimensions differ (" + std::to_string(k) + " and " +
                     std::to_string(kb) + ")");
  check(
      a.element_count() <= kIndexLimit && b.element_count() <= kIndexLimit && m * n <= kIndexLimit,
      where + ": more elements than 32-bit indexing reaches");
  MatmulParams p;
  p.m = static_cast<int>(m);
  p.n = static_cast<int>(n);
  p.k = static_cast<int>(k);
  p.a_stride_m = trans_a ? 1 : p.k;
  p.a_stride_k = trans_a ? p.m : 1;
  p.b_stride_k = trans_b ? 1 : p.n;
  p.b_stride_n = trans_b ? p.k : 1;
  p.alpha = alpha;
  p.beta = beta;
  if (c_shape) {
    const Shape& c = *c_shape;
    const std::string bad = where + ": C " + dims(c) + " does not broadcast to [" +
                            std::to_string(m) + "," + std::to_string(n) + "]";
    check(c.size() <= 2, bad);
    const int64_t cm = c.size() == 2 ? c[0] : 1;
    const int64_t cn = c.empty() ? 1 : c[c.size() - 1];
    check((cm == m || cm == 1) && (cn == n || cn == 1), bad);
    p.c_stride_m = cm == 1 ? 0 : static_cast<int>(cn);
    p.c_stride_n = cn == 1 ? 0 : 1;
  }
  return p;
}

void Matmul::record(const MatmulParams& p, const TextureTensor& a, const TextureTensor& b,
                    const TextureTensor* c, TextureTensor& y) const {
  const std::string where = "MatMul on OpenGL ES";
  check(y.element_count() == p.output_count(),
        where + ": output of " + std::to_string(y.element_count()) + " elements, expected " +
            std::to_string(p.output_count()));
  if (p.output_count() == 0) return;
  if (p.k > 0) {
    check(a_extent(p) <= a.element_count(), where + ": A holds fewer elements than its shape");
    check(b_extent(p) <= b.element_count(), where + ": B holds fewer elements than its shape");
  }
  if (c) {
    const int64_t c_extent = int64_t{p.m - 1} * p.c_stride_m + int64_t{p.n - 1} * p.c_stride_n + 1;
    check(c_extent <= c->element_count(), where + ": C holds fewer elements than its shape");
  }
  const bool row_texel = p.n % 4 == 0 && p.b_stride_n == 1 && p.b_stride_k % 4 == 0 &&
                         all_multiple_of_4(p.b_batch_stride, p.batch_rank);
  const bool a_texel = row_texel && p.k % 4 == 0 && p.a_stride_k == 1 && p.a_stride_m % 4 == 0 &&
                       all_multiple_of_4(p.a_batch_stride, p.batch_rank);
  ProgramVariant variant;
  variant.add(row_texel, "ROW_TEXEL");
  variant.add(a_texel, "A_TEXEL");
  variant.add(c != nullptr, "HAS_C");
  add_activation(variant, p.activation);
  // ROW_TEXEL brings its own main(); the other variants compute one element at a time.
  const std::string body =
      std::string(kFusedActivation) + kShader + (row_texel ? "" : kElementMain);
  const Program& program = context_.programs().get("matmul", variant.name, variant.defines, body);
  // With K = 0 the loop never reads A or B, which may then be empty textures (draw() refuses
  // those), so they are left unbound.
  std::vector<DrawInput> inputs;
  if (p.k > 0) inputs = {{"a", &a}, {"b", &b}};
  if (c) inputs.push_back({"c", c});
  draw_in_bands(context_, program, y, inputs, 4 * int64_t{p.k}, [&] {
    program.set("u_batch_rank", p.batch_rank);
    program.set("u_batch_shape", std::span<const int>(p.batch_shape));
    program.set("u_a_batch_stride", std::span<const int>(p.a_batch_stride));
    program.set("u_b_batch_stride", std::span<const int>(p.b_batch_stride));
    program.set("u_m", p.m);
    program.set("u_n", p.n);
    program.set("u_k", p.k);
    program.set("u_a_stride_m", p.a_stride_m);
    program.set("u_a_stride_k", p.a_stride_k);
    program.set("u_b_stride_k", p.b_stride_k);
    program.set("u_b_stride_n", p.b_stride_n);
    program.set("u_alpha", p.alpha);
    program.set("u_beta", p.beta);
    program.set("u_c_stride_m", p.c_stride_m);
    program.set("u_c_stride_n", p.c_stride_n);
    set_activation_uniforms(program, p.clip_min, p.clip_max);
  });
}

}  // namespace kiln::gpu_pixel
