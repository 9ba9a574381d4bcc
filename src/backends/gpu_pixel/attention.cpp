// Attention (opset 23, 24) as draws: Q, K, V in the 3-D ([batch, seq, heads * size]) or 4-D
// ([batch, heads, seq, size]) layout, read in place through strides; grouped-query heads; float
// or bool masks broadcast from the right; is_causal; scale; softcap; the key/value cache
// (past_key / past_value -> present_key / present_value, built with Concat and RegionCopy
// draws); every qk_matmul_output_mode; opset 24's nonpad_kv_seqlen (int64, a host value, passed
// as uniforms). The draws compute in float32, as the CPU kernel does; float16 and bfloat16
// operands are held exactly in the textures, and the Y and scores outputs of those dtypes are
// drawn in float32 and rounded once (convert.h).
//
// Four draws, as the CPU kernel's stages (backends/cpu/attention_kernel.h):
//   scores  [rows, total]  s = scale q.k, soft-capped, plus the bias (stage 2)
//   stats   [rows, 2]      each row's maximum and sum of exp(s - max); a sum of 0 marks a row
//                          whose bias hides every key (it attends to nothing)
//   probs   [rows, total]  exp(s - max) / sum, or 0 on a hidden row (stage 3)
//   Y                      probs . V, in Y's layout
// where rows = batch * q_heads * q_len and total = past + new keys. A scores output of stage 0
// or 1 is one more scores draw.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
// The geometry, the mask's broadcast and the attributes come from the op's definition
// (opdefs/attention.h), as on the CPU.
#include <array>
#include <cmath>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/banded_draw.h"
#include "backends/gpu_pixel/concat.h"
#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/region_copy.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/attention.h"

namespace kiln::gpu_pixel {
namespace {

// The batches whose valid key counts (nonpad_kv_seqlen) fit the uniform array below.
constexpr int64_t kMaxPaddedBatches = 256;

// What every draw of a query row shares: its (b, h, i), and the bias of each key. Variants:
// HAS_MASK (with BOOL_MASK: a nonzero element attends, zero hides), CAUSAL, PADDED.
constexpr const char* kRowShader = R"(
uniform int u_q_heads;
uniform int u_group;  // query heads per key/value head
uniform int u_q_len;
uniform int u_total;  // keys
uniform int u_causal_offset;  // without PADDED: query i sees keys up to i + offset
#ifdef HAS_MASK
uniform highp sampler2D mask;
uniform int mask_width;
uniform int u_mask[4];  // batch, head and row strides (0 where broadcast), columns
#endif
#ifdef PADDED
uniform ivec4 u_valid[64];  // each batch's valid keys, checked on the host to [0, total]
#endif

// (b, h, i) of query row `row` = (b * q_heads + h) * q_len + i.
ivec3 query_of(int row) {
  int bh = row / u_q_len;
  return ivec3(bh / u_q_heads, bh - (bh / u_q_heads) * u_q_heads, row - bh * u_q_len);
}

// Key j's bias for query q: the mask's value, or -inf where the causal mask, the key padding or
// the mask's end hides the key.
float key_bias(ivec3 q, int j) {
  int visible = u_total;
#ifdef PADDED
  int valid = u_valid[q.x >> 2][q.x & 3];
#endif
#ifdef CAUSAL
#ifdef PADDED
  int offset = valid - u_q_len;  // the queries are the last q_len of the valid keys
#else
  int offset = u_causal_offset;
#endif
  visible = min(visible, max(0, q.z + offset + 1));
#endif
#ifdef PADDED
  visible = min(visible, valid);
#endif
  if (j >= visible) return -inf_value();
#ifdef HAS_MASK
  if (j >= u_mask[3]) return -inf_value();
  float m = fetch_element(mask, mask_width, q.x * u_mask[0] + q.y * u_mask[1] + q.z * u_mask[2] + j);
#ifdef BOOL_MASK
  return m != 0.0 ? 0.0 : -inf_value();
#else
  return m;
#endif
#else
  return 0.0;
#endif
}
)";

// Scores element e = row * total + j at stage u_stage.
constexpr const char* kScoresShader = R"(
uniform highp sampler2D q;
uniform int q_width;
uniform highp sampler2D k;
uniform int k_width;
uniform int u_head_size;
uniform int u_q_stride[3];  // batch, head, row
uniform int u_k_stride[3];
uniform float u_scale;
uniform float u_softcap;  // 0: none
uniform int u_stage;      // 0: scaled, 1: soft-capped, 2: with the bias

float element(int e) {
  int row = e / u_total;
  int j = e - row * u_total;
  ivec3 p = query_of(row);
  int qi = p.x * u_q_stride[0] + p.y * u_q_stride[1] + p.z * u_q_stride[2];
  int ki = p.x * u_k_stride[0] + (p.y / u_group) * u_k_stride[1] + j * u_k_stride[2];
  float s = 0.0;
  for (int d = 0; d < u_head_size; ++d) {
    s += fetch_element(q, q_width, qi + d) * fetch_element(k, k_width, ki + d);
  }
  s *= u_scale;
  if (u_stage == 0) return s;
  if (u_softcap > 0.0) s = u_softcap * tanh_(s * (1.0 / u_softcap));
  if (u_stage == 1) return s;
  return s + key_bias(p, j);
}
)";

