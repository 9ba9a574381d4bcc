// TopK as three draws, for float32, float16, bfloat16 and the 8- and 16-bit integers (in the
// float textures, whose values compare exactly as floats) and int32, uint32 and int64 (in the
// integer textures, compared as their words):
//   1. rank: each element of X counts the elements of its line that come before it (larger, or
//      smaller, values first; NaN as larger than every number; equal values by lower index, as
//      the CPU kernel orders them), so the ranks of a line are a permutation of 0..n-1;
//   2. indices: output position j of a line is the element of rank j (sorted), or, with
//      sorted = 0, the j-th of the elements ranked below k in index order (the CPU's order);
//   3. values: each value fetched from X at its index.
// Each fragment walks its line once per element (rank) or per index (pick), so the work grows
// with the line's length squared; a line longer than the device's loop budget allows runs on the
// CPU (draw() says so). The axis and k come from the definition (opdefs/top_k.h), whose
// kiln::Error for a bad input (k larger than the axis, say) is the run's error.
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"
#include "opdefs/top_k.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// Built with KILN_INT_VALUES (ranks are int32). X is read as floats, or under SIGNED, UNSIGNED or
// WORD_PAIRS (int64: low word, then high) as integer words; LARGEST orders larger values first.
constexpr const char* kRankShader = R"(
#if defined(UNSIGNED)
uniform highp usampler2D x;
#elif defined(SIGNED) || defined(WORD_PAIRS)
uniform highp isampler2D x;
#else
uniform highp sampler2D x;
#endif
uniform int x_width;

// By its bits: compilers may fold an ordered comparison with NaN into its negated opposite.
bool is_nan(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }

// Whether element a (at position pa of its line) comes before element b (at pb).
bool before(int a, int pa, int b, int pb) {
#if defined(WORD_PAIRS)
  // The high words decide as signed values, the low ones (int to uint keeps the bits) as unsigned.
  int ah = fetch_element(x, x_width, 2 * a + 1), bh = fetch_element(x, x_width, 2 * b + 1);
  uint al = uint(fetch_element(x, x_width, 2 * a)), bl = uint(fetch_element(x, x_width, 2 * b));
  if (ah != bh || al != bl) {
    bool greater = ah > bh || (ah == bh && al > bl);
#if defined(LARGEST)
    return greater;
#else
    return !greater;
#endif
  }
#else
  float_or_int va = fetch_element(x, x_width, a), vb = fetch_element(x, x_width, b);
#if !defined(SIGNED) && !defined(UNSIGNED)
  bool na = is_nan(va), nb = is_nan(vb);
  if (na || nb) {
    if (!(na && nb)) {
#if defined(LARGEST)
      return na;
#else
      return nb;
#endif
    }
    return pa < pb;
  }
#endif
  if (va != vb) {
#if defined(LARGEST)
    return va > vb;
#else
    return va < vb;
#endif
  }
#endif
  return pa < pb;
}

int element(int e) {
  int start = line_start(line_of(e));
  int p = (e / u_inner) % u_axis_len;
  int rank = 0;
  for (int n = 0, index = start; n < u_axis_len; ++n, index += u_inner) {
    if (before(index, n, e, p)) ++rank;
  }
  return rank;
}
)";

// Built with KILN_INT_VALUES: word w is word w & 1 of output element w >> 1's int64 index, the
// output seen as (outer, k, inner).
constexpr const char* kPickShader = R"(
uniform highp isampler2D ranks;
uniform int ranks_width;
uniform int u_k;

int element(int w) {
  if ((w & 1) == 1) return 0;  // the high word of an index below 2^31
  int e = w >> 1;
  int i = e % u_inner;
  int j = (e / u_inner) % u_k;
  int o = e / u_inner / u_k;
  int index = o * u_axis_len * u_inner + i;
#if defined(SORTED)
  for (int n = 0; n < u_axis_len; ++n, index += u_inner) {
    if (fetch_element(ranks, ranks_width, index) == j) return n;
  }
#else
  int seen = 0;
  for (int n = 0; n < u_axis_len; ++n, index += u_inner) {
    if (fetch_element(ranks, ranks_width, index) < u_k) {
      if (seen == j) return n;
      ++seen;
    }
  }
#endif
  return 0;  // not reached: the ranks of a line are a permutation
}
)";

// Built with the values variant of X's texture: output word w is word w % u_words of X's element
// at the index its output element holds.
constexpr const char* kGatherShader = R"(
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform highp isampler2D indices;
uniform int indices_width;
uniform int u_words;  // texture words per element: 2 for int64, else 1
uniform int u_k;

VALUE element(int w) {
  int e = w / u_words;
  int i = e % u_inner;
  int o = e / u_inner / u_k;
  int n = fetch_element(indices, indices_width, 2 * e);
  return fetch_element(x, x_width, ((o * u_axis_len + n) * u_inner + i) * u_words + w % u_words);
}
)";

class TopK {
 public:
  explicit TopK(Context& context) : context_(context) {}

