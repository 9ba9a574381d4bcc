// RotaryEmbedding (ai.onnx 23) as a draw: float32, 3-D or 4-D input, interleaved or not, a partial
// rotary_embedding_dim, caches indexed by position_ids or holding one row per token. The cache
// row of each token is worked out on the host (position_ids are int64, a host value) and uploaded
// as a small texture of row numbers, exact in float32 below 2^24 rows.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
// The geometry and the caches' checks are the op's definition (opdefs/rotary.h), as on the CPU.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/rotary.h"

namespace kiln::gpu_pixel {
namespace {

// Element d < rotary_dim of a head is one half of the pair (i, i + rotary_dim / 2), or
// (2i, 2i + 1) with INTERLEAVED, rotated by the angle of its token's cache row:
//   (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos);
// the features past rotary_dim are copied. Heads run [b, h, s] (4-D) or [b, s, h] (packed).
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D cos_cache;
uniform int cos_cache_width;
uniform highp sampler2D sin_cache;
uniform int sin_cache_width;
uniform highp sampler2D rows;  // token b * seq + s -> its cache row
uniform int rows_width;
uniform int u_heads;
uniform int u_seq;
uniform int u_head_size;
uniform int u_half_dim;
uniform int u_packed;
uniform int u_cache_stride;

float element(int e) {
  int line = e / u_head_size;
  int d = e - line * u_head_size;
  if (d >= 2 * u_half_dim) return fetch_element(x, x_width, e);
  int s = u_packed != 0 ? (line / u_heads) % u_seq : line % u_seq;
  int b = line / (u_heads * u_seq);
  int row = int(fetch_element(rows, rows_width, b * u_seq + s));
#ifdef INTERLEAVED
  int i = d / 2;
  bool first = (d & 1) == 0;
  int i1 = 2 * i, i2 = 2 * i + 1;
#else
  bool first = d < u_half_dim;
  int i = first ? d : d - u_half_dim;
  int i1 = i, i2 = i + u_half_dim;
#endif
  int base = e - d;
  float x1 = fetch_element(x, x_width, base + i1);
  float x2 = fetch_element(x, x_width, base + i2);
  float c = fetch_element(cos_cache, cos_cache_width, row * u_cache_stride + i);
  float sn = fetch_element(sin_cache, sin_cache_width, row * u_cache_stride + i);
  return first ? x1 * c - x2 * sn : x1 * sn + x2 * c;
}
)";

// Row numbers past this are not exact in a float texture.
constexpr int64_t kMaxCacheRows = int64_t{1} << 24;

class Rotary {
 public:
  explicit Rotary(Context& context) : context_(context) {}

  // y = x rotated; `rows` holds each token's cache row, the caches `cache_stride` floats a row.
  void record(const RotaryGeometry& g, bool interleaved, const TextureTensor& x,
              const TextureTensor& cos_cache, const TextureTensor& sin_cache, int64_t cache_stride,
              const TextureTensor& rows, TextureTensor& y) const {
    const std::string where = "RotaryEmbedding on OpenGL ES";
    const int64_t count = g.batch * g.heads * g.seq * g.head_size;
    check(count <= kIndexLimit && cos_cache.element_count() <= kIndexLimit,
          where + ": more elements than 32-bit indexing reaches");
    expect_element_count(x, count, where, "X");
    expect_element_count(y, count, where, "Y");
    if (count == 0) return;
    expect_element_count(rows, g.batch * g.seq, where, "the cache rows");
    ProgramVariant variant;
    variant.add(interleaved, "INTERLEAVED");
    const Program& program = context_.programs().get("rotary", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    // Without a rotated feature the caches may be empty: they are left unbound, never read.
    std::vector<DrawInput> inputs = {{"x", &x}, {"rows", &rows}};
    if (g.rotary_dim > 0) {
      inputs.push_back({"cos_cache", &cos_cache});
      inputs.push_back({"sin_cache", &sin_cache});
    }
    draw(context_, program, y, inputs, [&] {
      program.set("u_heads", static_cast<int>(g.heads));
      program.set("u_seq", static_cast<int>(g.seq));
      program.set("u_head_size", static_cast<int>(g.head_size));
      program.set("u_half_dim", static_cast<int>(g.rotary_dim / 2));
      program.set("u_packed", g.packed ? 1 : 0);
      program.set("u_cache_stride", static_cast<int>(cache_stride));
    });
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

constexpr size_t kPositionIds = 3;

// The cache row of each token b * seq + s: its position id, or the token itself without them.
// RunOnCpu for ids the CPU kernel reports (outside the caches).
std::vector<float> cache_rows(OpRecorder& r, const RotaryGeometry& g, int64_t cache_rows_count) {
  const int64_t tokens = g.batch * g.seq;
  std::vector<float> rows(static_cast<size_t>(tokens));
  if (!r.has_input(kPositionIds)) {
    for (int64_t t = 0; t < tokens; ++t) rows[static_cast<size_t>(t)] = static_cast<float>(t);
    return rows;
  }
  const Tensor& ids = r.host(kPositionIds);  // downloaded when a draw made them
  if (ids.dtype() != DataType::Int64)
    throw RunOnCpu(RunTimeCause::InputKind, "position_ids that are not int64");
  const int64_t* v = ids.data<int64_t>();
  for (int64_t t = 0; t < tokens; ++t) {
    if (v[t] < 0 || v[t] >= cache_rows_count)
      throw RunOnCpu(RunTimeCause::InputValues, "a position id outside the caches");
    rows[static_cast<size_t>(t)] = static_cast<float>(v[t]);
  }
  return rows;
}

RecordFn rotary(RotaryAttrs a, NodeRef node) {
  return [=](OpRecorder& r) {
    const RotaryGeometry g = resolve_rotary(*node.node, a, r.shape(0));
    const Shape& cs = r.shape(1);
    check_rotary_caches(*node.node, g, cs, r.shape(2),
                        r.has_input(kPositionIds) ? &r.shape(kPositionIds) : nullptr);
    if (cs[0] > kMaxCacheRows)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "more cache rows than a float texture indexes");
    const std::vector<float> row_values = cache_rows(r, g, cs[0]);
    TextureTensor rows = r.temporary(static_cast<int64_t>(row_values.size()));
    if (!row_values.empty()) upload(rows, row_values);
    r.kernel<Rotary>().record(g, a.interleaved, r.texture(0), r.texture(1), r.texture(2), cs.back(),
                              rows, r.output(0, r.shape(0)));
  };
}

RecordFn rotary_factory(const DevicePlacementQuery& q, std::string& reason) {
  if (!float_inputs(q, reason, 0, 3) || !host_inputs(q, kPositionIds, reason)) return nullptr;
  return rotary(parse_rotary_attrs(q.info), NodeRef(q.info));
}

}  // namespace

KILN_GPU_PIXEL_OPS(rotary);
void register_rotary_ops(OpTable& t) { t.add("RotaryEmbedding", rotary_factory); }

}  // namespace kiln::gpu_pixel