// Row stats (kLineStatsMain): the maximum score and the sum of exp(s - max), or a sum of 0 for a
// row whose bias is -inf at every key.
constexpr const char* kStatsShader = R"(
uniform highp sampler2D scores;
uniform int scores_width;

vec2 line_stats(int row) {
  ivec3 p = query_of(row);
  int start = row * u_total;
  float m = -inf_value();
  bool seen = false;
  for (int j = 0; j < u_total; ++j) {
    m = max(m, fetch_element(scores, scores_width, start + j));
    seen = seen || key_bias(p, j) != -inf_value();
  }
  if (!seen) return vec2(m, 0.0);
  float sum = 0.0;
  for (int j = 0; j < u_total; ++j) sum += exp_(fetch_element(scores, scores_width, start + j) - m);
  return vec2(m, sum);
}
)";

constexpr const char* kProbsShader = R"(
uniform highp sampler2D scores;
uniform int scores_width;
uniform highp sampler2D stats;
uniform int stats_width;

float element(int e) {
  int row = e / u_total;
  float sum = fetch_element(stats, stats_width, 2 * row + 1);
  if (sum == 0.0) return 0.0;  // a hidden row attends to nothing
  float m = fetch_element(stats, stats_width, 2 * row);
  return exp_(fetch_element(scores, scores_width, e) - m) * (1.0 / sum);
}
)";

// Y element e in Y's layout: [b, i, h, d] packed, else [b, h, i, d].
constexpr const char* kOutputShader = R"(
uniform highp sampler2D probs;
uniform int probs_width;
uniform highp sampler2D v;
uniform int v_width;
uniform int u_v_head_size;
uniform int u_v_stride[3];  // batch, head, row
uniform int u_packed;

float element(int e) {
  int t = e / u_v_head_size;
  int d = e - t * u_v_head_size;
  int b, h, i;
  if (u_packed != 0) {
    h = t % u_q_heads;
    t /= u_q_heads;
    i = t % u_q_len;
    b = t / u_q_len;
  } else {
    i = t % u_q_len;
    t /= u_q_len;
    h = t % u_q_heads;
    b = t / u_q_heads;
  }
  int pi = ((b * u_q_heads + h) * u_q_len + i) * u_total;
  int vi = b * u_v_stride[0] + (h / u_group) * u_v_stride[1] + d;
  float acc = 0.0;
  for (int j = 0; j < u_total; ++j) {
    acc += fetch_element(probs, probs_width, pi + j) * fetch_element(v, v_width, vi);
    vi += u_v_stride[2];
  }
  return acc;
}
)";

enum class MaskKind { None, Float, Bool };

// One run's problem: the geometry (its total() keys are those K and V hold), where each
// operand's elements are, and the options.
struct AttentionProblem {
  AttentionGeometry g;
  HeadStrides q, k, v;  // k and v strided over the total keys
  MaskKind mask = MaskKind::None;
  AttentionMaskLayout mask_layout;
  bool causal = false;
  std::vector<int> valid;  // per batch with nonpad_kv_seqlen, else empty
  float scale = 1, softcap = 0;
};

// The operands, float32 values (or float16, bfloat16 and bool ones, held exactly); mask may be
// null. `scores`, when given, receives the scores of `scores_stage`.
struct AttentionTextures {
  const TextureTensor *q = nullptr, *k = nullptr, *v = nullptr, *mask = nullptr;
  TextureTensor* y = nullptr;
  TextureTensor* scores = nullptr;
  int scores_stage = 0;
};