  // values and indices (int64 words) of the k first elements of each line of x (a tensor of
  // `dtype` folded as `s` around the axis), in the order `attrs` asks for.
  void record(const TopKAttrs& attrs, const FoldedShape& s, int64_t k, DataType dtype,
              const TextureTensor& x, TextureTensor& values, TextureTensor& indices) const {
    const std::string where = "TopK on OpenGL ES";
    const int64_t words = words_per_element(dtype);
    check(s.outer >= 0 && s.axis_len >= 0 && s.inner >= 0 && k >= 0 && k <= s.axis_len,
          where + ": negative sizes, or k beyond the axis");
    check(s.elements() * words <= kIndexLimit, where + ": more words than 32-bit indexing reaches");
    const int64_t count = s.lines() * k;
    check(x.format() == values.format() && indices.format() == TextureFormat::Rgba32I,
          where + ": the values or indices textures are of the wrong format");
    expect_element_count(values, count * words, where, "Values' words");
    expect_element_count(indices, 2 * count, where, "Indices' words");
    if (count == 0) return;
    expect_element_count(x, s.elements() * words, where, "X's words");

    TextureTensor ranks(context_, s.elements(), TextureFormat::Rgba32I);
    ProgramVariant rank_variant = values_variant(TextureFormat::Rgba32I);
    rank_variant.add(dtype == DataType::Int32, "SIGNED");
    rank_variant.add(dtype == DataType::UInt32, "UNSIGNED");
    rank_variant.add(dtype == DataType::Int64, "WORD_PAIRS");
    rank_variant.add(attrs.largest, "LARGEST");
    const std::string value_type = dtype == DataType::Int32    ? "int"
                                   : dtype == DataType::UInt32 ? "uint"
                                                               : "float";
    const Program& rank = context_.programs().get(
        "top_k_rank", rank_variant.name, rank_variant.defines,
        "#define float_or_int " + value_type + "\n" + kLineIndexing + kRankShader + kElementMain);
    const DrawInput rank_inputs[] = {{"x", &x}};
    // Four elements per fragment, each walking its line.
    draw(
        context_, rank, ranks, rank_inputs, [&] { set_line_uniforms(rank, s); },
        s.loop_steps(4, 1));

    ProgramVariant pick_variant = values_variant(TextureFormat::Rgba32I);
    pick_variant.add(attrs.sorted, "SORTED");
    const Program& pick =
        context_.programs().get("top_k_pick", pick_variant.name, pick_variant.defines,
                                std::string(kLineIndexing) + kPickShader + kElementMain);
    const DrawInput pick_inputs[] = {{"ranks", &ranks}};
    // Two indices per fragment (the low words of its four), each walking its line.
    draw(
        context_, pick, indices, pick_inputs,
        [&] {
          set_line_uniforms(pick, s);
          pick.set("u_k", static_cast<int>(k));
        },
        s.loop_steps(2, 1));

    const ProgramVariant gather_variant = values_variant(values.format());
    const Program& gather =
        context_.programs().get("top_k_gather", gather_variant.name, gather_variant.defines,
                                std::string(kLineIndexing) + kGatherShader + kElementMain);
    const DrawInput gather_inputs[] = {{"x", &x}, {"indices", &indices}};
    draw(context_, gather, values, gather_inputs, [&] {
      set_line_uniforms(gather, s);
      gather.set("u_words", static_cast<int>(words));
      gather.set("u_k", static_cast<int>(k));
    });
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The dtypes the CPU kernel orders and the draws compare exactly.
constexpr DataType kTopKDtypes[] = {
    DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int8,   DataType::UInt8,
    DataType::Int16,   DataType::UInt16,  DataType::Int32,    DataType::UInt32, DataType::Int64};

bool top_k_dtype(DataType t) {
  for (DataType d : kTopKDtypes)
    if (d == t) return true;
  return false;
}

// X of a dtype above; K (input 1, from opset 10) a host value.
OpFactory top_k_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (const std::optional<size_t> k = input_outside_dtypes(q, kTopKDtypes, 0, 1)) {
      reason = "TopK of " + std::string(dtype_name(q.input_types[*k])) + " stays on the CPU";
      return nullptr;
    }
    if (!host_inputs(q, 1, reason)) return nullptr;
    const TopKAttrs attrs = parse_top_k_attrs(q.info);
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const std::vector<Tensor> inputs = r.rule_inputs({1});
      const TopKPlan plan = resolve_top_k(NodeInputs{*node.node, inputs}, attrs);
      const DataType dtype = r.dtype(0);
      if (!top_k_dtype(dtype))
        throw RunOnCpu(RunTimeCause::InputKind, "a dtype the TopK draws do not compare");
      const Shape& x = r.shape(0);
      FoldedShape s;
      for (size_t d = 0; d < x.size(); ++d) {
        const auto axis = static_cast<size_t>(plan.axis);
        (d < axis ? s.outer : d == axis ? s.axis_len : s.inner) *= x[d];
      }
      Shape out_shape = x;
      out_shape[static_cast<size_t>(plan.axis)] = plan.k;
      TextureTensor& values = r.output(0, out_shape, dtype);
      TextureTensor unwanted;  // the indices' texture when the graph does not ask for them
      TextureTensor& indices =
          r.num_outputs() > 1
              ? r.output(1, out_shape, DataType::Int64)
              : (unwanted = r.temporary(2 * out_shape.element_count(), TextureFormat::Rgba32I));
      if (out_shape.element_count() == 0) return;
      r.kernel<TopK>().record(attrs, s, plan.k, dtype, r.texture(0), values, indices);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(top_k);
void register_top_k_ops(OpTable& t) { t.add("TopK", top_k_factory()); }

}  // namespace kiln::gpu_pixel