std::array<int, 3> narrow(const HeadStrides& s) {
  return {static_cast<int>(s.batch), static_cast<int>(s.head), static_cast<int>(s.row)};
}

// Appends `tensor` to the draw's inputs unless it is empty: draws whose loops run zero times
// never read it.
void add_input(std::vector<DrawInput>& inputs, const char* sampler, const TextureTensor* tensor) {
  if (tensor != nullptr && tensor->element_count() > 0) inputs.push_back({sampler, tensor});
}

class AttentionDraws {
 public:
  explicit AttentionDraws(Context& context) : context_(context) {}

  void record(const AttentionProblem& p, const AttentionTextures& t) const {
    const std::string where = "Attention on OpenGL ES";
    const AttentionGeometry& g = p.g;
    const int64_t rows = g.batch * g.q_heads * g.q_len;
    const int64_t total = g.total();
    check(rows * total <= kIndexLimit && 2 * rows <= kIndexLimit &&
              t.q->element_count() <= kIndexLimit && t.k->element_count() <= kIndexLimit &&
              t.v->element_count() <= kIndexLimit &&
              (t.mask == nullptr || t.mask->element_count() <= kIndexLimit),
          where + ": more elements than 32-bit indexing reaches");
    check(static_cast<int64_t>(p.valid.size()) <= kMaxPaddedBatches,
          where + ": more batches than the valid key counts' uniforms hold");
    expect_element_count(*t.y, rows * g.v_head_size, where, "Y");
    if (t.scores) expect_element_count(*t.scores, rows * total, where, "the scores output");

    ProgramVariant variant;
    variant.add(p.mask != MaskKind::None, "HAS_MASK");
    variant.add(p.mask == MaskKind::Bool, "BOOL_MASK");
    variant.add(p.causal, "CAUSAL");
    variant.add(!p.valid.empty(), "PADDED");
    const std::string prelude = std::string(shader_math_glsl()) + kRowShader;
    auto set_row_uniforms = [&](const Program& program) {
      program.set("u_q_heads", static_cast<int>(g.q_heads));
      program.set("u_group", static_cast<int>(g.kv_heads > 0 ? g.q_heads / g.kv_heads : 1));
      program.set("u_q_len", static_cast<int>(g.q_len));
      program.set("u_total", static_cast<int>(total));
      program.set("u_causal_offset", static_cast<int>(g.past_len));
      if (p.mask != MaskKind::None) {
        const std::array<int, 4> m = {
            static_cast<int>(p.mask_layout.batch), static_cast<int>(p.mask_layout.head),
            static_cast<int>(p.mask_layout.row), static_cast<int>(p.mask_layout.columns)};
        program.set("u_mask", std::span<const int>(m));
      }
      if (!p.valid.empty()) {
        std::vector<int> valid(static_cast<size_t>(kMaxPaddedBatches), 0);
        std::copy(p.valid.begin(), p.valid.end(), valid.begin());
        glUniform4iv(program.location("u_valid"), static_cast<GLsizei>((p.valid.size() + 3) / 4),
                     valid.data());
      }
    };

    // Stage-2 scores, the softmax's input (the scores output itself when it asks for them).
    const bool scores_are_stage2 = t.scores != nullptr && t.scores_stage == 2;
    TextureTensor own_scores;
    TextureTensor& scores =
        scores_are_stage2 ? *t.scores : (own_scores = TextureTensor(context_, rows * total));
    const Program& scores_program = context_.programs().get(
        "attention_scores", variant.name, variant.defines, prelude + kScoresShader + kElementMain);
    auto draw_scores = [&](TextureTensor& out, int stage) {
      std::vector<DrawInput> inputs;
      add_input(inputs, "q", t.q);
      add_input(inputs, "k", t.k);
      add_input(inputs, "mask", t.mask);
      draw_in_bands(context_, scores_program, out, inputs, 4 * g.head_size, [&] {
        set_row_uniforms(scores_program);
        scores_program.set("u_head_size", static_cast<int>(g.head_size));
        scores_program.set("u_q_stride", std::span<const int>(narrow(p.q)));
        scores_program.set("u_k_stride", std::span<const int>(narrow(p.k)));
        scores_program.set("u_scale", p.scale);
        scores_program.set("u_softcap", p.softcap);
        scores_program.set("u_stage", stage);
      });
    };
    draw_scores(scores, 2);
    if (t.scores != nullptr && t.scores_stage < 2) draw_scores(*t.scores, t.scores_stage);

    TextureTensor stats(context_, 2 * rows);
    const Program& stats_program = context_.programs().get(
        "attention_stats", variant.name, variant.defines, prelude + kStatsShader + kLineStatsMain);
    {
      std::vector<DrawInput> inputs;
      add_input(inputs, "scores", &scores);
      add_input(inputs, "mask", t.mask);
      // Two lines per fragment, each walked twice.
      draw(
          context_, stats_program, stats, inputs, [&] { set_row_uniforms(stats_program); },
          2 * kStatsLinesPerFragment * total);
    }

    const bool probs_out = t.scores != nullptr && t.scores_stage == 3;
    TextureTensor own_probs;
    TextureTensor& probs =
        probs_out ? *t.scores : (own_probs = TextureTensor(context_, rows * total));
    const Program& probs_program = context_.programs().get(
        "attention_probs", variant.name, variant.defines, prelude + kProbsShader + kElementMain);
    {
      std::vector<DrawInput> inputs;
      add_input(inputs, "scores", &scores);
      add_input(inputs, "stats", &stats);
      draw(context_, probs_program, probs, inputs, [&] { set_row_uniforms(probs_program); });
    }

    const Program& y_program = context_.programs().get("attention_y", variant.name, variant.defines,
                                                       prelude + kOutputShader + kElementMain);
    std::vector<DrawInput> inputs;
    add_input(inputs, "probs", &probs);
    add_input(inputs, "v", t.v);
    draw_in_bands(context_, y_program, *t.y, inputs, 4 * total, [&] {
      set_row_uniforms(y_program);
      y_program.set("u_v_head_size", static_cast<int>(g.v_head_size));
      y_program.set("u_v_stride", std::span<const int>(narrow(p.v)));
      y_program.set("u_packed", g.packed ? 1 : 0);
    });
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

constexpr size_t kMaskInput = 3, kPastKey = 4, kPastValue = 5, kNonpad = 6;

// The keys (or values) attended to, [batch, kv_heads, past + new, size] contiguous, in `out`:
// the past followed by the new ones (transposed first when packed).
void build_present(OpRecorder& r, const AttentionGeometry& g, const TextureTensor* past,
                   const TextureTensor& current, int64_t size, TextureTensor& out) {
  const Shape current_shape{g.batch, g.kv_heads, g.new_kv_len, size};
  const TextureTensor* current_4d = &current;
  TextureTensor transposed;
  if (g.packed) {
    const int64_t perm[] = {0, 2, 1, 3};
    const Region region = transpose_region({g.batch, g.new_kv_len, g.kv_heads, size}, perm);
    if (past == nullptr) {
      r.kernel<RegionCopy>().record(region, current, out);
      return;
    }
    transposed = r.temporary(current_shape.element_count());
    r.kernel<RegionCopy>().record(region, current, transposed);
    current_4d = &transposed;
  }
  std::vector<const TextureTensor*> ins;
  std::vector<Shape> shapes;
  if (past != nullptr) {
    ins.push_back(past);
    shapes.push_back({g.batch, g.kv_heads, g.past_len, size});
  }
  ins.push_back(current_4d);
  shapes.push_back(current_shape);
  r.kernel<Concat>().record(ins, shapes, 2, out);
}

// nonpad_kv_seqlen's values, checked as the CPU kernel checks them (which reports bad values:
// RunOnCpu).
std::vector<int> valid_lengths(OpRecorder& r, const AttentionGeometry& g) {
  const Tensor& t = r.host(kNonpad);  // downloaded when a draw made it
  if (t.dtype() != DataType::Int64 || t.rank() != 1 || t.shape()[0] != g.batch)
    throw RunOnCpu(RunTimeCause::InputValues, "nonpad_kv_seqlen of the wrong type or shape");
  if (g.batch > kMaxPaddedBatches)
    throw RunOnCpu(RunTimeCause::DeviceLimit,
                   "more batches than nonpad_kv_seqlen's uniforms hold (" +
                       std::to_string(kMaxPaddedBatches) + ")");
  std::vector<int> lengths;
  for (int64_t b = 0; b < g.batch; ++b) {
    const int64_t n = t.data<int64_t>()[b];
    if (n < 0 || n > g.total())
      throw RunOnCpu(RunTimeCause::InputValues, "nonpad_kv_seqlen outside [0, keys]");
    lengths.push_back(static_cast<int>(n));
  }
  return lengths;
}

RecordFn attention(AttentionAttrs a, NodeRef node) {
  return [=](OpRecorder& r) {
    const bool has_past = r.has_input(kPastKey) && r.has_input(kPastValue);
    const AttentionGeometry g =
        resolve_attention(*node.node, a, r.shape(0), r.shape(1), r.shape(2),
                          r.has_input(kPastKey) ? &r.shape(kPastKey) : nullptr,
                          r.has_input(kPastValue) ? &r.shape(kPastValue) : nullptr);
    const DataType q_type = r.input(0).dtype();
    if (r.input(1).dtype() != q_type ||
        (has_past && (r.input(kPastKey).dtype() != q_type ||
                      r.input(kPastValue).dtype() != r.input(2).dtype())))
      throw RunOnCpu(RunTimeCause::InputKind, "operands of differing element types");
    Float32Outputs outputs(r);
    AttentionProblem p;
    p.g = g;
    p.q = head_strides(g.packed, g.q_heads, g.q_len, g.head_size);
    p.scale = a.has_scale ? a.scale : 1.0f / std::sqrt(static_cast<float>(g.head_size));
    p.softcap = a.softcap;
    p.causal = a.is_causal;
    AttentionTextures t;
    if (r.has_input(kMaskInput)) {
      p.mask_layout = resolve_attention_mask(*node.node, g, r.shape(kMaskInput));
      p.mask = r.input(kMaskInput).dtype() == DataType::Bool ? MaskKind::Bool : MaskKind::Float;
      t.mask = &r.texture(kMaskInput);
    }
    if (r.has_input(kNonpad)) p.valid = valid_lengths(r, g);
    t.q = &r.texture(0);
    t.y = &outputs.output(0, q_type, g.y_shape());
    // The keys and values: in place without a cache, else the present ones (outputs 1 and 2,
    // or temporaries when the graph leaves them out).
    TextureTensor present_keys, present_values;
    if (has_past || r.num_outputs() > 1) {
      auto cache = [&](size_t out, size_t past, size_t current, int64_t size,
                       TextureTensor& scratch) -> const TextureTensor& {
        const Shape shape = g.present_shape(size);
        TextureTensor& dest = r.num_outputs() > out
                                  ? r.output(out, shape, r.input(current).dtype())
                                  : (scratch = r.temporary(shape.element_count()));
        build_present(r, g, has_past ? &r.texture(past) : nullptr, r.texture(current), size, dest);
        return dest;
      };
      t.k = &cache(1, kPastKey, 1, g.head_size, present_keys);
      t.v = &cache(2, kPastValue, 2, g.v_head_size, present_values);
      p.k = head_strides(false, g.kv_heads, g.total(), g.head_size);
      p.v = head_strides(false, g.kv_heads, g.total(), g.v_head_size);
    } else {
      t.k = &r.texture(1);
      t.v = &r.texture(2);
      p.k = head_strides(g.packed, g.kv_heads, g.new_kv_len, g.head_size);
      p.v = head_strides(g.packed, g.kv_heads, g.new_kv_len, g.v_head_size);
    }
    if (r.num_outputs() > 3) {
      t.scores = &outputs.output(3, q_type, g.scores_shape());
      t.scores_stage = a.qk_output_mode;
    }
    r.kernel<AttentionDraws>().record(p, t);
    outputs.finish();
  };
}

RecordFn attention_factory(const DevicePlacementQuery& q, std::string& reason) {
  static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16, DataType::BFloat16};
  static constexpr DataType kMasks[] = {DataType::Float32, DataType::Float16, DataType::BFloat16,
                                        DataType::Bool};
  std::optional<size_t> k = input_outside_dtypes(q, kFloats, 0, 3);
  if (!k) k = input_outside_dtypes(q, kMasks, kMaskInput, 1);
  if (!k) k = input_outside_dtypes(q, kFloats, kPastKey, 2);
  if (k) {
    reason = std::string(dtype_name(q.input_types[*k])) + " input " + std::to_string(*k) +
             " stays on the CPU (the draws take float32, float16, bfloat16 and bool masks)";
    return nullptr;
  }
  if (!host_inputs(q, kNonpad, reason)) return nullptr;
  return attention(parse_attention_attrs(q.info), NodeRef(q.info));
}

}  // namespace

KILN_GPU_PIXEL_OPS(attention);
void register_attention_ops(OpTable& t) { t.add("Attention", attention_factory); }

}  // namespace kiln::gpu_pixel
